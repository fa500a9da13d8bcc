"""Fixtures for the GTP tests: a misbehaving fake engine (the real GNU Go is ``gnugo``, tests/conftest.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FAKE_ENGINE = Path(__file__).with_name("fake_gtp_engine.py")


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
