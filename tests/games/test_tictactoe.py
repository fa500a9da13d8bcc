"""Tic-tac-toe rules: moves, wins, draws, bad input."""

from __future__ import annotations

import pytest

from fuseki.games import GameState, TicTacToe, TicTacToeState


def test_initial_state_follows_the_protocol() -> None:
    s = TicTacToe().initial_state()
    assert isinstance(s, GameState)
    assert s.current_player == 0
    assert s.legal_moves() == list(range(9))
    assert not s.is_over()
    assert s.winner() is None
    assert s.returns() == (0.0, 0.0)


def test_play_is_immutable_and_alternates() -> None:
    s = TicTacToe().initial_state()
    t = s.play(4)
    assert s.cells == (0,) * 9
    assert t.cells[4] == 1
    assert t.current_player == 1
    assert 4 not in t.legal_moves()
    assert t.play(0).cells[0] == 2


def test_row_win_for_x() -> None:
    s = TicTacToeState.from_string("XX. OO. ...").play(2)
    assert s.is_over()
    assert s.winner() == 0
    assert s.returns() == (1.0, -1.0)
    assert s.legal_moves() == []


def test_diagonal_win_for_o() -> None:
    s = TicTacToeState.from_string("OX. XO. X..")
    assert s.current_player == 1
    assert not s.is_over()
    s = s.play(8)
    assert s.winner() == 1
    assert s.returns() == (-1.0, 1.0)


def test_full_board_without_line_is_a_draw() -> None:
    s = TicTacToeState.from_string("XOX XOO OXX")
    assert s.is_over()
    assert s.winner() is None
    assert s.returns() == (0.0, 0.0)


def test_key_identifies_transpositions() -> None:
    a = TicTacToe().initial_state().play(0).play(4).play(8)
    b = TicTacToe().initial_state().play(8).play(4).play(0)
    assert a.key == b.key
    assert a == b and hash(a) == hash(b)
    assert a.key != a.play(1).key


def test_str_draws_the_board() -> None:
    s = TicTacToe().initial_state().play(4).play(0)
    assert str(s) == "O . .\n. X .\n. . ."
    assert TicTacToeState.from_string(repr(s).split("'")[1]) == s


@pytest.mark.parametrize("move", [-1, 9, "4", 4.0, None])
def test_bad_moves_raise_value_error(move: object) -> None:
    with pytest.raises(ValueError):
        TicTacToe().initial_state().play(move)  # type: ignore[arg-type]


def test_occupied_square_and_finished_game_raise() -> None:
    s = TicTacToe().initial_state().play(4)
    with pytest.raises(ValueError, match="already taken"):
        s.play(4)
    done = TicTacToeState.from_string("XXX OO. ...")
    with pytest.raises(ValueError, match="over"):
        done.play(8)


@pytest.mark.parametrize("text", ["XXX XXX ...", "XQ. ... ...", "XO"])
def test_impossible_boards_are_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        TicTacToeState.from_string(text)
