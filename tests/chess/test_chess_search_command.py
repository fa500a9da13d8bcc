"""``fuseki chess-search``: Klein's figures next to ours, and one JSON line at the end with --json."""

from __future__ import annotations

import json

import pytest

from fuseki.cli import main


def test_depth3_prints_ours_next_to_kleins_and_ends_with_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chess-search", "--experiment", "depth3", "--no-generic", "--json"]) == 0
    out = capsys.readouterr().out
    assert "46,828" in out and "8,050" in out and "h5f7" in out
    result = json.loads(out.strip().splitlines()[-1])
    r = result["depth3"]
    assert (r["minimax"]["move"], r["minimax"]["nodes"]) == ("h5f7", 46828)
    assert (r["alphabeta"]["move"], r["alphabeta"]["nodes"]) == ("h5f7", 8050)
    assert r["klein"]["alphabeta"]["nodes"] == 8050


def test_mcts_with_small_budgets(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["chess-search", "--experiment", "mcts", "--mate-iterations", "100", "--iterations", "0", "--max-playout", "4", "--json"]
    assert main(args) == 0
    out = capsys.readouterr().out
    r = json.loads(out.strip().splitlines()[-1])["mcts"]
    assert r["mate"]["klein_style"]["move"] == "h5f7"
    assert r["mate"]["generic_uct"]["move"] == "h5f7"
    assert "legall" not in r
    assert "Figure 3.1" in out


def test_bad_arguments_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["chess-search", "--experiment", "nope"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["chess-search", "--depth", "0"])
    assert e.value.code == 2
