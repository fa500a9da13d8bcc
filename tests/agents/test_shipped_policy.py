"""The real shipped policy networks (src/fuseki/models/policy-9x9 and policy-19x19).

They were trained apart from the code (scripts/train_policy9.sh on GNU Go's
9x9 games; benchmarks/device/fox_policy_gpu.sh on fox-9d's human 19x19
games); these tests check the files that ship: each is found by name, says
how it was made and from what data, and plays legal moves from the package alone.
"""

from __future__ import annotations

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents import make_agent  # noqa: E402
from fuseki.agents.agent_file import read_agent_info  # noqa: E402
from fuseki.agents.deep_learning import DEFAULT_POLICY_MODELS, default_policy_path  # noqa: E402
from fuseki.go.state import GameState  # noqa: E402


def test_the_shipped_9x9_policy_is_in_the_package_and_describes_its_training():
    path = default_policy_path(9)
    assert path is not None and path.parent.name == "models" and path.stat().st_size < 4 * 2**20
    info = read_agent_info(DEFAULT_POLICY_MODELS[9])
    assert (info.kind, info.board_size, info.encoder, info.network) == ("policy", 9, "simple", "residual")
    training = info.training
    assert training["trainer"] == "fuseki train supervised" and training["augment"] is True
    assert training["final"]["test_top1"] > 0.4  # a network that learned GNU Go's moves, not a placeholder


def test_the_shipped_19x19_policy_is_in_the_package_and_names_its_human_games():
    path = default_policy_path(19)
    assert path is not None and path.parent.name == "models" and path.stat().st_size < 16 * 2**20
    info = read_agent_info(DEFAULT_POLICY_MODELS[19])
    assert (info.kind, info.board_size, info.encoder, info.network) == ("policy", 19, "alphago", "residual")
    assert info.network_options == {"blocks": 6, "channels": 128}
    training = info.training
    assert training["trainer"] == "fuseki train supervised" and training["augment"] is True
    assert training["data"].startswith("fox-9d") and training["data_license"] == "GPL-3.0"
    # The target on held-out human games (AlphaGo's 48 planes): at least 45 % top-1.
    assert training["accuracy"]["test_top1"] >= 0.45 and training["accuracy"]["test_positions"] > 100_000


@pytest.mark.parametrize("seed", [1, 2])
def test_the_shipped_9x9_policy_plays_a_legal_game_to_the_end(seed):
    black = make_agent("policy", seed=seed)
    white = make_agent("random", seed=seed)
    state = GameState.new(9)
    moves = 0
    while not state.is_over() and moves < 300:
        bot = black if moves % 2 == 0 else white
        move = bot.select_move(state)
        assert state.is_legal(move), (moves, move)
        state = state.play(move)
        moves += 1
    assert state.is_over() and moves > 20


def test_the_shipped_19x19_policy_opens_like_a_human_and_plays_legal_moves():
    bot = make_agent("policy", seed=3, mode="argmax")
    state = GameState.new(19)
    first = bot.select_move(state)
    # Strong amateurs open on the 3-4 and 4-4 points (and 3-3): lines 3 or 4 from two edges.
    line = {min(c, 18 - c) + 1 for c in (first.point.row, first.point.col)}
    assert line <= {3, 4}, first
    white = make_agent("random", seed=3)
    for n in range(80):
        move = (bot if n % 2 == 0 else white).select_move(state)
        assert state.is_legal(move), (n, move)
        state = state.play(move)
