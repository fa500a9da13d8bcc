"""Where Numba keeps fuseki's compiled kernels: a folder keyed by the kernels' sources.

Numba's ``cache=True`` checks only the timestamp of the file that defines a
function. A kernel in ``search/go/gotree.py`` that calls one in
``search/go/playouts.py`` keeps its cached machine code when only
``playouts.py`` changes, so after a ``git pull`` (or an edit) the caller runs
against the callee's old signature or body: wrong results or a crash, with no
error. This bit the project twice.

:func:`configure` points ``NUMBA_CACHE_DIR`` at
``~/.cache/fuseki/numba/<digest>``, where the digest covers the source of
every file in :data:`KERNEL_FILES` (the files that compile Numba kernels).
Any change to any kernel file gives a new folder, so every
kernel compiles again once, together. A test keeps :data:`KERNEL_FILES` equal
to the set of files that import Numba.

It runs when ``fuseki`` is imported, before any kernel module imports Numba
(Numba reads the variable at its own import). A ``NUMBA_CACHE_DIR`` set by
the user is left alone. Folders of other digests that were not used for
:data:`KEEP_DAYS` days are removed, so old versions do not pile up while
checkouts of different commits side by side keep theirs.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

#: Files (relative to the ``fuseki`` package) that define Numba kernels.
KERNEL_FILES: tuple[str, ...] = (
    "deadstones/features.py",
    "deadstones/regions.py",
    "deadstones/territory.py",
    "encoders/_features.py",
    "go/kernels.py",
    "go/ladder.py",
    "go/ownership.py",
    "search/go/agtree.py",
    "search/go/final_status.py",
    "search/go/flattree.py",
    "search/go/gotree.py",
    "search/go/playouts.py",
    "search/go/reader.py",
    "search/go/rollout_policy.py",
    "search/go/zerotree.py",
    "train/alphago/rollout.py",
    "train/alphago/value_data.py",
)

#: Days an unused cache folder of another digest is kept.
KEEP_DAYS = 14

_PACKAGE = Path(__file__).resolve().parent.parent


def cache_root() -> Path:
    """The parent of the per-digest folders (``$XDG_CACHE_HOME/fuseki/numba`` or ``~/.cache/fuseki/numba``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fuseki" / "numba"


def sources_digest(package: Path = _PACKAGE) -> str:
    """A digest of the kernel files' bytes (16 hex digits).

    The Numba and Python versions are not in it: Numba's own cache index
    records them and recompiles when they change.

    A missing kernel file is an error: the list and the package disagree, and
    a digest without that file would not notice its changes.
    """
    h = hashlib.sha256()
    for rel in KERNEL_FILES:
        h.update(rel.encode() + b"\0")
        h.update((package / rel).read_bytes())
    return h.hexdigest()[:16]


def _prune(root: Path, keep: Path, now: float) -> None:
    """Remove sibling folders of ``keep`` unused for :data:`KEEP_DAYS` days (best effort: another process may race)."""
    try:
        siblings = list(root.iterdir())
    except OSError:
        return
    limit = now - KEEP_DAYS * 86400
    for folder in siblings:
        if folder == keep or not folder.is_dir():
            continue
        try:
            if folder.stat().st_mtime < limit:
                import shutil  # only here: it costs ~15 ms of every start otherwise

                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


def configure(environ: os._Environ[str] | dict[str, str] | None = None) -> str | None:
    """Set ``NUMBA_CACHE_DIR`` for this process and its children; return the folder (None when the user set one).

    The folder's timestamp is touched on every start so that :func:`_prune`
    in another checkout does not remove a folder in use. Where the cache
    home cannot be written (a read-only or missing home), the kernels go to
    a folder of the same digest under the system's temporary folder, and one
    line on stderr says so and how to choose a folder: the program works
    (compiling once per machine boot rather than once), where an exception
    at ``import fuseki`` would stop every command with a traceback.
    """
    env = os.environ if environ is None else environ
    if env.get("NUMBA_CACHE_DIR"):
        return None
    digest = sources_digest()
    folder = cache_root() / digest
    try:
        _use(folder)
    except OSError as e:
        spare = Path(tempfile.gettempdir()) / f"fuseki-kernels-{_user()}" / digest
        try:
            _use(spare)
        except OSError as e2:
            raise OSError(
                f"fuseki: cannot create the kernel cache folder {folder} ({e}) nor {spare} ({e2}); set NUMBA_CACHE_DIR"
            ) from e2
        print(
            f"fuseki: cannot create the kernel cache folder {folder} ({e.strerror or e}); "
            f"using {spare} (set NUMBA_CACHE_DIR to choose a folder)",
            file=sys.stderr,
        )
        folder = spare
    env["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None and environ is None:  # Numba was imported first and has read its settings already
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    return str(folder)


def _use(folder: Path) -> None:
    """Create ``folder`` (and its parents), touch it, and prune its unused siblings."""
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    os.utime(folder, (now, now))
    _prune(folder.parent, folder, now)


def _user() -> str:
    """Who runs this (the temporary folder is shared by every user of the machine)."""
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid is not None else os.environ.get("USERNAME", "user")
