"""The command line tells the user's mistakes (one line, exit 2) from fuseki's bugs (traceback, exit 1)."""

from __future__ import annotations

import argparse

import pytest

import fuseki.commands.solve as solve
from fuseki.cli import UserError, main
from fuseki.go.sgf import SgfError
from fuseki.util.errors import FusekiError, InputError


@pytest.mark.parametrize(
    "error",
    [UserError("bad flag"), InputError("bad value"), SgfError("bad SGF"), FileNotFoundError(2, "No such file", "x.sgf")],
)
def test_user_errors_are_one_line_with_status_2(
    error: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: argparse.Namespace) -> int:
        raise error

    monkeypatch.setattr(solve, "run", run)
    monkeypatch.delenv("FUSEKI_DEBUG", raising=False)
    assert main(["solve", "tictactoe"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fuseki solve: error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("error", [KeyError("slot"), ValueError("shapes do not match"), TypeError("bad call")])
def test_bugs_keep_their_traceback_and_exit_1(
    error: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: argparse.Namespace) -> int:
        raise error

    monkeypatch.setattr(solve, "run", run)
    assert main(["solve", "tictactoe"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and type(error).__name__ in err
    assert err.rstrip().splitlines()[-1].startswith("fuseki solve: internal error: this is a bug in fuseki")


def test_the_user_facing_error_classes_are_fuseki_errors_and_keep_their_old_bases() -> None:
    from fuseki.agents.agent_file import AgentFileError
    from fuseki.data.download import DataSourceError
    from fuseki.go.coords import CoordinateError
    from fuseki.go.state import IllegalMoveError

    for cls, old in ((SgfError, ValueError), (AgentFileError, ValueError), (CoordinateError, ValueError),
                     (IllegalMoveError, ValueError), (InputError, ValueError), (DataSourceError, OSError)):
        assert issubclass(cls, FusekiError) and issubclass(cls, old), cls


def test_gtp_set_of_a_limit_is_checked_like_its_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """``--set playouts=0`` was a TypeError (playouts passed twice); now it is the agent's own one-line check."""
    assert main(["gtp", "--bot", "mcts", "--set", "playouts=0"]) == 2
    assert "playouts must be at least 1, got 0" in capsys.readouterr().err
    assert main(["gtp", "--bot", "mcts", "--playouts", "5", "--set", "playouts=3"]) == 2
    assert "--playouts and --set playouts=... both given" in capsys.readouterr().err
