"""Klein's Hexapawn experiment: his solved-play data, the run folder (resumed, extended, refused), the command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.cli import main  # noqa: E402
from fuseki.games.hexapawn import Hexapawn  # noqa: E402
from fuseki.search.minimax import alphabeta  # noqa: E402
from fuseki.util.runs import RunMismatch  # noqa: E402
from fuseki.zero.klein import NETS, KleinSettings, RandomPlayer, run_klein, solved_positions, won_positions_kept  # noqa: E402

TINY = KleinSettings(layers=2, hidden=16, supervised_epochs=60, iterations=2, games=4, simulations=12, zero_epochs=4)


def test_the_solved_positions_are_klein_s_tree_walk() -> None:
    game = Hexapawn()
    states, actions, values = solved_positions(game)
    assert len(states) == 118 and len(set(states)) == 70  # every path walked: transpositions counted again
    assert states[0] == game.initial_state() and values[0] == -1.0  # Black wins Hexapawn
    for state, action, value in zip(states, actions, values, strict=True):
        move = game.index_to_move(state, action)
        assert move in state.legal_moves()
        assert value == alphabeta(state, tt=True).value  # the label is the solved result for the mover
        after = state.play(move)
        assert (-alphabeta(after, tt=True).value if not after.is_over() else 1.0) == value  # and the move keeps it


def test_won_positions_kept_tells_perfect_from_random() -> None:
    game = Hexapawn()
    perfect = won_positions_kept(game, lambda s: alphabeta(s, tt=True).move)
    assert perfect[0] == perfect[1] > 0
    rnd = RandomPlayer(0)
    assert won_positions_kept(game, rnd.select_move)[0] < perfect[1]


def test_the_run_resumes_extends_and_refuses_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "klein"
    result = run_klein(out, TINY, games=30)
    assert set(result["ours"]) == set(NETS)
    for name in NETS:
        for colour in ("black", "white"):
            r = result["ours"][name][colour]
            assert r["games"] == 30 and 0 <= r["wins"] <= 30 and r["ci95"][0] <= r["win_rate"] <= r["ci95"][1]
    sup = result["training"]["supervised"]
    assert sup["positions"] == 118 and sup["loss"]["loss"] < sup["loss_before"]["loss"]
    assert [z["iteration"] for z in result["training"]["zero"]] == [1, 2]
    assert json.loads((out / "result.json").read_text())["ours"] == result["ours"]
    first = json.loads((out / "eval-zero-black.json").read_text())["winners"]
    # more games: the 30 played are read back, 10 more are played
    more = run_klein(out, TINY, games=40)
    again = json.loads((out / "eval-zero-black.json").read_text())["winners"]
    assert len(again) == 40 and again[:30] == first
    assert more["training"] == {**result["training"]}
    with pytest.raises(RunMismatch, match="supervised_epochs: 60 there, 61 now"):
        run_klein(out, dataclasses.replace(TINY, supervised_epochs=61), games=30)


@pytest.mark.slow
def test_klein_s_supervised_net_never_loses_as_black(tmp_path: Path) -> None:
    """His settings in full: the net taught from the solved tree keeps every won position and beats random as Black."""
    result = run_klein(tmp_path / "klein", KleinSettings(), games=200)
    assert result["won_positions_kept"]["supervised"]["kept"] == result["won_positions_kept"]["supervised"]["won_positions"]
    assert result["ours"]["supervised"]["black"]["wins"] == 200


def test_the_command_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import fuseki.commands.zero_klein as command

    monkeypatch.setattr(command, "_settings", lambda seed: dataclasses.replace(TINY, seed=seed), raising=True)
    assert main(["zero", "klein", "--out", str(tmp_path / "k"), "--games", "10", "--progress", "none"]) == 0
    out = capsys.readouterr().out
    assert "supervised" in out and "as Black" in out and "Klein (100 games as Black)" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["zero", "klein", "--out", str(tmp_path / "k"), "--games", "0"])
    assert exit_info.value.code == 2
