"""The real shipped 9x9 policy network (src/fuseki/models/policy-9x9.safetensors).

It was trained apart from the code (scripts/train_policy9.sh); these tests
check the file that ships: it is found by name, says how it was made, and
plays whole legal games from the package alone.
"""

from __future__ import annotations

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents import make_agent  # noqa: E402
from fuseki.agents.agent_file import read_agent_info  # noqa: E402
from fuseki.agents.deep_learning import DEFAULT_POLICY_MODEL, default_policy_path  # noqa: E402
from fuseki.go.state import GameState  # noqa: E402


def test_the_shipped_policy_is_in_the_package_and_describes_its_training():
    path = default_policy_path()
    assert path is not None and path.parent.name == "models" and path.stat().st_size < 4 * 2**20
    info = read_agent_info(DEFAULT_POLICY_MODEL)
    assert (info.kind, info.board_size, info.encoder, info.network) == ("policy", 9, "simple", "residual")
    training = info.training
    assert training["trainer"] == "fuseki train supervised" and training["augment"] is True
    assert training["final"]["test_top1"] > 0.4  # a network that learned GNU Go's moves, not a placeholder


@pytest.mark.parametrize("seed", [1, 2])
def test_the_shipped_policy_plays_a_legal_game_to_the_end(seed):
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
