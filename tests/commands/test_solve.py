"""``fuseki solve``: exact values of tic-tac-toe and Hexapawn from every search."""

from __future__ import annotations

import json

import pytest

from fuseki.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["solve", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_tictactoe_is_a_draw_and_alphabeta_prunes(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, "tictactoe")
    # The well-known size of the game tree: 255,168 games (the book: "no more than 300,000").
    assert data["finished_games"] == 255_168
    assert data["tree_positions"] == 549_945
    by = {r["search"]: r for r in data["searches"]}
    assert {r["value"] for r in data["searches"]} == {0.0}
    assert by["minimax"]["nodes"] == by["negamax"]["nodes"] == data["tree_positions"]
    assert by["alphabeta+tt"]["nodes"] < by["alphabeta"]["nodes"] < by["minimax"]["nodes"] // 10


def test_hexapawn_is_a_second_player_win(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, "hexapawn")
    assert {r["value"] for r in data["searches"]} == {-1.0}
    by = {r["search"]: r for r in data["searches"]}
    assert by["minimax"]["nodes"] == data["tree_positions"]
    assert by["alphabeta"]["nodes"] < by["minimax"]["nodes"]


def test_unknown_game_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["solve", "checkers"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
