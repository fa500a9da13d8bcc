"""``fuseki bench zero``: the command, its last line, its file, its errors, and the peer's planes.

No timing assertions: the machines this runs on are shared and noisy.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.bench import zero as Z  # noqa: E402

TINY = ["--size", "5", "--moves", "3", "--parallel", "2", "--batch", "2", "--simulations", "6", "--blocks", "1", "--channels", "8"]


def test_last_line_is_the_four_figures_and_the_file_has_the_rest(run_cli, last_json, tmp_path):
    out_file = tmp_path / "zero.json"
    rc, out, err = run_cli(["bench", "zero", *TINY, "--json", "--out", str(out_file)])
    assert rc == 0, err
    last = last_json(out)
    assert list(last) == ["size", "moves_per_s", "evals_per_s", "peers"] and list(last["peers"]) == ["openspiel_mcts"]
    assert last["size"] == 5 and last["moves_per_s"] > 0 and last["evals_per_s"] > last["moves_per_s"]
    saved = json.loads(out_file.read_text())
    assert saved["moves_per_s"] == last["moves_per_s"] and saved["command"].startswith("fuseki bench zero --size 5 ")
    ours = saved["fuseki"]
    assert ours["moves"] == 6 and ours["games"] == 2 and ours["network_calls"] < ours["evaluations"]
    peer = saved["peer_detail"].get("openspiel_mcts")
    if peer is None:
        assert saved["peer_notes"]["openspiel_mcts"]  # one line: why not
        assert last["peers"]["openspiel_mcts"] is None
    else:
        assert peer["moves"] == ours["moves"]  # the same number of moves measured
        assert last["peers"]["openspiel_mcts"] == peer["moves_per_s"] > 0
        assert saved["ratio_vs_openspiel"] == pytest.approx(ours["moves_per_s"] / peer["moves_per_s"], abs=1e-3)  # rounded
    assert "fuseki (Numba trees, batched)" in out and "Traceback" not in out + err


def test_no_peers_and_gumbel(run_json):
    result, _, _ = run_json(["bench", "zero", *TINY, "--no-peers", "--root", "gumbel", "--gumbel-m", "4", "--json"])
    assert result["peers"] == {"openspiel_mcts": None}


def test_peer_moves_caps_the_peer(run_cli, tmp_path):
    out_file = tmp_path / "zero.json"
    rc, _, err = run_cli(["bench", "zero", *TINY, "--peer-moves", "2", "--out", str(out_file)])
    assert rc == 0, err
    saved = json.loads(out_file.read_text())
    assert "--peer-moves 2" in saved["command"] and saved["fuseki"]["moves"] == 6
    if saved["peer_detail"]:
        assert saved["peer_detail"]["openspiel_mcts"]["moves"] == 2


def test_chess_beside_go_in_the_same_run(run_cli, last_json, tmp_path):
    """``--game chess``: chess self-play (issue 20's figure) and Go's with the same settings; the last line has both."""
    out_file = tmp_path / "zero_chess.json"
    rc, out, err = run_cli(["bench", "zero", "--game", "chess", *TINY, "--json", "--out", str(out_file)])
    assert rc == 0, err
    last = last_json(out)
    assert list(last) == ["game", "moves_per_s", "evals_per_s", "go"] and last["game"] == "chess"
    assert list(last["go"]) == ["size", "moves_per_s", "evals_per_s"] and last["go"]["size"] == 5
    assert last["evals_per_s"] > last["moves_per_s"] > 0 and last["go"]["evals_per_s"] > last["go"]["moves_per_s"] > 0
    saved = json.loads(out_file.read_text())
    chess, go = saved["fuseki"], saved["go_detail"]
    assert (chess["game"], go["game"]) == ("chess", "go")
    for side in (chess, go):  # the same settings on both sides: 2 games of 3 moves
        assert side["moves"] == 6 and side["games"] == 2 and side["network_calls"] < side["evaluations"]
        assert 0 < side["network_seconds"] <= side["seconds"]
    assert saved["ratio_chess_vs_go"] == pytest.approx(chess["moves_per_s"] / go["moves_per_s"], abs=1e-3)
    assert saved["command"].startswith("fuseki bench zero --game chess --size 5 ") and "--peers" not in saved["command"]
    assert "chess (Python PUCT, python-chess)" in out and "chess / Go:" in out and "Traceback" not in out + err


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "zero", "--game", "chess", "--peers", "openspiel_mcts"],
        ["bench", "zero", "--game", "chess", "--peer-moves", "3"],
        ["bench", "mcts", "--game", "chess"],
        ["bench", "zero", "--device", "cuda"] if not torch.cuda.is_available() else ["bench", "zero", "--device", "vulkan"],
        ["bench", "zero", "--simulations", "0"],
        ["bench", "zero", "--parallel", "-1"],
        ["bench", "zero", "--rounds", "3"],
        ["bench", "zero", "--peers", "dlgo"],
        ["bench", "mcts", "--parallel", "3"],
        ["bench", "rules", "--precision", "bf16"],
        ["bench", "zero", "--peer-moves", "0"],
        ["bench", "mcts", "--peer-moves", "3"],
    ],
)
def test_bad_flags_exit_2_with_one_line(argv, usage_error):
    usage_error(argv)


def test_openspiel_planes_are_games_go_planes():
    """The peer's evaluator reads the same 17 planes as ours for the same position."""
    pyspiel = pytest.importorskip("pyspiel")
    from fuseki.games.go import GoGame

    size = 5
    ours = GoGame(size=size, komi=Z.KOMI)
    game = pyspiel.load_game("go", {"board_size": size, "komi": Z.KOMI})
    planes = Z.OpenSpielPlanes(game, size)
    rng = np.random.default_rng(3)
    theirs = game.new_initial_state()
    state = ours.initial_state()
    for _ in range(14):
        np.testing.assert_array_equal(planes.planes(theirs), ours.planes(state))
        action = int(rng.choice(theirs.legal_actions()))
        ours_action = action if action == size * size else (size - 1 - action // size) * size + action % size
        theirs.apply_action(action)
        state = state.play(ours.index_to_move(state, ours_action))
    # A position whose ancestors were never seen is rebuilt by replaying its actions.
    fresh = Z.OpenSpielPlanes(game, size)
    np.testing.assert_array_equal(fresh.planes(theirs), ours.planes(state))
