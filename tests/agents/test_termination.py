"""Pass-when-ahead and resignation around any agent (spec row B5)."""

from __future__ import annotations

import pytest

from fuseki.agents import make_agent
from fuseki.agents.termination import Terminating
from fuseki.go.coords import Point
from fuseki.go.rules import Rules
from fuseki.go.state import Color, GameState, Move

# Black owns the board; White's three stones inside are dead.
BLACK_WINS = """
    . . . . . . . . .
    . . . . . . . . .
    . . X X X X X . .
    . . X . . . X . .
    . . X . O O X . .
    . . X . O . X . .
    . . X X X X X . .
    . . . . . . . . .
    . . . . . . . . .
"""

RULES = Rules.preset("chinese").replace(komi=7.5)


class Fixed:
    """Plays one fixed move and counts how often it was asked."""

    name = "fixed"

    def __init__(self, move: Move) -> None:
        self.move = move
        self.calls = 0

    def select_move(self, state: GameState) -> Move:
        self.calls += 1
        return self.move


def after_pass(to_move_after: Color) -> GameState:
    """BLACK_WINS with the other side having just passed, ``to_move_after`` to play."""
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=to_move_after.other)
    return s.play(Move.pass_turn())


def test_passes_back_in_a_won_position() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=None, playouts=100, seed=0)
    assert bot.select_move(after_pass(Color.BLACK)).is_pass
    assert inner.calls == 0


def test_does_not_pass_in_a_lost_position() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=None, playouts=100, seed=0)
    move = bot.select_move(after_pass(Color.WHITE))
    assert move == Move.play(Point(0, 0))
    assert inner.calls == 1


def test_does_not_pass_when_the_opponent_played() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=None, seed=0)
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=Color.WHITE).play(Point(8, 8))
    assert bot.select_move(s) == Move.play(Point(0, 0))


def test_pass_back_can_be_switched_off() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=None, pass_when_ahead=False, seed=0)
    assert not bot.select_move(after_pass(Color.BLACK)).is_pass


def test_resigns_in_a_hopeless_position() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=0.1, min_moves=0, playouts=100, seed=0)
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=Color.WHITE)
    assert bot.select_move(s).is_resign
    assert bot.last_winrate is not None and bot.last_winrate < 0.1


def test_does_not_resign_before_min_moves() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=0.1, playouts=50, seed=0)  # min_moves defaults to 40 on 9x9
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=Color.WHITE)
    assert bot.select_move(s) == Move.play(Point(0, 0))


def test_never_resigns_with_none() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=None, min_moves=0, seed=0)
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=Color.WHITE)
    assert bot.select_move(s) == Move.play(Point(0, 0))


def test_winning_side_does_not_resign() -> None:
    inner = Fixed(Move.play(Point(0, 0)))
    bot = Terminating(inner, resign_below=0.1, min_moves=0, seed=0)
    s = GameState.from_ascii(BLACK_WINS, rules=RULES, to_move=Color.BLACK)
    assert bot.select_move(s) == Move.play(Point(0, 0))
    assert bot.last_winrate is not None and bot.last_winrate > 0.9


def test_wraps_a_registered_agent_through_a_whole_game() -> None:
    bot = Terminating(make_agent("random", seed=3), resign_below=None, playouts=20, seed=0)
    other = make_agent("random", seed=4)
    s = GameState.new(5, rules=RULES)
    for _ in range(300):
        if s.is_over():
            break
        s = s.play((bot if s.next_player is Color.BLACK else other).select_move(s))
    assert s.is_over()
    assert bot.name == "random"


def test_bad_options() -> None:
    with pytest.raises(ValueError):
        Terminating(Fixed(Move.pass_turn()), resign_below=1.5)
    with pytest.raises(ValueError):
        Terminating(Fixed(Move.pass_turn()), playouts=0)


def early_pass() -> GameState:
    """9x9, Black E5, White C3, Black passes: White wins by komi if it passes back, on a board nobody has played out."""
    s = GameState.new(9, RULES)
    for v in ("E5", "C3", "pass"):
        s = s.play(Move.from_gtp(v, 9))
    return s


def test_settled_only_passes_back_on_a_settled_board() -> None:
    bot = Terminating(Fixed(Move.play(Point(0, 0))), resign_below=None, playouts=100, seed=0, settled_only=True)
    assert bot.select_move(after_pass(Color.BLACK)).is_pass


def test_settled_only_plays_on_after_an_early_pass() -> None:
    plain = Terminating(Fixed(Move.play(Point(0, 0))), resign_below=None, playouts=100, seed=0)
    assert plain.select_move(early_pass()).is_pass  # ahead by komi: the plain rule passes
    bot = Terminating(Fixed(Move.play(Point(0, 0))), resign_below=None, playouts=100, seed=0, settled_only=True)
    assert bot.select_move(early_pass()) == Move.play(Point(0, 0))


class Searcher(Fixed):
    """A self-terminating agent (as MCTS is) that passes, with a second choice to offer."""

    self_terminating = True

    def best_non_pass(self, state: GameState) -> Move:
        return Move.play(Point(0, 0))


def test_settled_only_overrules_a_searching_agent_that_passes() -> None:
    bot = Terminating(Searcher(Move.pass_turn()), resign_below=None, playouts=100, seed=0, settled_only=True)
    assert bot.select_move(early_pass()) == Move.play(Point(0, 0))
    assert bot.select_move(after_pass(Color.BLACK)).is_pass  # settled: its pass stands


def test_mcts_offers_its_best_move_other_than_a_pass() -> None:
    state = early_pass()
    mcts = make_agent("mcts", playouts=300, seed=1)
    mcts.select_move(state)
    move = mcts.best_non_pass(state)
    assert move.is_play and state.is_legal(move)
    assert mcts.last_info.children[0].move != 81 and mcts.last_info.children[0].visits > 0
