"""AlphaGo's search: values backed up for the right player, priors steering, virtual losses taken back, reuse."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.go import GameState
from fuseki.search.go import agtree as A
from fuseki.search.go.alphago_search import AlphaGoConfig, AlphaGoSearch
from fuseki.util.errors import InputError


def uniform(planes, need_priors, need_values):
    b, n = planes.shape[0], planes.shape[-1]
    return np.full((b, n * n), 1.0 / (n * n)), np.zeros(b)


def test_the_value_network_is_read_for_the_right_player():
    """v = -1 for the player to move when the opponent holds C3 (index 12): only Black's C3 earns it.

    With λ = 1 (no rollouts) and uniform priors, the search must find that
    Black's move at the centre leaves White in a lost position.
    """

    def evaluator(planes, need_priors, need_values):
        b, n = planes.shape[0], planes.shape[-1]
        opponent_at_centre = planes[:, 1].reshape(b, n * n)[:, 12] == 1  # plane 1: the opponent's stones
        return np.full((b, n * n), 1.0 / (n * n)), np.where(opponent_at_centre, -1.0, 0.0)

    search = AlphaGoSearch(evaluator, config=AlphaGoConfig(lam=1.0, seed=3, capacity=1 << 14))
    info = search.search(GameState.new(5, komi=0.5), playouts=300)
    assert info.move == 12
    # Below C3 the positions are even again (value 0), so its mean lies between 1 and 0.5; every other move is even.
    assert info.winrate > 0.6
    assert all(c.value <= 0.55 for c in info.children if c.move != 12 and c.visits > 0)


def test_priors_steer_the_search():
    """Policy priors all on one point, values flat: that point gets most visits."""

    def evaluator(planes, need_priors, need_values):
        b, n = planes.shape[0], planes.shape[-1]
        p = np.full((b, n * n), 1e-4)
        p[:, 7] = 1.0
        return p / p.sum(axis=1, keepdims=True), np.zeros(b)

    search = AlphaGoSearch(evaluator, config=AlphaGoConfig(lam=1.0, seed=1, capacity=1 << 14))
    info = search.search(GameState.new(5, komi=0.5), playouts=200)
    assert info.move == 7
    assert info.children[0].prior > 0.9


def test_rollouts_find_the_capture_that_wins():
    """White's big group is in atari; capturing it at A1 wins. Rollouts alone (λ = 0) find it."""
    s = GameState.from_ascii(
        """
        . O O O X
        O O O O X
        X X X X X
        . . . . .
        . . . . .
        """
    )
    search = AlphaGoSearch(uniform, config=AlphaGoConfig(lam=0.0, rollout="heavy", seed=2, capacity=1 << 16))
    info = search.search(s, playouts=1500)
    assert info.move == 0  # A5 in GTP, row 0 col 0: the capture
    assert info.winrate > 0.8


def test_virtual_losses_are_taken_back_and_nothing_waits():
    """A fractional virtual loss would show in N_v if any were left over; no node may still wait for the networks."""
    config = AlphaGoConfig(lam=0.5, rollout="light", virtual_loss=2.5, batch=4, expand_visits=2, seed=4, capacity=1 << 15)
    search = AlphaGoSearch(uniform, config=config)
    info = search.search(GameState.new(5, komi=0.5), playouts=400)
    used = info.tree_nodes
    ti, tf = search._ti[:used], search._tf[:used]
    assert not np.any(ti[:, A.A_FLAGS] & A.FLAG_PENDING)
    nv = tf[:, A.A_NV]
    np.testing.assert_array_equal(nv, np.round(nv))
    assert nv.min() >= 0 and info.evaluations >= 10 and info.network_calls >= 3
    assert tf[0, A.A_N] == 400 + info.reused_visits


def test_the_root_keeps_its_rollout_wins_so_unvisited_root_moves_are_worth_its_value():
    """Every simulation's rollout counts at the root too (for the player who moved into it), as at every node.

    Root moves' first-play urgency is 1 minus the root's share: with no wins kept there, an unvisited root
    move was worth a certain win and every legal root move got tried (half the simulations on 19x19).
    """
    search = AlphaGoSearch(uniform, config=AlphaGoConfig(lam=0.0, rollout="light", seed=6, capacity=1 << 16))
    search.search(GameState.new(5, komi=0.5), playouts=800)
    ti, tf = search._ti, search._tf
    first, k = int(ti[0, A.A_FIRST]), int(ti[0, A.A_NCHILD])
    children = tf[first : first + k]
    through = children[:, A.A_N].sum()  # the other simulations ended at the root before it was expanded
    lost_by_root_player = (children[:, A.A_N] - children[:, A.A_WR]).sum()
    assert through > 700
    assert lost_by_root_player <= tf[0, A.A_WR] <= lost_by_root_player + (tf[0, A.A_N] - through)
    assert 0.0 < tf[0, A.A_WR] < tf[0, A.A_N]


def test_fpu_reduction_is_checked_and_passed_to_the_kernels():
    assert AlphaGoConfig(fpu_reduction=0.3).params(7.5, 9)[A.Q_FPU_REDUCTION] == 0.3
    with pytest.raises(InputError, match="fpu_reduction"):
        AlphaGoConfig(fpu_reduction=-0.1)


def test_the_tree_is_reused_after_two_moves():
    search = AlphaGoSearch(uniform, config=AlphaGoConfig(rollout="light", seed=5, capacity=1 << 16))
    s = GameState.new(5, komi=0.5)
    first = search.search(s, playouts=600)
    after = s.play(first.move)
    # The opponent answers with its most visited move in our tree, so that subtree has visits to keep.
    node = search._find_child(0, first.move)
    k0, k = int(search._ti[node, A.A_FIRST]), int(search._ti[node, A.A_NCHILD])
    best = k0 + int(np.argmax(search._tf[k0 : k0 + k, A.A_N]))
    second = search.search(after.play(int(search._ti[best, A.A_MOVE])), playouts=100)
    assert second.reused_visits > 0


def test_settings_are_checked():
    with pytest.raises(InputError, match="lambda"):
        AlphaGoConfig(lam=1.5)
    with pytest.raises(InputError, match="rollout"):
        AlphaGoConfig(rollout="fancy")
    with pytest.raises(InputError, match="rollout policy"):
        AlphaGoSearch(uniform, config=AlphaGoConfig(rollout="policy"))
    search = AlphaGoSearch(uniform, config=AlphaGoConfig(rollout="light"))
    with pytest.raises(InputError, match="playouts or seconds"):
        search.search(GameState.new(5))
