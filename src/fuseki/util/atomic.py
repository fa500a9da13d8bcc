"""Atomic file writes (a reader sees the old file or the new one, never half of one) and file checksums."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["TEMP_SUFFIX", "sha256_file", "write_atomic", "write_json_atomic"]

#: Temporary files are ``.NAME.XXXX.tmp`` next to their target.
TEMP_SUFFIX = ".tmp"


def write_atomic(path: str | os.PathLike[str], data: bytes | Callable[[IO[bytes]], Any]) -> None:
    """Write ``data`` (bytes, or a function that writes to a binary file) to ``path``.

    The data goes to a temporary file in the same folder, is flushed and
    ``fsync``-ed, and then replaces ``path`` in one step (``os.replace``). A
    crash at any moment leaves either the old file or the new one, plus at
    worst a stray ``.NAME.*.tmp`` file.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; data files are not
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted UTF-8 JSON (the same object gives the same bytes)."""
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 hex digest of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
