"""Fixtures for the GTP tests: a misbehaving fake engine and the real GNU Go."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FAKE_ENGINE = Path(__file__).with_name("fake_gtp_engine.py")


def find_real_gnugo() -> str | None:
    """GNU Go on PATH or where Debian puts it (``/usr/games`` is often not on PATH)."""
    return shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


@pytest.fixture
def gnugo() -> str:
    """Path of the real GNU Go. Missing: skip, except under CI, where it is a failure.

    CI installs GNU Go, so a skip there would hide a broken install behind a green run.
    """
    path = find_real_gnugo()
    if path is None:
        message = "GNU Go is not installed (Debian: apt install gnugo)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}, but CI is set and CI must install it")
        pytest.skip(message)
    return path


@pytest.fixture
def fake_engine() -> Callable[..., list[str]]:
    """``fake_engine("--banner", ...)`` -> argv that runs the fake engine with those options."""

    def argv(*options: str) -> list[str]:
        return [sys.executable, str(FAKE_ENGINE), *options]

    return argv


@pytest.fixture
def fake_gnugo(tmp_path: Path) -> Callable[..., str]:
    """``fake_gnugo("--refuse-play")`` -> path of an executable that poses as GNU Go."""

    def make(*options: str) -> str:
        script = tmp_path / "gnugo"
        opts = " ".join(f'"{o}"' for o in options)
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_ENGINE}" {opts} "$@"\n')
        script.chmod(0o755)
        return str(script)

    return make
