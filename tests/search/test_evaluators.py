"""Leaf evaluators: uniform, rollout (generic and Go's Numba playouts), network (batched) and mixed."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import torch

from fuseki.games import Hexapawn, TicTacToe, TicTacToeState
from fuseki.games.base import Game
from fuseki.games.go import GoGame
from fuseki.go.state import Color
from fuseki.go.state import GameState as GoState
from fuseki.nets import build_network
from fuseki.search.evaluators import (
    Evaluator,
    MixedEvaluator,
    NetworkEvaluator,
    RolloutEvaluator,
    UniformEvaluator,
)

torch.set_num_threads(1)  # the machine is shared; these nets are tiny

TTT = TicTacToe()


def positions(game: Game, count: int, seed: int) -> list[Any]:
    """``count`` positions from random games, finished ones included."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        state = game.initial_state()
        while len(out) < count:
            out.append(state)
            if state.is_over() or (hasattr(state, "go") and state.go.move_number > 30):
                break
            moves = state.legal_moves()
            state = state.play(moves[rng.randrange(len(moves))])
    return out


def check_shapes(game: Game, evaluator: Evaluator, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    priors, values = evaluator.evaluate(states)
    assert priors.shape == (len(states), game.num_actions) and priors.dtype == np.float32
    assert values.shape == (len(states),) and values.dtype == np.float32
    assert np.all(np.abs(values) <= 1.0)
    for state, p in zip(states, priors):
        mask = game.legal_mask(state)
        assert np.all(p[~mask] == 0.0)
        assert p.sum() == pytest.approx(1.0 if mask.any() else 0.0, abs=1e-5)
    return priors, values


def test_uniform_evaluator() -> None:
    states = positions(TTT, 40, seed=1)
    assert any(s.is_over() for s in states)
    priors, values = check_shapes(TTT, UniformEvaluator(TTT), states)
    for state, p, v in zip(states, priors, values):
        if state.is_over():
            assert v == state.returns()[state.current_player] and not p.any()
        else:
            assert v == 0.0 and np.allclose(p[p > 0], 1.0 / len(state.legal_moves()))


def test_rollout_evaluator_values_and_seed() -> None:
    won = TicTacToeState.from_string("XX. OO. X..")  # O to move: 5 wins at once, so O wins most random games
    draw_or_win = TicTacToeState.from_string("XXO OO. X.X")  # O to move: 5 wins, 7 draws
    evaluator = RolloutEvaluator(TTT, rollouts=400, seed=2)
    _, values = check_shapes(TTT, evaluator, [draw_or_win, won])
    assert values[0] == pytest.approx(0.5, abs=0.1)
    assert values[1] > 0.0
    # The same seed gives the same values; another seed other values.
    again = RolloutEvaluator(TTT, rollouts=400, seed=2).evaluate([draw_or_win, won])[1]
    np.testing.assert_array_equal(values, again)
    other = RolloutEvaluator(TTT, rollouts=400, seed=3).evaluate([draw_or_win, won])[1]
    assert not np.array_equal(values, other)
    finished = TicTacToeState.from_string("XXX OO. ...")
    assert RolloutEvaluator(TTT).evaluate([finished])[1][0] == -1.0  # O to move has lost


def test_rollout_evaluator_on_hexapawn_and_bad_options() -> None:
    game = Hexapawn()
    check_shapes(game, RolloutEvaluator(game, seed=0), positions(game, 20, seed=3))
    with pytest.raises(ValueError, match="Go's"):
        RolloutEvaluator(TTT, playout="light")
    with pytest.raises(ValueError):
        RolloutEvaluator(TTT, playout="smart")
    with pytest.raises(ValueError):
        RolloutEvaluator(TTT, rollouts=0)


#: A finished 5x5 position: both groups have two eyes, no other point is empty; Black has 15 points, White 10.
SETTLED = """
    X X X O .
    X . X O O
    X X X O .
    X . X O O
    X X X O O
"""


@pytest.mark.parametrize("playout", ["light", "heavy"])
def test_go_numba_playouts_value_for_the_player_to_move(playout: str) -> None:
    """A settled board Black leads by 5 points: every playout passes at once, whoever moves; komi decides."""
    game = GoGame(size=5, komi=0.5)
    evaluator = RolloutEvaluator(game, rollouts=20, playout=playout, seed=4)
    for komi, black_value in ((0.5, 1.0), (7.5, -1.0)):
        rules = dataclasses.replace(GoState.new(5).rules, komi=komi)
        black_to_move = game.wrap(GoState.from_ascii(SETTLED, rules=rules, to_move=Color.BLACK))
        white_to_move = game.wrap(GoState.from_ascii(SETTLED, rules=rules, to_move=Color.WHITE))
        _, values = check_shapes(game, evaluator, [black_to_move, white_to_move])
        assert values.tolist() == [black_value, -black_value]
    # Seeded: the same seed gives the same values from the start position.
    start = [game.initial_state()] * 3
    a = RolloutEvaluator(game, rollouts=5, playout=playout, seed=9).evaluate(start)[1]
    b = RolloutEvaluator(game, rollouts=5, playout=playout, seed=9).evaluate(start)[1]
    np.testing.assert_array_equal(a, b)


def test_go_generic_rollouts_with_a_length_cap() -> None:
    game = GoGame(size=5, komi=0.5)
    evaluator = RolloutEvaluator(game, seed=0, max_length=10)
    check_shapes(game, evaluator, positions(game, 3, seed=1))


def dual_net(game: Game, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    c, h, _ = game.planes_shape
    net = build_network("residual-dual", in_planes=c, size=h, num_moves=game.num_actions, blocks=1, channels=8)
    # Random batch-norm statistics, so eval mode is not the identity and a batch mix-up would show.
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return net


@pytest.mark.parametrize("game", [TTT, GoGame(size=9, history=2)], ids=["tictactoe", "go9"])
def test_network_evaluator_batched_equals_one_by_one(game: Game) -> None:
    states = positions(game, 24, seed=5)
    evaluator = NetworkEvaluator(game, dual_net(game, 0), device="cpu", max_batch=10)
    priors, values = check_shapes(game, evaluator, states)
    assert evaluator.batcher.passes == 3  # 24 states (minus finished ones) in chunks of at most 10
    for i, state in enumerate(states):
        p, v = evaluator.evaluate([state])
        np.testing.assert_allclose(p[0], priors[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v[0], values[i], rtol=1e-5, atol=1e-6)
    live = [i for i, s in enumerate(states) if not s.is_over()]
    assert len(set(np.round(values[live], 6).tolist())) > 1  # the network does see the positions


class Fixed:
    """A stub evaluator with fixed priors and values."""

    def __init__(self, game: Game, value: float) -> None:
        self.game = game
        self.value = value

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), self.game.num_actions), dtype=np.float32)
        priors[:, 0] = 1.0
        return priors, np.full(len(states), self.value, dtype=np.float32)


def test_mixed_evaluator() -> None:
    states = [TTT.initial_state()] * 2
    mixed = MixedEvaluator(Fixed(TTT, 0.8), Fixed(TTT, -0.4), lam=0.25)
    priors, values = mixed.evaluate(states)
    np.testing.assert_allclose(values, [0.25 * 0.8 + 0.75 * -0.4] * 2, rtol=1e-6)
    assert priors[:, 0].tolist() == [1.0, 1.0]  # the network's priors
    assert MixedEvaluator(Fixed(TTT, 0.8), Fixed(TTT, -0.4), lam=1.0).evaluate(states)[1].tolist() == pytest.approx([0.8] * 2)
    with pytest.raises(ValueError):
        MixedEvaluator(Fixed(TTT, 0), Fixed(TTT, 0), lam=1.5)
    with pytest.raises(ValueError, match="for hexapawn"):
        MixedEvaluator(Fixed(TTT, 0), Fixed(Hexapawn(), 0))
    # A network and a rollout evaluator together, on real positions.
    net = NetworkEvaluator(TTT, dual_net(TTT, 1), device="cpu")
    real = MixedEvaluator(net, RolloutEvaluator(TTT, rollouts=50, seed=0), lam=0.5)
    check_shapes(TTT, real, positions(TTT, 10, seed=2))


def test_evaluators_satisfy_the_protocol() -> None:
    for evaluator in (UniformEvaluator(TTT), RolloutEvaluator(TTT), NetworkEvaluator(TTT, dual_net(TTT, 2), device="cpu")):
        assert isinstance(evaluator, Evaluator)
