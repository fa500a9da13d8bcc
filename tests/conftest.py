"""Fixtures more than one test folder uses."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from needs import need_gnugo, need_michi_src, need_module, need_stockfish


@pytest.fixture
def gnugo() -> str:
    """Path of the real GNU Go. Missing: skip, except under CI (env ``CI`` set), where it is a failure.

    CI installs GNU Go, so a skip there would hide a broken install behind a green run.
    """
    return need_gnugo()


@pytest.fixture
def stockfish() -> str:
    """Path of the real Stockfish (Debian's 15.1). Missing: skip, except under CI (as ``gnugo``)."""
    return need_stockfish()


@pytest.fixture
def michi_src() -> Path:
    """michi-c's source folder (``../shared/peers/michi-c``). Missing: skip, except under CI (as ``gnugo``)."""
    return need_michi_src()


@pytest.fixture
def torch() -> ModuleType:
    """The ``torch`` module. Missing: skip, except under CI, where it is a failure (as ``gnugo``)."""
    return need_module("torch")


@pytest.fixture
def dead_stones_spy(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], list[object]]:
    """``dead_stones_spy(colour=2)``: replace the dead-stone classifier with a spy; returns its call log.

    The spy calls every stone of ``colour`` (1 Black, 2 White) dead and logs
    the model it was given, so a test sees both the count that follows and
    whether the shipped model was loaded and passed on.
    """
    import fuseki.deadstones.scorer as scorer
    from fuseki.go.coords import Point

    calls: list[object] = []

    def install(colour: int = 2) -> list[object]:
        def fake(state, model=None):  # type: ignore[no-untyped-def]
            calls.append(model)
            dead = [Point(int(r), int(c)) for r, c in zip(*(state.stones() == colour).nonzero())]
            return {"alive": [], "dead": dead, "seki": []}

        monkeypatch.setattr(scorer, "nn_final_status", fake)
        return calls

    return install


@pytest.fixture
def no_shipped_models(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Search an empty models folder only, so that the shipped ``policy-9x9`` counts as not installed.

    ``FUSEKI_MODELS`` alone would not do: the package's own ``fuseki/models/``
    is searched after it and holds the policy once it is trained.
    """
    import fuseki.util.models as models

    empty = tmp_path_factory.mktemp("no-models")
    monkeypatch.setattr(models, "models_dirs", lambda: [empty])
    return empty

#: A GTP engine that misbehaves on request (hangs, dies, answers junk): the client's, match's and eval's tests use it.
FAKE_ENGINE = Path(__file__).parent / "fakes" / "fake_gtp_engine.py"


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
