"""PUCT on tic-tac-toe (and a little Hexapawn and Go): forced wins, forced blocks, perfect play, the tree's books."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from fuseki.games import Hexapawn, HexapawnState, TicTacToe, TicTacToeState
from fuseki.games.go import GoGame
from fuseki.search import alphabeta
from fuseki.search.evaluators import RolloutEvaluator, UniformEvaluator
from fuseki.search.minimax import TranspositionTable
from fuseki.search.puct import PUCT, PUCTConfig, PUCTNode, puct_search, visit_distribution

GAME = TicTacToe()

#: Positions where the player to move wins at once, and the winning square (the only one).
WINS = [
    ("XX. OO. ...", 2),  # X completes the top row before O completes the middle one
    ("X.O .XO ...", 8),  # X's diagonal; O threatens the same square
    ("XX. OO. X..", 5),  # O to move completes the middle row
    ("O.X .OX X..", 8),  # O's diagonal, also X's threat
    ("XO. XO. ...", 6),  # X's left column; O threatens 7
]

#: Positions where the opponent threatens to win and the player to move cannot win first: one square
#: saves (every other move loses), and the position is not lost anyway.
BLOCKS = [
    ("OO. .X. ..X", 2),  # X must take 2 (and then wins: a fork)
    ("XX. .O. ...", 2),  # O must take 2
    ("X.O .X. ...", 8),  # O must stop the diagonal
    ("O.. .OX X..", 8),  # X must stop O's diagonal (and wins)
    ("..X .X. ..O", 6),  # O must stop the anti-diagonal
    ("O.. XO. X..", 8),  # X must stop O's diagonal
]


def uniform() -> UniformEvaluator:
    return UniformEvaluator(GAME)


def rollouts(seed: int = 0) -> RolloutEvaluator:
    return RolloutEvaluator(GAME, rollouts=4, seed=seed)


@pytest.mark.parametrize("board,square", WINS)
@pytest.mark.parametrize("make", [uniform, rollouts], ids=["uniform", "rollout"])
@pytest.mark.parametrize("batch", [1, 8])
def test_finds_the_win_in_one(board: str, square: int, make: Any, batch: int) -> None:
    state = TicTacToeState.from_string(board)
    assert square in state.legal_moves()
    result = PUCT(GAME, make(), simulations=100, batch_size=batch).search(state)
    assert result.move == square
    assert result.values[square] == 1.0  # a win, valued exactly


@pytest.mark.parametrize("board,square", BLOCKS)
@pytest.mark.parametrize("make", [uniform, rollouts], ids=["uniform", "rollout"])
@pytest.mark.parametrize("batch", [1, 8])
def test_finds_the_forced_block(board: str, square: int, make: Any, batch: int) -> None:
    state = TicTacToeState.from_string(board)
    # The position is what the test says: the block holds, every other move loses.
    assert alphabeta(state).value > -1
    assert [m for m in state.legal_moves() if alphabeta(state.play(m)).value < 1] == [square]
    result = PUCT(GAME, make(), simulations=300, batch_size=batch).search(state)
    assert result.move == square


def play_against_alphabeta(search: PUCT, puct_player: int) -> float:
    table = TranspositionTable()
    state = GAME.initial_state()
    while not state.is_over():
        if state.current_player == puct_player:
            move = search.search(state).move
        else:
            move = alphabeta(state, tt=table).move
        state = state.play(move)
    return state.returns()[puct_player]


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("batch", [1, 8])
def test_uniform_puct_draws_against_perfect_play(player: int, batch: int) -> None:
    search = PUCT(GAME, uniform(), simulations=1200, batch_size=batch)
    assert play_against_alphabeta(search, player) == 0.0


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("player", [0, 1])
def test_rollout_puct_draws_against_perfect_play(seed: int, player: int) -> None:
    search = PUCT(GAME, rollouts(seed), simulations=600, batch_size=4, seed=seed)
    assert play_against_alphabeta(search, player) == 0.0


def check_books(node: PUCTNode) -> int:
    """Every node's visits are its own evaluation plus its actions' visits; no virtual loss is left."""
    assert not node.pending
    if node.returns is not None or not node.expanded:
        return 0
    assert node.visits == pytest.approx(1 + node.n.sum())
    assert np.all(node.n == np.round(node.n)) and np.all(np.abs(node.w) <= node.n + 1e-9)
    count = 1
    for i, child in enumerate(node.children):
        if child is not None:
            assert child.visits == pytest.approx(node.n[i])
            count += check_books(child)
    return count


@pytest.mark.parametrize("batch", [1, 5, 16])
def test_virtual_loss_is_taken_back_and_visits_add_up(batch: int) -> None:
    search = PUCT(GAME, uniform(), simulations=500, batch_size=batch)
    result = search.search(GAME.initial_state())
    assert result.iterations == 500
    assert search.root is not None and search.root.visits == 500
    assert check_books(search.root) > 50
    assert sum(s.visits for s in result.stats) == 499  # the first simulation evaluated the root itself


class CountingEvaluator:
    """Wraps an evaluator and records the size of each call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.game = inner.game
        self.sizes: list[int] = []

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        self.sizes.append(len(states))
        return self.inner.evaluate(states)


def test_leaves_are_evaluated_in_batches() -> None:
    counting = CountingEvaluator(uniform())
    PUCT(GAME, counting, simulations=200, batch_size=8).search(GAME.initial_state())
    assert counting.sizes[0] == 1  # the root, alone
    assert max(counting.sizes) == 8 and max(counting.sizes[1:]) <= 8
    assert sum(counting.sizes) <= 200  # finished games are valued without the evaluator
    assert len(counting.sizes) < 60  # most calls carry several leaves


def test_pi_and_temperature() -> None:
    result = PUCT(GAME, uniform(), simulations=300).search(TicTacToeState.from_string("XX. OO. ..."))
    pi = result.pi(1.0)
    assert pi.shape == (9,) and pi.sum() == pytest.approx(1.0)
    assert pi[[0, 1, 3, 4]].sum() == 0.0  # occupied squares get nothing
    assert int(np.argmax(pi)) == result.move == 2
    np.testing.assert_array_equal(result.pi(0), np.eye(9)[2])
    hot = result.pi(4.0)
    assert hot[2] < pi[2] and hot.max() == hot[2]  # a high temperature flattens, but keeps the order
    assert visit_distribution(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        visit_distribution(np.ones(3), -1.0)


def test_tree_reuse() -> None:
    search = PUCT(GAME, uniform(), simulations=400)
    start = GAME.initial_state()
    first = search.search(start)
    assert first.reused_visits == 0
    child_visits = first.visits[first.move]
    after = start.play(first.move)
    search.advance(first.move)
    second = search.search(after)
    assert second.reused_visits == child_visits - 1 > 0  # the child's own evaluation is not an action visit
    # search() also finds a grandchild by itself (after our move and the reply): its subtree is kept.
    root = search.root
    assert root is not None
    reply = int(np.argmax(root.n))
    reply_node = root.children[reply]
    assert reply_node is not None and reply_node.expanded
    ours = int(np.argmax(reply_node.n))
    grandchild_node = reply_node.children[ours]
    assert grandchild_node is not None and grandchild_node.expanded
    grandchild = after.play(root.moves[reply]).play(reply_node.moves[ours])
    third = search.search(grandchild)
    assert search.root is grandchild_node
    assert third.reused_visits == grandchild_node.visits - 1 - 400 > 0
    # Without reuse, every search starts afresh.
    fresh = PUCT(GAME, uniform(), simulations=400, reuse=False)
    fresh.search(start)
    fresh.advance(first.move)
    assert fresh.search(after).reused_visits == 0


def test_dirichlet_noise_changes_the_root_priors_only() -> None:
    state = GAME.initial_state()
    quiet = PUCT(GAME, uniform(), simulations=50)
    quiet.search(state)
    assert quiet.root is not None
    np.testing.assert_allclose(quiet.root.prior, np.full(9, 1 / 9))
    noisy = PUCT(GAME, uniform(), simulations=50, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, seed=5)
    noisy.search(state)
    assert noisy.root is not None
    prior = noisy.root.prior
    assert prior.sum() == pytest.approx(1.0) and not np.allclose(prior, 1 / 9)
    assert prior.min() >= 0.75 / 9 - 1e-12  # at least (1 - ε) of the clean prior
    np.testing.assert_allclose(noisy.root.clean_prior, np.full(9, 1 / 9))
    for child in noisy.root.children:
        if child is not None and child.expanded:
            np.testing.assert_allclose(child.prior, np.full(len(child.moves), 1 / len(child.moves)))
    again = PUCT(GAME, uniform(), simulations=50, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, seed=5)
    again.search(state)
    assert again.root is not None
    np.testing.assert_array_equal(again.root.prior, prior)


def test_first_play_urgency() -> None:
    # With a pessimistic FPU, a visited move of value 0 is preferred to any unvisited one.
    state = GAME.initial_state()
    search = PUCT(GAME, uniform(), simulations=30, fpu=-1.0, c_puct=0.1)
    result = search.search(state)
    assert sum(1 for s in result.stats if s.visits > 0) < 9
    optimistic = PUCT(GAME, uniform(), simulations=30, fpu=1.0).search(state)
    assert all(s.visits > 0 for s in optimistic.stats)


def test_finished_root_and_bad_options() -> None:
    over = TicTacToeState.from_string("XXX OO. ...")
    result = PUCT(GAME, uniform()).search(over)
    assert result.move is None and result.iterations == 0 and result.value == -1.0  # O to move has lost
    for bad in ({"simulations": 0}, {"batch_size": 0}, {"dirichlet_epsilon": 2.0}, {"fpu": 3.0}, {"c_puct": -1.0}):
        with pytest.raises(ValueError):
            PUCTConfig(**bad)


def test_hexapawn_win_in_one_and_value() -> None:
    game = Hexapawn()
    state = HexapawnState.from_string("pp. / .P. / P..", current_player=0)  # b2xa3 promotes; a1a2 does not
    result = puct_search(game, state, UniformEvaluator(game), simulations=50)
    assert result.move.uci() == "b2a3" and result.value > 0.5


def test_go_smoke_with_numba_playouts() -> None:
    game = GoGame(size=5, komi=0.5)
    evaluator = RolloutEvaluator(game, playout="light", seed=3)
    result = PUCT(game, evaluator, simulations=64, batch_size=8).search(game.initial_state())
    assert result.move in game.initial_state().legal_moves()
    assert result.pi().sum() == pytest.approx(1.0) and result.iterations == 64


def test_network_and_mixed_evaluators_drive_the_search() -> None:
    import torch

    from fuseki.nets import build_network
    from fuseki.search.evaluators import MixedEvaluator, NetworkEvaluator

    torch.manual_seed(0)
    net = build_network("residual-dual", in_planes=2, size=3, num_moves=9, blocks=1, channels=8)
    network = NetworkEvaluator(GAME, net, device="cpu")
    mixed = MixedEvaluator(network, rollouts(0), lam=0.5)
    for evaluator in (network, mixed):
        for board, square in WINS[:3]:
            result = PUCT(GAME, evaluator, simulations=150, batch_size=8).search(TicTacToeState.from_string(board))
            assert result.move == square  # exact terminal values beat any random-weight opinion
    assert network.batcher.passes < network.batcher.positions  # leaves went through the net in batches


def test_an_evaluator_without_prior_mass_on_legal_moves_is_an_error() -> None:
    class Broken:
        game = GAME

        def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
            return np.zeros((len(states), 9), dtype=np.float32), np.zeros(len(states), dtype=np.float32)

    with pytest.raises(ValueError, match="no prior mass"):
        PUCT(GAME, Broken(), simulations=10).search(GAME.initial_state())


def test_step_api_gives_the_same_search_as_search() -> None:
    """start / pending_leaves / feed / result, driven from outside, is search() (noise, batches and reuse included)."""
    evaluator = RolloutEvaluator(GAME, rollouts=2, seed=3)
    twin = RolloutEvaluator(GAME, rollouts=2, seed=3)
    options = dict(simulations=60, batch_size=4, dirichlet_epsilon=0.25, dirichlet_alpha=0.5, seed=9)
    inside = PUCT(GAME, evaluator, **options)
    outside = PUCT(GAME, UniformEvaluator(GAME), **options)
    state = GAME.initial_state()
    for _ in range(4):
        expected = inside.search(state)
        outside.start(state)
        calls = 0
        while not outside.finished:
            leaves = outside.pending_leaves()
            if leaves:
                outside.feed(*twin.evaluate(leaves))
                calls += 1
        got = outside.result()
        assert calls > 1
        assert np.array_equal(got.visit_counts, expected.visit_counts)
        assert got.move == expected.move and got.value == pytest.approx(expected.value)
        state = state.play(expected.move)
        inside.advance(expected.move)
        outside.advance(expected.move)


def test_step_api_refuses_out_of_order_calls() -> None:
    search = PUCT(GAME, UniformEvaluator(GAME), simulations=5)
    with pytest.raises(RuntimeError, match="start"):
        search.pending_leaves()
    search.start(GAME.initial_state())
    leaves = search.pending_leaves()
    assert len(leaves) == 1  # the root first
    with pytest.raises(RuntimeError, match="feed"):
        search.pending_leaves()
    with pytest.raises(RuntimeError, match="not run"):
        search.result()
    search.feed(*UniformEvaluator(GAME).evaluate(leaves))
    finished = TicTacToeState.from_string("XXX OO. ...")
    search.start(finished)
    assert search.finished and search.pending_leaves() == [] and search.result().move is None


def test_a_new_search_takes_back_the_virtual_loss_of_an_abandoned_one() -> None:
    search = PUCT(GAME, UniformEvaluator(GAME), simulations=30, batch_size=4)
    state = GAME.initial_state()
    search.start(state)
    search.feed(*UniformEvaluator(GAME).evaluate(search.pending_leaves()))  # the root
    search.feed(*UniformEvaluator(GAME).evaluate(search.pending_leaves()))  # one batch
    assert search.pending_leaves()  # walked under virtual loss, never fed
    search.start(state)  # the same root, reused
    root = search.root
    assert root is not None and root.n.sum() == 4 and root.visits == 5  # real visits only
    assert not any(c.pending for c in root.children if c is not None)
    assert search.search(state).iterations == 30
