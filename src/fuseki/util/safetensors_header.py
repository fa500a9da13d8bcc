"""Read and check a safetensors file's header and the JSON object one of our ``__metadata__`` keys holds.

Agent files (:mod:`fuseki.agents.agent_file`) and dead-stone model files
(:mod:`fuseki.deadstones.model`) are both plain safetensors files with a JSON
object under their own metadata key. Both read that object from the header
alone (no torch, no weights), and both want the same checks, each with its own
error class and words: a file that is empty, truncated, foreign (a pickle, an
HDF5 file, ...), carries bytes after its weights, or lacks our metadata gets a
one-line message that names the file and says what is wrong.

The layout (from the safetensors spec): 8 bytes little-endian header length
``N``, then ``N`` bytes of a JSON object (``{"name": {"dtype", "shape",
"data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}``), then the
tensor data; the file ends where the last ``data_offsets`` end says.
"""

from __future__ import annotations

import dataclasses
import json
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["HeaderFormat", "read_header"]


@dataclasses.dataclass(frozen=True)
class HeaderFormat:
    """What one kind of file calls itself in messages, and which error and metadata key it uses."""

    #: The exception class raised for every problem (one-line message that starts with the path).
    error: type[Exception]
    #: The ``__metadata__`` key holding our JSON object (as a string).
    metadata_key: str
    #: "not a {name}": e.g. ``"fuseki agent file"``.
    name: str
    #: "truncated {short}" and "corrupt {short}": e.g. ``"agent file"``.
    short: str
    #: "a safetensors file but not a {owner}": e.g. ``"fuseki agent"``.
    owner: str
    #: "its {metadata} is not a JSON object": e.g. ``"metadata"``.
    metadata: str
    #: Headers longer than this are not ours.
    max_header: int
    #: Magic numbers of files people may mistake for ours, with the words that say what the file is.
    foreign_magic: Mapping[bytes, str]
    #: Say "no such {name}" / "is a directory" rather than the generic "cannot read: ..." for those two.
    name_missing: bool = False


def read_header(path: Path, fmt: HeaderFormat) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parse and check ``path``'s safetensors header; returns our metadata object and the raw header.

    Raises ``fmt.error`` with a one-line message for anything that is not a
    whole file of this kind (the fields inside the metadata object are the
    caller's to check).
    """
    err = fmt.error
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                what = "is empty" if size == 0 else f"is only {size} bytes long"
                raise err(f"{path}: {what}: not a {fmt.name} (or truncated)")
            (length,) = struct.unpack("<Q", head)
            first = f.read(1)
            if first != b"{" or length > fmt.max_header:
                foreign = next((what for magic, what in fmt.foreign_magic.items() if head.startswith(magic)), None)
                raise err(f"{path}: not a {fmt.name} ({foreign or 'not a safetensors file'})")
            if 8 + length > size:
                raise err(f"{path}: truncated {fmt.short}: its header needs {8 + length} bytes, the file has {size}")
            raw = first + f.read(length - 1)
    except OSError as e:
        if fmt.name_missing and isinstance(e, FileNotFoundError):
            raise err(f"{path}: no such {fmt.name}") from None
        if fmt.name_missing and isinstance(e, IsADirectoryError):
            raise err(f"{path}: is a directory, not a {fmt.name}") from None
        raise err(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        header = json.loads(raw.decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("not an object")
    except (UnicodeDecodeError, ValueError):
        raise err(f"{path}: not a {fmt.name} (a broken safetensors header)") from None
    ends = [
        entry["data_offsets"][1]
        for key, entry in header.items()
        if key != "__metadata__"
        and isinstance(entry, dict)
        and isinstance(entry.get("data_offsets"), list)
        and len(entry["data_offsets"]) == 2
        and isinstance(entry["data_offsets"][1], int)
    ]
    expected = 8 + length + max(ends, default=0)
    if size < expected:
        raise err(f"{path}: truncated {fmt.short}: {size} bytes of the {expected} its header describes")
    if size > expected:
        raise err(f"{path}: corrupt {fmt.short}: {size - expected} unexpected bytes after the weights")
    meta = header.get("__metadata__")
    text = meta.get(fmt.metadata_key) if isinstance(meta, dict) else None
    if not isinstance(text, str):
        raise err(f"{path}: a safetensors file but not a {fmt.owner} (no {fmt.metadata_key} metadata)")
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict):
            raise ValueError("not an object")
    except ValueError:
        raise err(f"{path}: corrupt {fmt.short}: its {fmt.metadata} is not a JSON object") from None
    return obj, header


def check_format_version(path: Path, obj: Mapping[str, Any], fmt: HeaderFormat, current: int, label: str) -> int:
    """Our metadata's ``format_version``: a whole number from 1 to ``current``, else ``fmt.error``.

    A newer version names the fuseki that wrote it and asks for an upgrade;
    ``label`` is what the version counts, e.g. ``"agent file format"``.
    """
    version = obj.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise fmt.error(f"{path}: corrupt {fmt.short}: bad format_version {version!r}")
    if version > current:
        import fuseki

        raise fmt.error(
            f"{path}: written by a newer fuseki ({obj.get('fuseki_version', '?')}, {label} {version}); "
            f"fuseki {fuseki.__version__} reads format {current}: upgrade fuseki"
        )
    return version
