"""What a test needs from outside the package (GNU Go, torch): skip here, fail under CI.

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
from types import ModuleType

import pytest

__all__ = ["find_gnugo", "need_gnugo", "need_module"]


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


def need_module(name: str) -> ModuleType:
    """``import name``; skip (fail under CI) when it cannot be imported. For torch and its kin."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        _missing(f"{name} cannot be imported ({e})")
        raise  # not reached: _missing skips or fails
