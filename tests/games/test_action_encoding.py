"""The action encoding of every game: index <-> move, masks, planes and symmetries."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from fuseki.games import Hexapawn, HexapawnMove, HexapawnState, TicTacToe, TicTacToeState, make_game
from fuseki.games.base import Game
from fuseki.games.chess import ChessGame, ChessState
from fuseki.games.go import GoGame
from fuseki.games.symmetry import Symmetry, board_symmetries, dihedral_permutations, inverse_permutations
from fuseki.go.state import Move

GAMES = {
    "tictactoe": TicTacToe(),
    "hexapawn": Hexapawn(),
    "go5": GoGame(size=5, komi=0.5),
    "go9": GoGame(size=9, history=2),
    "chess": ChessGame(),
}


def random_positions(game: Game, games: int, seed: int, max_moves: int = 200) -> list:
    """Every position of ``games`` random games (capped at ``max_moves`` moves each)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = game.initial_state()
        for _ in range(max_moves):
            out.append(state)
            if state.is_over():
                break
            moves = state.legal_moves()
            state = state.play(moves[rng.randrange(len(moves))])
    return out


@pytest.mark.parametrize("name", list(GAMES))
def test_protocol_attributes(name: str) -> None:
    game = GAMES[name]
    assert isinstance(game, Game)
    state = game.initial_state()
    planes = game.planes(state)
    assert planes.dtype == np.float32 and planes.shape == game.planes_shape
    assert game.legal_mask(state).shape == (game.num_actions,)
    assert game.symmetries[0].name == "identity"
    for sym in game.symmetries:
        assert sym.actions.shape == (game.num_actions,)
        assert sym.squares.shape == (game.planes_shape[1] * game.planes_shape[2],)


@pytest.mark.parametrize("name,games", [("tictactoe", 30), ("hexapawn", 30), ("go5", 4), ("go9", 1), ("chess", 3)])
def test_round_trip_and_masks_in_random_positions(name: str, games: int) -> None:
    game = GAMES[name]
    for state in random_positions(game, games, seed=7, max_moves=120):
        moves = state.legal_moves()
        actions = game.legal_actions(state)
        assert actions.dtype == np.int64 and len(actions) == len(moves)
        assert len(set(actions.tolist())) == len(moves), "two legal moves share an index"
        for move, index in zip(moves, actions.tolist()):
            assert game.action_index(state, move) == index
            assert 0 <= index < game.num_actions
            assert game.index_to_move(state, index) == move
        mask = game.legal_mask(state)
        assert mask.dtype == bool and mask.sum() == len(moves)
        assert mask[actions].all()


@pytest.mark.parametrize("name", ["tictactoe", "hexapawn", "go5"])
def test_every_index_outside_the_mask_is_no_legal_move(name: str) -> None:
    game = GAMES[name]
    for state in random_positions(game, 3, seed=3, max_moves=20):
        mask = game.legal_mask(state)
        legal = set(state.legal_moves())
        for index in np.flatnonzero(~mask).tolist():
            try:
                move = game.index_to_move(state, index)
            except ValueError:
                continue
            assert move not in legal


def test_chess_promotions_castling_and_en_passant_round_trip() -> None:
    game = ChessGame()
    fens = [
        "8/P1k5/8/8/8/8/5Kp1/7N w - - 0 1",  # White promotes on a8 (3 under-promotions)
        "8/P1k5/8/8/8/8/5Kp1/7N b - - 0 1",  # Black promotes on g1 or takes on h1 (6)
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # all four castlings
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # e5xd6 en passant
    ]
    seen_under = seen_castle = seen_ep = 0
    for fen in fens:
        state = ChessState.from_fen(fen)
        for move in state.legal_moves():
            index = game.action_index(state, move)
            assert game.index_to_move(state, index) == move
            seen_under += move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK)
            seen_castle += state.board.is_castling(move)
            seen_ep += state.board.is_en_passant(move)
    assert seen_under == 3 + 6 and seen_castle == 4 and seen_ep == 1


def test_chess_frame_is_the_movers() -> None:
    game = ChessGame()
    white = game.initial_state()
    black = white.play("e2e4")
    # Black's e7e5 is White's e2e4 seen from the other side: the same index and the same piece planes.
    assert game.action_index(black, "e7e5") == game.action_index(white, "e2e4") == 1 * 64 + chess.E2
    queen_promotion = ChessState.from_fen("8/P1k5/8/8/8/8/5K2/8 w - - 0 1")
    assert game.index_to_move(queen_promotion, game.action_index(queen_promotion, "a7a8q")).uci() == "a7a8q"
    start = game.planes(white)
    after = game.planes(ChessState.from_fen(chess.STARTING_FEN.replace(" w ", " b ")))
    np.testing.assert_array_equal(start[:12], after[:12])  # the start is the same seen from either side
    assert start[112].all() and not after[112].any()  # the colour plane
    with pytest.raises(ValueError):
        game.index_to_move(white, 4672)
    with pytest.raises(ValueError):
        game.index_to_move(white, 0 * 64 + chess.A8)  # north from the last rank leaves the board


# ---- symmetries --------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_permutations_compose_to_identity(name: str) -> None:
    game = GAMES[name]
    rng = np.random.default_rng(0)
    vector = rng.random(game.num_actions)
    planes = rng.random(game.planes_shape).astype(np.float32)
    for sym in game.symmetries:
        inv = sym.inverse()
        np.testing.assert_array_equal(inv.policy(sym.policy(vector)), vector)
        np.testing.assert_array_equal(sym.planes(inv.planes(planes)), planes)
        for a in (0, game.num_actions - 1):
            assert inv.action(sym.action(a)) == a


def test_dihedral_group_structure() -> None:
    syms = board_symmetries(4, extra_actions=1)
    x = np.arange(17)
    by_name = {s.name: s for s in syms}
    # rot90 four times, and every reflection twice, is the identity; pass (index 16) never moves.
    y = x
    for _ in range(4):
        y = by_name["rot90"].policy(y)
    np.testing.assert_array_equal(y, x)
    for name in ("rot180", "transpose", "rot90+transpose", "rot180+transpose", "rot270+transpose"):
        np.testing.assert_array_equal(by_name[name].policy(by_name[name].policy(x)), x)
    assert all(s.action(16) == 16 for s in syms)
    perms = dihedral_permutations(4)
    assert len({tuple(p) for p in perms.tolist()}) == 8
    np.testing.assert_array_equal(inverse_permutations(perms[1]), perms[3])


def test_symmetry_rejects_a_non_permutation() -> None:
    with pytest.raises(ValueError, match="not a permutation"):
        Symmetry("bad", np.array([0, 0, 1]), np.array([0, 1, 2]))


@pytest.mark.parametrize("name", ["tictactoe", "hexapawn", "go5"])
def test_symmetries_map_play_to_play(name: str) -> None:
    """Play random games and their images move by move: masks and planes must be the images too.

    The image game is played from the start (every start position here is
    symmetric), each move mapped by the symmetry, so captures, ko and the
    history planes of Go are covered.
    """
    game = GAMES[name]
    rng = random.Random(11)
    for sym in game.symmetries:
        for _ in range(3):
            state, image = game.initial_state(), game.initial_state()
            while not state.is_over():
                np.testing.assert_array_equal(game.legal_mask(image), sym.policy(game.legal_mask(state)))
                np.testing.assert_array_equal(game.planes(image), sym.planes(game.planes(state)))
                moves = state.legal_moves()
                move = moves[rng.randrange(len(moves))]
                mapped = game.index_to_move(image, sym.action(game.action_index(state, move)))
                assert mapped in image.legal_moves()
                state, image = state.play(move), image.play(mapped)
                if name.startswith("go") and state.go.move_number > 40:
                    break
            assert image.is_over() == state.is_over()


def test_tictactoe_hand_written_rotation() -> None:
    game = TicTacToe()
    rot90 = game.symmetries[1]
    s = TicTacToeState.from_string("XO. ... ...")  # X to move: X on 0, O on 1
    # np.rot90 turns the board a quarter anticlockwise: the top row becomes the left column.
    image = TicTacToeState.from_string("... O.. X..")
    np.testing.assert_array_equal(game.planes(image), rot90.planes(game.planes(s)))
    assert rot90.action(0) == 6 and rot90.action(1) == 3 and rot90.action(2) == 0


def test_hexapawn_hand_written_mirror_and_frame() -> None:
    game = Hexapawn()
    mirror = game.symmetries[1]
    s = HexapawnState.from_string("pp. / ..P / P..", current_player=1)  # Black to move
    image = HexapawnState.from_string(".pp / P.. / ..P", current_player=1)
    np.testing.assert_array_equal(game.planes(image), mirror.planes(game.planes(s)))
    # In Black's frame, Black's pawns are on relative rank 0 and White's c2 pawn on relative rank 1.
    own, other = game.planes(s)
    assert own[0].tolist() == [1.0, 1.0, 0.0] and other[1].tolist() == [0.0, 0.0, 1.0]
    capture = HexapawnMove.from_uci("b3c2")
    index = game.action_index(s, capture)
    assert index == 1 * 3 + 2  # relative square b1, towards file c
    assert game.index_to_move(image, mirror.action(index)) == HexapawnMove.from_uci("b3a2")


def test_go_hand_written_rotation_and_pass() -> None:
    game = GoGame(size=3, history=1)
    s = game.initial_state().play(Move.play((0, 1)))  # Black B3 (row 0, col 1); White to move
    rot90 = game.symmetries[1]
    planes = game.planes(s)
    assert planes.shape == (3, 3, 3)
    assert planes[1, 0, 1] == 1.0 and planes[0].sum() == 0.0  # the opponent's (Black's) stone; White to move
    assert not planes[2].any()  # Black is not to move
    rotated = rot90.planes(planes)
    assert rotated[1, 1, 0] == 1.0 and rotated[1].sum() == 1.0  # top middle -> middle left
    assert rot90.action(1) == 3 and rot90.action(9) == 9  # pass stays pass
    assert game.index_to_move(s, 9) == Move.pass_turn()
    with pytest.raises(ValueError):
        game.action_index(s, Move.resign())


def test_go_history_planes() -> None:
    game = GoGame(size=5, history=3)
    s = game.initial_state().play(Move.play((0, 0))).play(Move.play((4, 4)))  # Black to move again
    p = game.planes(s)
    assert p.shape == (7, 5, 5)
    assert p[0, 0, 0] == 1 and p[1, 4, 4] == 1  # now: own (Black) A, opponent (White) stone
    assert p[2, 0, 0] == 1 and p[3].sum() == 0  # one move ago: White's stone not yet there
    assert p[4].sum() == 0 and p[5].sum() == 0  # the empty start
    assert p[6].all()  # Black to move


def test_go_encoder_planes_plug_in() -> None:
    from fuseki.encoders import get_encoder

    game = make_game("go", size=5, encoder=get_encoder("zero", 5))
    assert game.planes_shape == (11, 5, 5)
    state = game.initial_state()
    np.testing.assert_array_equal(game.planes(state), get_encoder("zero", 5).encode(state.go).astype(np.float32))
    with pytest.raises(ValueError, match="board is 9x9"):
        GoGame(size=9, encoder=get_encoder("zero", 5))
