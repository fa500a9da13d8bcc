"""The chess adapter behind the Game protocol: moves, mate, stalemate, draws, keys, errors."""

from __future__ import annotations

import chess
import pytest

from fuseki.games import make_game
from fuseki.games.base import Game, GameState
from fuseki.games.chess import ChessGame, ChessState, color_of, player_of

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
STALEMATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"  # Black to move, no legal move, not in check


def play_all(state: ChessState, moves: list[str]) -> ChessState:
    for uci in moves:
        state = state.play(uci)
    return state


def test_initial_state_follows_the_protocol() -> None:
    game = ChessGame()
    assert isinstance(game, Game)
    state = game.initial_state()
    assert isinstance(state, GameState)
    assert state.current_player == 0
    assert state.legal_moves() == list(chess.Board().legal_moves)  # python-chess order
    assert len(state.legal_moves()) == 20
    assert not state.is_over()
    assert state.winner() is None
    assert state.returns() == (0.0, 0.0)
    hash(state.key)


def test_make_game_builds_chess() -> None:
    state = make_game("chess").initial_state()
    assert isinstance(state, ChessState)
    assert state.fen() == chess.STARTING_FEN


def test_play_returns_a_new_state_and_leaves_the_old_one_alone() -> None:
    s0 = ChessGame().initial_state()
    s1 = s0.play(chess.Move.from_uci("e2e4"))
    assert s0.fen() == chess.STARTING_FEN
    assert s1.current_player == 1
    assert s1.board.piece_at(chess.E4) == chess.Piece(chess.PAWN, chess.WHITE)
    assert s0.play("e2e4").key == s1.key  # a UCI string works too


def test_checkmate_black_wins() -> None:
    state = play_all(ChessGame().initial_state(), FOOLS_MATE)
    assert state.is_over()
    assert state.winner() == 1
    assert state.returns() == (-1.0, 1.0)
    assert state.legal_moves() == []
    with pytest.raises(ValueError):
        state.play("e1f2")


def test_checkmate_white_wins() -> None:
    state = ChessState.from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4").play("h5f7")
    assert state.is_over() and state.winner() == 0 and state.returns() == (1.0, -1.0)


def test_stalemate_is_a_draw() -> None:
    state = ChessState.from_fen(STALEMATE_FEN)
    assert state.is_over()
    assert state.winner() is None
    assert state.returns() == (0.0, 0.0)
    assert state.legal_moves() == []


def test_insufficient_material_ends_the_game() -> None:
    state = ChessState.from_fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1")
    assert state.is_over() and state.winner() is None


def test_claimable_draws_do_not_end_the_game() -> None:
    # 50-move rule reached (100 half-moves) but only claimable: the game goes on.
    state = ChessState.from_fen("8/8/4k3/8/8/3K4/8/4R3 w - - 100 80")
    assert not state.is_over()
    # 75-move rule (150 half-moves) ends it.
    assert ChessState.from_fen("8/8/4k3/8/8/3K4/8/4R3 w - - 150 120").is_over()


def test_fivefold_repetition_is_found_through_the_history_links() -> None:
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 4
    with_stack = play_all(ChessGame(history=True).initial_state(), shuffle)
    without = play_all(ChessGame().initial_state(), shuffle)
    for state in (with_stack, without):
        assert state.is_over() and state.winner() is None
        assert state.outcome().termination == chess.Termination.FIVEFOLD_REPETITION
        assert state.repetitions() == 4
    assert len(without.board.move_stack) == 1 and len(with_stack.board.move_stack) == 16  # copy(stack=False) keeps the last push only
    assert without.key == ChessGame().initial_state().key
    # one shuffle short of five: the game goes on
    assert not play_all(ChessGame().initial_state(), shuffle[:-1]).is_over()


def test_claim_draws_end_the_game_at_threefold_and_fifty_moves() -> None:
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    plain = play_all(ChessGame().initial_state(), shuffle)
    claimed = play_all(ChessGame(claim_draws=True).initial_state(), shuffle)
    assert plain.repetitions() == claimed.repetitions() == 2
    assert not plain.is_over()
    assert claimed.is_over() and claimed.outcome().termination == chess.Termination.THREEFOLD_REPETITION
    assert not play_all(ChessGame(claim_draws=True).initial_state(), shuffle[:-1]).is_over()
    fifty = "8/8/4k3/8/8/3K4/8/4R3 w - - 100 80"
    assert not ChessState.from_fen(fifty).is_over()
    assert ChessState.from_fen(fifty, claim_draws=True).outcome().termination == chess.Termination.FIFTY_MOVES
    # mate on the hundredth half-move is still mate
    mate = ChessState.from_fen("k7/8/1K6/8/8/8/8/7R w - - 99 80", claim_draws=True).play("h1h8")
    assert mate.winner() == 0


@pytest.mark.parametrize("move", ["e2e5", "e1g1", "a7a6"])
def test_illegal_moves_raise_value_error(move: str) -> None:
    state = ChessGame().initial_state()
    with pytest.raises(ValueError, match="illegal"):
        state.play(move)
    with pytest.raises(chess.IllegalMoveError):
        state.play(chess.Move.from_uci(move))


def test_malformed_input_raises_value_error() -> None:
    with pytest.raises(ValueError):
        ChessGame().initial_state().play("nonsense")
    with pytest.raises(ValueError):
        ChessState.from_fen("not a fen")
    with pytest.raises(ValueError):
        ChessGame("not a fen")


def test_key_ignores_clocks_and_counts_en_passant_only_when_legal() -> None:
    a = ChessState.from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    b = ChessState.from_fen("4k3/8/8/8/8/8/8/4K3 w - - 7 30")
    assert a.key == b.key and a == b
    assert a.key != ChessState.from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 1").key
    # e2e4 with no black pawn able to capture: the e3 square is not part of the key.
    no_ep = ChessState.from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").play("e2e4")
    assert no_ep.key == ChessState.from_fen("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1").key
    # With a black pawn on d4 the capture is legal, so the key differs.
    ep = ChessState.from_fen("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1").play("e2e4")
    assert ep.key != ChessState.from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").key


def test_player_colour_mapping() -> None:
    assert player_of(chess.WHITE) == 0 and player_of(chess.BLACK) == 1
    assert color_of(0) == chess.WHITE and color_of(1) == chess.BLACK
    with pytest.raises(ValueError):
        color_of(2)
