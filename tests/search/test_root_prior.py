"""A policy network's probabilities as MCTS priors at the root (issue 7: the policy as MCTS priors)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from fuseki.agents import make_agent
from fuseki.agents.agent_file import save_agent
from fuseki.encoders import get_encoder
from fuseki.go import GameState
from fuseki.search.go import gotree as T
from fuseki.search.go.gomcts import GoMCTS, MCTSConfig


def _one_hot_prior(point: int, size: int):
    def prior(state: GameState) -> np.ndarray:
        p = np.zeros(size * size + 1)
        p[point] = 1.0
        return p

    return prior


def test_a_confident_prior_steers_a_short_search() -> None:
    state = GameState.new(7, komi=7.5)
    corner = 0  # A7: a poor first move that the search alone does not pick
    plain = GoMCTS(MCTSConfig(seed=3)).search(state, playouts=200)
    assert plain.move != corner
    steered = GoMCTS(MCTSConfig(seed=3), root_prior=_one_hot_prior(corner, 7), root_prior_visits=5000).search(
        state, playouts=200
    )
    assert steered.move == corner


def test_the_prior_is_added_once_per_root() -> None:
    state = GameState.new(5, komi=0.5)
    calls = []

    def prior(s: GameState) -> np.ndarray:
        calls.append(s.move_number)
        return np.full(26, 1 / 26)

    engine = GoMCTS(MCTSConfig(seed=1), root_prior=prior, root_prior_visits=260)
    engine.search(state, playouts=20)
    first, k = int(engine._ti[0, T.T_FIRST]), int(engine._ti[0, T.T_NCHILD])
    pn = engine._tf[first : first + k, T.F_PN].copy()
    engine.search(state, playouts=20)  # same root: no second helping
    assert np.array_equal(engine._tf[first : first + k, T.F_PN], pn)
    assert calls == [0]
    # 260 visits spread evenly over 26 moves: each child got 10 more prior visits than without the policy.
    bare = GoMCTS(MCTSConfig(seed=1))
    bare.search(state, playouts=1)
    f2, k2 = int(bare._ti[0, T.T_FIRST]), int(bare._ti[0, T.T_NCHILD])
    by_move = dict(zip(bare._ti[f2 : f2 + k2, T.T_MOVE].tolist(), bare._tf[f2 : f2 + k2, T.F_PN].tolist()))
    for move, value in zip(engine._ti[first : first + k, T.T_MOVE].tolist(), pn.tolist()):
        assert value == pytest.approx(by_move[move] + 260 / k)
    # A new root (after a move) asks the policy again.
    engine.search(state.play(12), playouts=20)
    assert calls == [0, 1]


def test_bad_prior_output_is_a_clear_error() -> None:
    engine = GoMCTS(MCTSConfig(seed=1), root_prior=lambda s: np.ones(10))
    with pytest.raises(ValueError, match="needs 26"):
        engine.search(GameState.new(5), playouts=5)
    engine = GoMCTS(MCTSConfig(seed=1), root_prior=lambda s: -np.ones(26))
    with pytest.raises(ValueError, match="negative"):
        engine.search(GameState.new(5), playouts=5)
    with pytest.raises(ValueError, match="root_prior_visits"):
        GoMCTS(root_prior_visits=-1.0)


def test_mcts_agent_with_a_policy_file(tmp_path: Path) -> None:
    from fuseki.nets.registry import available_networks, register_network

    if "test-linear-prior" not in available_networks():
        register_network(
            "test-linear-prior",
            lambda in_planes, size, num_moves: torch.nn.Sequential(
                torch.nn.Flatten(), torch.nn.Linear(in_planes * size * size, num_moves)
            ),
            "a test net",
        )
    enc = get_encoder("oneplane", 5)
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(25, 25))
    path = tmp_path / "p.safetensors"
    save_agent(path, net, encoder=enc, network="test-linear-prior", metadata={"data": "none"})
    bot = make_agent("mcts", playouts=50, seed=2, policy_model=str(path))
    assert bot.name == "mcts+policy"
    state = GameState.new(5, komi=0.5)
    move = bot.select_move(state)
    assert move.is_play and state.is_legal(move)
    with pytest.raises(ValueError, match="5x5 only"):
        bot.select_move(GameState.new(7))
