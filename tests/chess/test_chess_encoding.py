"""AlphaZero's chess encoding against python-chess: every legal move to a unique index and back, and the 119 planes.

The vectorised encoding (``fuseki.games.chess_encoding``) is checked against
a reference written here from the chapter's tables one move and one square at
a time, and against python-chess's own repetition count (its full move
stack), on positions from seeded random games and from Stockfish games. The
default run checks a few thousand positions; ``-m slow`` checks at least
100,000 (the issue's figure).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import chess
import chess.engine
import numpy as np
import pytest

from fuseki.games.chess import ChessGame, ChessState
from fuseki.games.chess_encoding import NUM_ACTIONS, NUM_PLANES, decode_actions, encode_moves

GAME = ChessGame()

# ---- the reference: the chapter's tables, one move and one square at a time ---------------

DIRECTIONS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]  # up, up-right, right, ...
KNIGHT = [(2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1)]  # table 3-2
UNDER = {chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2}  # table 3-3: per kind (ahead, left, right) knight, bishop, rook


def rel(square: int, turn: chess.Color) -> tuple[int, int]:
    """(rank, file) seen from the player ``turn``: the board flipped for Black."""
    rank, file = chess.square_rank(square), chess.square_file(square)
    return (rank if turn else 7 - rank), file


def reference_index(move: chess.Move, turn: chess.Color) -> int:
    (r0, f0), (r1, f1) = rel(move.from_square, turn), rel(move.to_square, turn)
    dr, df = r1 - r0, f1 - f0
    if move.promotion in UNDER:
        kind = {0: 0, -1: 1, 1: 2}[df]
        plane = 64 + 3 * kind + UNDER[move.promotion]
    elif (dr, df) in KNIGHT:
        plane = 56 + KNIGHT.index((dr, df))
    else:
        distance = max(abs(dr), abs(df))
        plane = 7 * DIRECTIONS.index((dr // distance, df // distance)) + distance - 1
    return plane * 64 + r0 * 8 + f0


PIECES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING]


def reference_planes(board: chess.Board, start: int) -> np.ndarray:
    """The 119 planes from a board with its full move stack (``start``: moves of the stack before the game began)."""
    out = np.zeros((NUM_PLANES, 8, 8), dtype=np.float32)
    me = board.turn
    b = board.copy()
    for t in range(8):
        for square, piece in b.piece_map().items():
            r, f = rel(square, me)
            out[14 * t + PIECES.index(piece.piece_type) + (0 if piece.color == me else 6), r, f] = 1
        if b.is_repetition(2):
            out[14 * t + 12] = 1
        if b.is_repetition(3):
            out[14 * t + 13] = 1
        if len(b.move_stack) <= start:
            break
        b.pop()
    out[112] = 1 if me == chess.WHITE else 0
    for plane, value in ((113, board.fullmove_number), (118, board.halfmove_clock)):
        for i in range(64):
            out[plane, i // 8, i % 8] = (value >> i) & 1
    out[114] = board.has_kingside_castling_rights(me)
    out[115] = board.has_queenside_castling_rights(me)
    out[116] = board.has_kingside_castling_rights(not me)
    out[117] = board.has_queenside_castling_rights(not me)
    return out


# ---- positions ------------------------------------------------------------------------


def random_games(seed: int, games: int, max_plies: int = 300) -> Iterator[tuple[ChessState, chess.Board]]:
    """Every position of seeded random games: our state (history links) and python-chess's board (full stack)."""
    rng = random.Random(seed)
    for _ in range(games):
        state, board = GAME.initial_state(), chess.Board()
        for _ply in range(max_plies):
            yield state, board
            moves = state.legal_moves()
            if not moves:
                break
            # prefer promotions a little, so every under-promotion turns up
            promos = [m for m in moves if m.promotion]
            move = rng.choice(promos) if promos and rng.random() < 0.5 else rng.choice(moves)
            state = state.play(move)
            board = board.copy()
            board.push(move)


def stockfish_games(path: str, seed: int, games: int, max_plies: int = 240) -> Iterator[tuple[ChessState, chess.Board]]:
    """Positions of Stockfish games at depth 1, each from a different random 4-ply opening."""
    rng = random.Random(seed)
    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        for _ in range(games):
            state, board = GAME.initial_state(), chess.Board()
            for ply in range(max_plies):
                yield state, board
                moves = state.legal_moves()
                if not moves:
                    break
                move = rng.choice(moves) if ply < 4 else engine.play(board, chess.engine.Limit(depth=1)).move
                assert move is not None
                state = state.play(move)
                board = board.copy()
                board.push(move)
    finally:
        engine.quit()


#: Positions that must be among those checked: every castling, en passant and under-promotion, both colours.
CRAFTED = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 2",
    "1n1n4/2P2k2/8/8/8/8/5K2/8 w - - 0 1",
    "8/5k2/8/8/8/8/2p2K2/1N1N4 b - - 0 1",
]


def check_position(state: ChessState, board: chess.Board, seen: Counter[str], planes: bool, all_indices: bool) -> None:
    assert state.fen() == board.fen()
    turn = board.turn
    moves = state.legal_moves()
    actions = GAME.legal_actions(state)
    assert actions.dtype == np.int64 and len(actions) == len(moves)
    assert len(set(actions.tolist())) == len(moves), "two legal moves share an index"
    assert actions.tolist() == [reference_index(m, turn) for m in moves]
    assert decode_actions(actions, board) == moves
    mask = GAME.legal_mask(state)
    assert mask.sum() == len(moves) and mask[actions].all()
    for m in moves:
        colour = "white" if turn else "black"
        if board.is_castling(m):
            seen[f"{colour} castles {'king' if board.is_kingside_castling(m) else 'queen'} side"] += 1
        if board.is_en_passant(m):
            seen[f"{colour} en passant"] += 1
        if m.promotion and m.promotion != chess.QUEEN:
            df = chess.square_file(m.to_square) - chess.square_file(m.from_square)
            seen[f"{colour} under-promotion {chess.piece_name(m.promotion)} {df:+d}"] += 1
        if m.promotion == chess.QUEEN:
            seen[f"{colour} queen promotion"] += 1
    if all_indices:  # index -> move over the whole policy: a decodable index is legal exactly when the mask says so
        legal = set(moves)
        for i, move in enumerate(decode_indices_or_none(board)):
            assert (move in legal) == bool(mask[i]), (i, move)
    if planes:
        start = len(board.move_stack) - len(state.ancestors(10**6)) + 1
        np.testing.assert_array_equal(GAME.planes(state), reference_planes(board, start))


def decode_indices_or_none(board: chess.Board) -> list[chess.Move | None]:
    out: list[chess.Move | None] = []
    for i in range(NUM_ACTIONS):
        try:
            out.append(decode_actions([i], board)[0])
        except ValueError:
            out.append(None)
    return out


def run_checks(positions: Iterator[tuple[ChessState, chess.Board]], limit: int, seen: Counter[str]) -> int:
    count = 0
    for state, board in positions:
        check_position(state, board, seen, planes=count % 5 == 0, all_indices=count % 997 == 0)
        count += 1
        if count >= limit:
            break
    return count


def expected_kinds() -> set[str]:
    kinds = set()
    for colour in ("white", "black"):
        kinds |= {f"{colour} castles king side", f"{colour} castles queen side", f"{colour} en passant", f"{colour} queen promotion"}
        kinds |= {f"{colour} under-promotion {p} {df:+d}" for p in ("knight", "bishop", "rook") for df in (-1, 0, 1)}
    return kinds


def crafted_positions() -> Iterator[tuple[ChessState, chess.Board]]:
    for fen in CRAFTED:
        yield ChessState.from_fen(fen), chess.Board(fen)


# ---- tests ----------------------------------------------------------------------------


def test_the_sizes_are_the_chapters() -> None:
    assert GAME.planes_shape == (119, 8, 8) and NUM_PLANES == 8 * (12 + 2) + 1 + 1 + 4 + 1
    assert GAME.num_actions == NUM_ACTIONS == 8 * 8 * 73 == 3584 + 512 + 576
    assert len(GAME.symmetries) == 1


def test_crafted_positions_cover_every_special_move() -> None:
    seen: Counter[str] = Counter()
    run_checks(crafted_positions(), 100, seen)
    assert expected_kinds() <= set(seen), sorted(expected_kinds() - set(seen))


def test_random_and_stockfish_games_sample(stockfish: str) -> None:
    """The default sample: 2,000 positions of random games, 600 of Stockfish games, the crafted ones."""
    seen: Counter[str] = Counter()
    n = run_checks(random_games(seed=1, games=10**6), 2000, seen)
    n += run_checks(stockfish_games(stockfish, seed=1, games=10**6), 600, seen)
    n += run_checks(crafted_positions(), 100, seen)
    assert n == 2600 + len(CRAFTED)
    assert expected_kinds() <= set(seen), sorted(expected_kinds() - set(seen))


@pytest.mark.slow
def test_one_hundred_thousand_positions(stockfish: str) -> None:
    """The issue's figure: 100,000 positions, 70,000 from random games and 30,000 from Stockfish games."""
    seen: Counter[str] = Counter()
    n = run_checks(random_games(seed=2, games=10**6), 70_000, seen)
    n += run_checks(stockfish_games(stockfish, seed=2, games=10**6), 30_000, seen)
    assert n == 100_000
    assert expected_kinds() <= set(seen), sorted(expected_kinds() - set(seen))


def test_black_moves_are_whites_seen_from_the_other_side() -> None:
    white = GAME.initial_state()
    black = white.play("e2e4")
    assert GAME.action_index(black, "e7e5") == GAME.action_index(white, "e2e4") == 1 * 64 + chess.E2
    assert GAME.action_index(black, "g8f6") == GAME.action_index(white, "g1f3")
    # castling: the king's two-square move to the right (king side) or left (queen side), for either colour
    both = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    w = encode_moves([chess.Move.from_uci("e1g1"), chess.Move.from_uci("e1c1")], chess.WHITE).tolist()
    b = encode_moves([chess.Move.from_uci("e8g8"), chess.Move.from_uci("e8c8")], chess.BLACK).tolist()
    assert w == b == [(2 * 7 + 1) * 64 + chess.E1, (6 * 7 + 1) * 64 + chess.E1]
    assert decode_actions(w, both) == [chess.Move.from_uci("e1g1"), chess.Move.from_uci("e1c1")]


def test_under_promotion_planes_follow_table_3_3() -> None:
    board = chess.Board("1n1n4/2P2k2/8/8/8/8/5K2/8 w - - 0 1")  # c7 may go ahead, take on b8 (left) or d8 (right)
    c7 = chess.C7
    expect = {
        "c7c8n": 64 + 0, "c7c8b": 65, "c7c8r": 66,  # ahead: knight, bishop, rook
        "c7b8n": 67, "c7b8b": 68, "c7b8r": 69,  # capture left
        "c7d8n": 70, "c7d8b": 71, "c7d8r": 72,  # capture right
    }  # fmt: skip
    for uci, plane in expect.items():
        assert GAME.action_index(ChessState(board), uci) == plane * 64 + c7, uci
    queen = GAME.action_index(ChessState(board), "c7c8q")
    assert queen == 0 * 64 + c7  # up one square: the queen-like plane
    assert GAME.index_to_move(ChessState(board), queen) == chess.Move.from_uci("c7c8q")
    # the same index for a rook on c7 is a plain rook move, not a promotion
    rook = ChessState.from_fen("8/2R2k2/8/8/8/8/5K2/8 w - - 0 1")
    assert GAME.index_to_move(rook, queen) == chess.Move.from_uci("c7c8")


def test_bad_indices_and_moves_raise_value_error() -> None:
    s = GAME.initial_state()
    for bad in (-1, NUM_ACTIONS, 0 * 64 + chess.A8):  # out of range; up from the last rank leaves the board
        with pytest.raises(ValueError):
            GAME.index_to_move(s, bad)
    with pytest.raises(ValueError):
        GAME.index_to_move(s, 64 * 64 + chess.A1)  # an under-promotion from the first rank
    for uci in ("a1h3", "e7e8k", "e2e3p"):
        with pytest.raises(ValueError):
            GAME.action_index(s, uci)


# ---- hand-checked planes ------------------------------------------------------------------


def planes_after(moves: list[str], fen: str = chess.STARTING_FEN) -> np.ndarray:
    state = ChessState.from_fen(fen)
    for m in moves:
        state = state.play(m)
    return GAME.planes(state)


def cells(plane: np.ndarray) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in zip(*np.nonzero(plane))]


def test_start_position_planes() -> None:
    p = planes_after([])
    assert cells(p[0]) == [(1, f) for f in range(8)]  # my pawns on my second rank
    assert cells(p[5]) == [(0, 4)] and cells(p[11]) == [(7, 4)]  # kings on e1 and e8
    assert cells(p[3]) == [(0, 0), (0, 7)] and cells(p[9]) == [(7, 0), (7, 7)]  # rooks
    assert not p[12:112].any()  # no repetition, no history before the start
    assert p[112].all()  # White to move
    assert cells(p[113]) == [(0, 0)]  # move 1: bit 0
    assert p[114:118].all()  # all four castlings
    assert not p[118].any()  # no-progress count 0


def test_after_e4_the_board_is_flipped_for_black_and_the_start_is_history() -> None:
    p = planes_after(["e2e4"])
    assert cells(p[0]) == [(1, f) for f in range(8)]  # Black's pawns on its second rank
    assert cells(p[6]) == [(4, 4)] + [(6, f) for f in range(8) if f != 4]  # White's: e4 is relative rank 4
    assert cells(p[5]) == [(0, 4)] and cells(p[11]) == [(7, 4)]
    assert cells(p[14 + 6]) == [(6, f) for f in range(8)]  # one step back: White's pawns unmoved, same frame
    assert not p[28:112].any()
    assert not p[112].any()  # Black to move
    assert cells(p[113]) == [(0, 0)]
    assert not p[118].any()  # a pawn move resets the count


SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def test_repetition_planes_and_counts() -> None:
    once = planes_after(SHUFFLE)
    assert once[12].all() and not once[13].any()  # the start seen a second time
    assert not once[14 * 4 + 12].any()  # four plies back: the start, its first time
    assert not once[14 + 12].any()
    assert cells(once[118]) == [(0, 2)]  # 4 half-moves: bit 2
    assert cells(once[113]) == [(0, 0), (0, 1)]  # move 3
    twice = planes_after(SHUFFLE * 2)
    assert twice[12].all() and twice[13].all()  # the third time
    assert twice[14 * 4 + 12].all() and not twice[14 * 4 + 13].any()  # four plies back: the second time
    assert twice[14 + 12].all() and not twice[14 + 13].any()  # one back (knight on f6, Black to move): seen once before
    assert cells(twice[118]) == [(0, 3)]  # 8 half-moves: bit 3
    np.testing.assert_array_equal(twice[:12], planes_after([])[:12])


def test_clock_planes_are_the_bits_of_the_counts() -> None:
    p = planes_after([], "4k3/8/8/8/8/8/8/4K2R w K - 37 300")
    assert cells(p[118]) == [(0, 0), (0, 2), (0, 5)]  # 37 = 100101b
    assert cells(p[113]) == [(0, 2), (0, 3), (0, 5), (1, 0)]  # 300 = 100101100b
    assert p[114].all() and not p[115:118].any()  # only White's king side


def test_castling_planes_are_the_movers_first() -> None:
    p = planes_after([], "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1")
    assert not p[114].any() and p[115].all()  # Black (to move): no king side, queen side
    assert p[116].all() and not p[117].any()  # White: king side only


def test_en_passant_is_seen_in_the_history() -> None:
    p = planes_after(["e2e4"], "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1")
    # Black to move may take e3 en passant: the pawn stood on e2 one step back and on e4 now
    assert (4, 4) in cells(p[6]) and (6, 4) in cells(p[14 + 6])
