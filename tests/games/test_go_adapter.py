"""The Go adapter: the engine's GameState behind the generic protocol, and make_game."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fuseki.agents.search_agents import capture_diff
from fuseki.games import GameState, Hexapawn, TicTacToe, available_games, make_game
from fuseki.games.go import GoGame, GoGameState
from fuseki.go.state import Color, Move
from fuseki.go.state import GameState as GoEngineState
from fuseki.search import alphabeta, minimax, negamax


def test_players_moves_and_wrapped_state() -> None:
    s = GoGame(size=5, komi=0.5).initial_state()
    assert isinstance(s, GameState)
    assert s.current_player == 0 and s.go.next_player is Color.BLACK
    moves = s.legal_moves()
    assert len(moves) == 26 and moves[-1] == Move.pass_turn()
    assert not any(m.is_resign for m in moves)
    t = s.play(moves[0])
    assert t.current_player == 1
    assert isinstance(t.go, GoEngineState) and t.go.move_number == 1
    assert s.go.move_number == 0  # immutable


def test_two_passes_end_the_game_with_a_winner() -> None:
    s = GoGame(size=5, komi=0.5).initial_state()
    end = s.play(Move.pass_turn()).play(Move.pass_turn())
    assert end.is_over()
    assert end.legal_moves() == []
    assert end.winner() == 1  # empty board: White wins by komi
    assert end.returns() == (-1.0, 1.0)
    assert s.returns() == (0.0, 0.0)


def test_key_tells_apart_what_decides_the_future() -> None:
    s = GoGame(size=5).initial_state()
    one_pass = s.play(Move.pass_turn())
    assert s.key != one_pass.key  # same stones, other player
    a, b, p = Move.play((0, 0)), Move.play((4, 4)), Move.pass_turn()
    after_pass = s.play(a).play(b).play(p)  # White to move; a White pass would end the game
    no_pass = s.play(p).play(b).play(a)  # the same stones and player, but no pending pass
    assert after_pass.go.key == no_pass.go.key
    assert after_pass.key != no_pass.key


def test_illegal_move_raises_value_error() -> None:
    s = GoGame(size=5).initial_state().play(Move.play((2, 2)))
    with pytest.raises(ValueError, match="occupied"):
        s.play(Move.play((2, 2)))


def test_bad_game_options_fail_early() -> None:
    with pytest.raises(ValueError):
        GoGame(size=1)
    with pytest.raises(ValueError):
        GoGame(size=5, rules="no-such-rules")


def test_make_game_registry() -> None:
    assert {"tictactoe", "hexapawn", "go", "chess"} <= set(available_games())
    assert isinstance(make_game("tictactoe"), TicTacToe)
    assert isinstance(make_game("hexapawn"), Hexapawn)
    go = make_game("go", size=7, komi=6.5, rules="japanese")
    s = go.initial_state()
    assert isinstance(s, GoGameState) and s.go.size == 7 and s.go.rules.komi == 6.5
    with pytest.raises(ValueError, match="unknown game"):
        make_game("checkers")
    with pytest.raises(ValueError, match="cannot be built"):
        make_game("tictactoe", size=4)


def test_make_game_chess_is_lazy_and_works() -> None:
    s = make_game("chess").initial_state()
    assert s.current_player == 0 and len(s.legal_moves()) == 20
    # Lazy: a fresh process that imports fuseki.games has not imported the chess adapter (nor python-chess).
    probe = (
        "import sys, fuseki.games as g; before = 'fuseki.games.chess' in sys.modules or 'chess' in sys.modules; "
        "g.make_game('chess'); print(before, 'fuseki.games.chess' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "True"]


# ---- searches on tiny boards -------------------------------------------------


@pytest.mark.parametrize("size, depth", [(2, 3), (3, 2), (3, 3)])
def test_minimax_and_alphabeta_agree_on_tiny_boards(size: int, depth: int) -> None:
    s = GoGame(size=size, komi=0.5, rules="chinese").initial_state()
    mm = minimax(s, depth, capture_diff)
    nm = negamax(s, depth, capture_diff)
    ab = alphabeta(s, depth, capture_diff)
    abt = alphabeta(s, depth, capture_diff, tt=True)
    assert mm.value == nm.value == ab.value == abt.value
    assert mm.nodes == nm.nodes
    assert ab.nodes < mm.nodes
    assert s.play(ab.move).go.move_number == 1


def test_search_sees_the_end_of_the_game() -> None:
    # 3x3, White owns the board, Black has just passed: White's pass ends the game and wins.
    board = GoEngineState.from_ascii(
        """
        . O .
        O O O
        . O .
        """,
        rules="chinese",
    )
    s = GoGame.wrap(board).play(Move.pass_turn())
    assert s.current_player == 1
    r = alphabeta(s, 2, capture_diff, tt=True)
    assert r.move == Move.pass_turn()
    assert r.value == 1e9
    assert minimax(s, 2, capture_diff).value == 1e9
