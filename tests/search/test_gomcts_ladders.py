"""Ladder-aware priors in the Go MCTS (Michi's fix_atari with ladder reading)."""

from __future__ import annotations

from fuseki.go import Color, GameState
from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

# Black to move; the white stone at C7 (row 2, col 2) has two liberties and
# a ladder from below (Black at C6, row 3 col 2) drives it into the top edge.
LADDER = """
. . . . . . . . .
. . X . . . . . .
. X O . . . . . .
. . . X . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""

# The same after Black's atari from below: White to move, in atari at C7;
# extending to D7 gives two liberties and runs into the ladder.
ESCAPE = """
. . . . . . . . .
. . X . . . . . .
. X O . . . . . .
. . X X . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def _prior_of(config: MCTSConfig, state: GameState, point: tuple[int, int]) -> float:
    info = GoMCTS(config).search(state, playouts=1)
    move = point[0] * state.size + point[1]
    child = next(c for c in info.children if c.move == move)
    return child.prior


def test_ladder_capture_gets_the_capture_prior() -> None:
    state = GameState.from_ascii(LADDER, to_move=Color.BLACK)
    with_ladders = _prior_of(MCTSConfig(seed=1), state, (3, 2))
    without = _prior_of(MCTSConfig(seed=1, ladders=False), state, (3, 2))
    assert with_ladders > without
    # A move that ataris nothing gets no ladder bonus.
    assert _prior_of(MCTSConfig(seed=1), state, (6, 6)) == _prior_of(MCTSConfig(seed=1, ladders=False), state, (6, 6))


def test_the_ladder_reader_agrees() -> None:
    from fuseki.go import Move, Point
    from fuseki.go.ladder import ladder_captured

    state = GameState.from_ascii(LADDER, to_move=Color.BLACK)
    assert ladder_captured(state._buf, 2 * 9 + 2)
    after = state.play(Move.play(Point(3, 2)))
    assert after.liberties((2, 2)) == 1 and ladder_captured(after._buf, 2 * 9 + 2)


def test_escape_into_a_ladder_loses_its_bonus() -> None:
    state = GameState.from_ascii(ESCAPE, to_move=Color.WHITE)
    assert state.liberties((2, 2)) == 1
    with_ladders = _prior_of(MCTSConfig(seed=1), state, (2, 3))
    without = _prior_of(MCTSConfig(seed=1, ladders=False), state, (2, 3))
    assert with_ladders < without
