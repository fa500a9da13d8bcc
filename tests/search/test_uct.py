"""Generic UCT: finds wins, avoids losses, reports statistics, respects limits."""

from __future__ import annotations

import random

import pytest

from fuseki.games import Hexapawn, TicTacToeState
from fuseki.games.go import GoGame
from fuseki.go.state import GameState as GoEngineState
from fuseki.go.state import Move
from fuseki.search import minimax, rollout, uct_search

# (position, the only moves that keep the game-theoretic value)
KNOWN = [
    ("XX. OO. ...", {2}),  # X wins at once
    ("XX. OO. X..", {5}),  # O wins at once
    ("X.O XO. ...", {6}),  # X wins at 6 (column), everything else loses or draws
    ("X.. ... ...", {4}),  # O must take the centre after a corner opening
    ("XO. ... ...", None),  # checked against minimax below
]


@pytest.mark.parametrize("text, winning", KNOWN)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_does_not_lose_value_in_known_positions(text: str, winning: set[int] | None, seed: int) -> None:
    s = TicTacToeState.from_string(text)
    r = uct_search(s, iterations=3000, seed=seed)
    best = minimax(s).value
    assert -minimax(s.play(r.move)).value == best  # the chosen move keeps the exact value
    if winning is not None:
        assert r.move in winning


def test_uct_on_empty_board_draws_and_reports_stats() -> None:
    s = TicTacToeState.from_string("... ... ...")
    r = uct_search(s, iterations=2000, seed=3)
    assert minimax(s.play(r.move)).value == 0.0
    assert r.iterations == 2000
    assert sum(st.visits for st in r.stats) == 2000  # every iteration passes one root child
    assert {st.move for st in r.stats} == set(range(9))
    # Values are the root player's mean results: the first player wins most random continuations
    # (every value above 1/2, none certain), and the centre is worth the most.
    assert all(0.5 < st.value < 1.0 for st in r.stats)
    assert max(r.stats, key=lambda st: st.value).move == 4
    assert r.visits[r.move] == max(r.visits.values())
    assert r.root is not None and r.root.visits == 2000


def test_uct_is_reproducible_with_a_seed() -> None:
    s = TicTacToeState.from_string("X.. .O. ...")
    a = uct_search(s, iterations=500, seed=11)
    b = uct_search(s, iterations=500, seed=11)
    assert a.move == b.move and a.visits == b.visits


def test_uct_seconds_limit_and_bad_limits() -> None:
    r = uct_search(Hexapawn().initial_state(), seconds=0.05, seed=0)
    assert r.iterations > 10 and r.seconds < 1.0
    assert r.move in Hexapawn().initial_state().legal_moves()
    with pytest.raises(ValueError):
        uct_search(Hexapawn().initial_state())
    with pytest.raises(ValueError):
        uct_search(Hexapawn().initial_state(), iterations=0)


def test_uct_finished_root() -> None:
    r = uct_search(TicTacToeState.from_string("XXX OO. ..."), iterations=10)
    assert r.move is None and r.iterations == 0


def test_hexapawn_uct_avoids_losing_replies() -> None:
    # After White's a1a2 Black's capture b3a2 wins (exact search says so); UCT must find a winning reply.
    s = Hexapawn().initial_state().play("a1a2")
    r = uct_search(s, iterations=2000, seed=0)
    assert minimax(s.play(r.move)).value == -1.0  # White, to move after the reply, is lost


def test_rollout_cutoff_uses_the_evaluation() -> None:
    s = TicTacToeState.from_string("... ... ...")
    rng = random.Random(0)
    assert rollout(s, rng, max_length=0) == (0.5, 0.5)  # no evaluation: a draw
    assert rollout(s, rng, max_length=0, evaluate=lambda st, p: 1.0 if p == 0 else -1.0) == (1.0, 0.0)
    assert rollout(s, rng, max_length=0, evaluate=lambda st, p: 7.0) == (1.0, 0.0)  # clipped to [-1, 1]
    r0, r1 = rollout(s, rng)
    assert r0 + r1 == 1.0


# Black to move: the white column (B1..B5) and the black column (A1..A4) share their
# last liberty at A5. Black capturing there owns the board; otherwise White captures
# four stones and, with komi, wins.
SEMEAI = """
    . O X . .
    X O X . .
    X O X . .
    X O X . .
    X O X . .
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_finds_the_deciding_capture_on_5x5_go(seed: int) -> None:
    board = GoEngineState.from_ascii(SEMEAI, rules="chinese")
    assert board.liberties((0, 1)) == 1 and board.liberties((1, 0)) == 1
    s = GoGame.wrap(board)
    r = uct_search(s, iterations=400, seed=seed, max_rollout_length=200)
    assert r.move == Move.play((0, 0))
