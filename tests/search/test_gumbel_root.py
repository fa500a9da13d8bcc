"""Gumbel AlphaZero's root in the Python PUCT: the halving schedule, the exact budget, the improved policy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_puct import BLOCKS, GAME, WINS

from fuseki.games import TicTacToeState
from fuseki.search.evaluators import RolloutEvaluator, UniformEvaluator
from fuseki.search.puct import PUCT, GumbelRoot, PUCTConfig, considered_visits, gumbel_sigma


def test_considered_visits_is_sequential_halving() -> None:
    # 16 actions, 64 simulations: 4 phases (log2 16) of 16 visits each, shared by 16, 8, 4, then 2 survivors.
    seq = considered_visits(16, 64)
    assert len(seq) == 64
    counts = [0] * 16
    for need in seq:  # any action with exactly `need` visits may take the next one
        counts[counts.index(need)] += 1
    assert sorted(counts, reverse=True) == [15, 15, 7, 7, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1]
    assert considered_visits(4, 10) == (0, 0, 0, 0, 1, 1, 2, 2, 3, 3)
    assert considered_visits(1, 3) == (0, 1, 2) and considered_visits(8, 0) == ()
    assert considered_visits(16, 8) == (0,) * 8  # fewer simulations than actions: the top 8 once each


def gumbel(simulations: int, batch: int = 1, noise: bool = True, seed: int = 0, evaluator: Any = None) -> PUCT:
    return PUCT(
        GAME,
        evaluator or UniformEvaluator(GAME),
        simulations=simulations,
        batch_size=batch,
        root="gumbel",
        gumbel_m=4,
        gumbel_noise=noise,
        seed=seed,
    )


@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("simulations", [1, 2, 9, 33])
def test_the_root_spends_exactly_the_budget(batch: int, simulations: int) -> None:
    """A fresh root: its own evaluation and then simulations - 1 root visits; a reused root: all of them."""
    search = gumbel(simulations, batch)
    state = TicTacToeState.from_string("X.. .O. ...")
    first = search.search(state)
    assert first.visit_counts.sum() == simulations - 1
    k = min(4, len(state.legal_moves()))
    visits = sorted(int(v) for v in first.visit_counts if v > 0)
    expected = [0] * k
    for need in considered_visits(k, simulations - 1):
        expected[expected.index(need)] += 1
    assert visits == sorted(v for v in expected if v > 0)
    after = state.play(first.move)
    search.advance(first.move)
    reused = search.root is not None and search.root.expanded  # the child was a leaf the first search expanded
    second = search.search(after)
    assert second.visit_counts.sum() - second.reused_visits == (simulations if reused else simulations - 1)
    assert reused == (simulations > 1 and first.visits[first.move] > 0)


def test_improved_policy_and_moves() -> None:
    state = TicTacToeState.from_string("XX. OO. ...")
    result = gumbel(16, evaluator=RolloutEvaluator(GAME, rollouts=4, seed=1)).search(state)
    improved = result.improved
    assert improved is not None and improved.sum() == pytest.approx(1.0)
    legal = GAME.legal_mask(state)
    assert np.all(improved[~legal] == 0) and np.all(improved[legal] > 0)
    assert int(np.argmax(improved)) == 2 == result.move  # the win
    np.testing.assert_allclose(result.policy_target(), improved.astype(np.float32))
    # Without the noise the search is deterministic; with it, the seed matters.
    quiet = {gumbel(3, noise=False, seed=s).search(GAME.initial_state()).move for s in range(6)}
    noisy = {gumbel(3, seed=s).search(GAME.initial_state()).move for s in range(6)}
    assert len(quiet) == 1 and len(noisy) > 1


@pytest.mark.parametrize("board,square", WINS + BLOCKS)
def test_few_simulations_find_wins_and_blocks(board: str, square: int) -> None:
    state = TicTacToeState.from_string(board)
    search = PUCT(GAME, RolloutEvaluator(GAME, rollouts=8, seed=2), simulations=24, root="gumbel", gumbel_m=9)
    assert search.search(state).move == square


def test_sigma_completes_unvisited_actions_with_the_mixed_value() -> None:
    n = np.array([2.0, 0.0, 1.0, 0.0])
    w = np.array([1.0, 0.0, -1.0, 0.0])
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    sigma = gumbel_sigma(n, w, prior, raw_value=0.3, c_visit=50.0, c_scale=1.0)
    q = np.array([0.5, 0.0, -1.0, 0.0])
    mixed = (0.3 + 3 * (0.4 * 0.5 + 0.2 * -1.0) / 0.6) / 4
    completed = np.where(n > 0, q, mixed)
    np.testing.assert_allclose(sigma, (50 + 2) * 1.0 * (completed + 1) / 2)
    root = GumbelRoot.begin(prior, 4, 4, None)
    assert root.logits.max() == 0.0 and np.all(root.gumbel == 0)


def test_bad_options() -> None:
    for bad in ({"root": "alpha"}, {"gumbel_m": 0}, {"gumbel_c_scale": 0.0}, {"gumbel_c_visit": -1.0}):
        with pytest.raises(ValueError):
            PUCTConfig(**bad)
