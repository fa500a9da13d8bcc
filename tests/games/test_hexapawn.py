"""Hexapawn rules (Klein ch. 5): steps, captures, promotion, no-move loss."""

from __future__ import annotations

import pytest

from fuseki.games import GameState, Hexapawn, HexapawnMove, HexapawnState


def names(state: HexapawnState) -> list[str]:
    return [str(m) for m in state.legal_moves()]


def test_start_position() -> None:
    s = Hexapawn().initial_state()
    assert isinstance(s, GameState)
    assert str(s) == "p p p\n. . .\nP P P"
    assert s.current_player == 0  # White moves first
    assert names(s) == ["a1a2", "b1b2", "c1c2"]
    assert not s.is_over() and s.winner() is None and s.returns() == (0.0, 0.0)


def test_pawns_step_forward_and_capture_diagonally() -> None:
    s = Hexapawn().initial_state().play("b1b2")
    assert s.current_player == 1
    # Black: a3 takes b2 or steps, b3 is blocked, c3 takes b2 or steps.
    assert names(s) == ["a3a2", "a3b2", "c3b2", "c3c2"]
    t = s.play(HexapawnMove.from_uci("a3b2"))
    assert str(t) == ". p p\n. p .\nP . P"
    assert names(t) == ["a1a2", "a1b2", "c1b2", "c1c2"]


def test_no_straight_capture() -> None:
    s = HexapawnState.from_string("p.. / P.. / ...", current_player=0)
    assert names(s) == []  # blocked, nothing to take: White loses
    assert s.is_over() and s.winner() == 1


def test_reaching_the_far_rank_wins() -> None:
    s = HexapawnState.from_string("... / P.p / ...", current_player=0)
    t = s.play("a2a3")
    assert t.is_over()
    assert t.winner() == 0
    assert t.returns() == (1.0, -1.0)
    assert t.legal_moves() == []
    b = HexapawnState.from_string("... / P.p / ...", current_player=1).play("c2c1")
    assert b.winner() == 1 and b.returns() == (-1.0, 1.0)


def test_capturing_the_last_pawn_wins() -> None:
    s = HexapawnState.from_string("... / .p. / P..", current_player=0)
    t = s.play("a1b2")
    assert t.is_over() and t.winner() == 0


def test_no_legal_move_loses() -> None:
    # Black to move, both black pawns blocked by white pawns: Black loses.
    s = HexapawnState.from_string("p.p / P.P / ...", current_player=1)
    assert s.legal_moves() == []
    assert s.is_over()
    assert s.winner() == 0


def test_key_and_equality() -> None:
    a = HexapawnState.from_string("ppp / ... / PPP")
    assert a == Hexapawn().initial_state()
    assert a.key != HexapawnState.from_string("ppp / ... / PPP", current_player=1).key


def test_move_notation_round_trips() -> None:
    m = HexapawnMove.from_uci("c1b2")
    assert m.uci() == "c1b2" and str(m) == "c1b2"
    assert (m.from_square, m.to_square) == (2, 4)


@pytest.mark.parametrize("move", ["a1a3", "b1c2", "b3b2", "a1b2", "zz", "d1d2"])
def test_illegal_moves_raise_value_error(move: str) -> None:
    with pytest.raises(ValueError):
        Hexapawn().initial_state().play(move)


def test_finished_game_rejects_moves() -> None:
    t = HexapawnState.from_string("... / P.p / ...").play("a2a3")
    with pytest.raises(ValueError, match="over"):
        t.play("c2c1")


@pytest.mark.parametrize("text", ["ppp / ... / PP", "ppx / ... / PPP"])
def test_bad_boards_are_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        HexapawnState.from_string(text)
