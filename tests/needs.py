"""What a test needs from outside the package (GNU Go, Stockfish, torch): skip here, fail under CI.

A developer without GNU Go or torch still runs the rest of the suite, so a
missing one skips. CI installs both (``scripts/setup.sh --test``), so there a
missing one is a broken install, and a skip would hide it behind a green run:
with ``CI`` set in the environment it is a failure.

Imported as ``from needs import ...`` (pytest puts ``tests/`` on ``sys.path``
for ``tests/conftest.py``); the ``gnugo`` and ``torch`` fixtures in
``tests/conftest.py`` are the usual way in.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

__all__ = ["MICHI_SRC", "MICHI_SRC_ENV", "find_gnugo", "find_stockfish", "need_gnugo", "need_michi_src", "need_module", "need_stockfish"]

#: michi-c's source on the project's machines: beside the main checkout, in ``shared/peers``
#: (the tests run from a worktree too, so the main checkout is found through git).
MICHI_SRC_ENV = "FUSEKI_MICHI_SRC"


def find_gnugo() -> str | None:
    """GNU Go on PATH or where Debian puts it (``/usr/games`` is often not on PATH)."""
    return shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


def _missing(message: str) -> None:
    """Skip with ``message``, or fail when ``CI`` is set (works at module level too)."""
    if os.environ.get("CI"):
        pytest.fail(f"{message}, but CI is set and CI must install it", pytrace=False)
    pytest.skip(message, allow_module_level=True)


def need_gnugo() -> str:
    """Path of the real GNU Go; skip (fail under CI) when it is missing."""
    path = find_gnugo()
    if path is None:
        _missing("GNU Go is not installed (Debian: apt install gnugo)")
    assert path is not None
    return path


def _main_checkout() -> Path:
    """The main checkout of this repository (for a git worktree, the one that holds ``.git``)."""
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.run(["git", "-C", str(repo), "rev-parse", "--git-common-dir"], capture_output=True, text=True)
    if proc.returncode != 0 or not proc.stdout.strip():
        return repo
    common = Path(proc.stdout.strip())
    return (common if common.is_absolute() else repo / common).resolve().parent


def michi_src() -> Path:
    """Where michi-c's source is looked for: ``$FUSEKI_MICHI_SRC``, else ``../shared/peers/michi-c``."""
    env = os.environ.get(MICHI_SRC_ENV)
    return Path(env) if env else _main_checkout().parent / "shared" / "peers" / "michi-c"


MICHI_SRC = michi_src()


def need_michi_src() -> Path:
    """michi-c's source folder (benchmarks/michi.py); skip (fail under CI) when it is missing."""
    if not (MICHI_SRC / "michi.h").is_file():
        _missing(f"michi-c's source is not in {MICHI_SRC} (set {MICHI_SRC_ENV}; see benchmarks/michi.py)")
    return MICHI_SRC


def need_module(name: str) -> ModuleType:
    """``import name``; skip (fail under CI) when it cannot be imported. For torch and its kin."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        _missing(f"{name} cannot be imported ({e})")
        raise  # not reached: _missing skips or fails


def find_stockfish() -> str | None:
    """Stockfish on PATH or where Debian puts it (``/usr/games/stockfish``)."""
    return shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def need_stockfish() -> str:
    """Path of the real Stockfish (Debian's 15.1); skip (fail under CI) when it is missing."""
    path = find_stockfish()
    if path is None:
        _missing("Stockfish is not installed (Debian: apt install stockfish)")
    assert path is not None
    return path
