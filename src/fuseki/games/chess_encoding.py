"""AlphaZero's chess encoding: 119 input planes and 8 × 8 × 73 = 4,672 moves, vectorised.

The source is the AlphaZero chapter (``shared/seeds/001``, 3.6.4.1-3.6.4.2)
and the paper it cites (Silver et al. 2018, table S1); docs/chess-zero.md
puts the two side by side. Everything is in the frame of the **player to
move**: for Black the board is flipped (rank ``r`` becomes ``7 - r``, files
stay), so one network plays both colours and Black's ``e7e5`` has the index of
White's ``e2e4``. Cell ``(row, col)`` of a plane is relative rank ``row``
(0: the mover's back rank) and file ``col`` (0: the a-file); square ``s`` in
python-chess numbering is cell ``(s // 8, s % 8)`` for White and
``s ^ 56`` for Black.

**Input, 119 planes of 8 × 8** (:func:`encode_planes`), in this order:

- for each of 8 history steps ``t = 0 .. 7`` (0 the position itself, 1 the
  one before, ...; all zero before the game's first position), 14 planes at
  ``14 * t``: the mover's pawns, knights, bishops, rooks, queens, king
  (``+0 .. +5``), the opponent's (``+6 .. +11``), every step in the frame of
  the player to move *now*; then two repetition planes: all ones when that
  step's position occurred at least once before in the game (``+12``), at
  least twice (``+13``);
- 112: colour, all ones when White is to move;
- 113: the total move count (the FEN's full-move number) as the bits of a
  64-bit integer, cell ``i`` (row ``i // 8``, column ``i % 8``) holding bit
  ``i``: the chapter's encoding;
- 114-117: castling rights, all ones when held: the mover's king side, its
  queen side, the opponent's king side, its queen side;
- 118: the no-progress count (the half-move clock of the 50-move rule), bits
  as plane 113.

**Moves, 73 planes of 64 source squares** (:data:`NUM_ACTIONS`): index
``plane * 64 + source`` with ``source`` the relative square the piece leaves:

- planes 0-55, queen-like moves: direction ``d`` in the chapter's order
  (0 up, 1 up-right, 2 right, 3 down-right, 4 down, 5 down-left, 6 left,
  7 up-left; up is toward the mover's last rank) and distance ``k`` 1..7 give
  plane ``7 * d + k - 1``. King, queen, rook, bishop and pawn moves, castling
  (the king's two-square move) and promotion to a queen are here;
- planes 56-63, knight moves, in the order of :data:`KNIGHT_STEPS` (table
  3-2: two up one right, two right one up, two right one down, ...);
- planes 64-72, under-promotions (table 3-3): ``64 + 3 * kind + piece`` with
  kind 0 straight ahead, 1 capture to the left (toward the a-file), 2 capture
  to the right, and piece 0 knight, 1 bishop, 2 rook.

Speed: the move tables are numpy arrays built once (a move's index is one
gather), and the piece planes of all history steps come out of one
``np.unpackbits`` over the positions' bitboards (a flip for Black is a byte
swap of each bitboard).
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

__all__ = [
    "HISTORY",
    "KNIGHT_STEPS",
    "NUM_ACTIONS",
    "NUM_PLANES",
    "PLANES_PER_STEP",
    "QUEEN_DIRECTIONS",
    "UNDERPROMOTIONS",
    "decode_actions",
    "encode_moves",
    "encode_planes",
    "move_index",
]

#: History steps of the input.
HISTORY = 8
#: Planes per history step: 12 pieces and 2 repetition counts.
PLANES_PER_STEP = 14
#: 8 × 14 history planes and 7 more: colour, move count, 4 castling, no-progress count.
NUM_PLANES = HISTORY * PLANES_PER_STEP + 7
COLOUR_PLANE = 112
MOVE_COUNT_PLANE = 113
CASTLING_PLANE = 114
NO_PROGRESS_PLANE = 118

#: The eight queen directions as (rank step, file step), seen from the player to move (table 3-1's order).
QUEEN_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
#: The eight knight steps as (rank step, file step), in the order of planes 56-63 (table 3-2).
KNIGHT_STEPS: tuple[tuple[int, int], ...] = ((2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1))
#: Under-promotion pieces, in the order within each kind of planes 64-72 (table 3-3).
UNDERPROMOTIONS: tuple[int, ...] = (chess.KNIGHT, chess.BISHOP, chess.ROOK)
#: The file step of the three under-promotion kinds: straight, capture left, capture right.
UNDERPROMOTION_FILE_STEPS: tuple[int, ...] = (0, -1, 1)
#: 73 move planes of 64 squares.
NUM_ACTIONS = 73 * 64

# promotion piece type (None/0, ..., KING) -> the slot of the encoding table: 0 none or a queen, 1-3 the
# under-promotions, 4 a pawn or a king (no pawn becomes one: the slot has no index)
_PROMO_SLOT = np.zeros(7, dtype=np.int64)
for _slot, _piece in enumerate(UNDERPROMOTIONS, start=1):
    _PROMO_SLOT[_piece] = _slot
_PROMO_SLOT[chess.PAWN] = _PROMO_SLOT[chess.KING] = 4
_SLOT_OF = [int(x) for x in _PROMO_SLOT]


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index of (from, to, slot) or -1, target of each index or -1, under-promotion piece of each index or 0)."""
    index = np.full((64, 64, 5), -1, dtype=np.int64)
    target = np.full(NUM_ACTIONS, -1, dtype=np.int64)
    promo = np.zeros(NUM_ACTIONS, dtype=np.int64)
    steps: list[tuple[int, int, int]] = []  # (plane, rank step, file step)
    for d, (dr, df) in enumerate(QUEEN_DIRECTIONS):
        for k in range(1, 8):
            steps.append((7 * d + k - 1, dr * k, df * k))
    for i, (dr, df) in enumerate(KNIGHT_STEPS):
        steps.append((56 + i, dr, df))
    for src in range(64):
        rank, file = divmod(src, 8)
        for plane, dr, df in steps:
            r, f = rank + dr, file + df
            if 0 <= r < 8 and 0 <= f < 8:
                dst = r * 8 + f
                index[src, dst, 0] = plane * 64 + src
                target[plane * 64 + src] = dst
        if rank == 6:  # an under-promotion starts on the seventh rank
            for kind, df in enumerate(UNDERPROMOTION_FILE_STEPS):
                f = file + df
                if 0 <= f < 8:
                    for p, piece in enumerate(UNDERPROMOTIONS):
                        i = (64 + 3 * kind + p) * 64 + src
                        index[src, 56 + f, p + 1] = i
                        target[i] = 56 + f
                        promo[i] = piece
    return index.reshape(64 * 64 * 5), target, promo


#: ``_INDEX[(from * 64 + to) * 5 + slot]``: the action of a relative move (slot 0: no promotion or a queen), -1 for none.
_INDEX, _TARGET, _PROMO = _build_tables()
#: Planes 64-72 need a pawn on the seventh rank; planes 0-55 promote to a queen when a pawn reaches the last rank.


def move_index(move: chess.Move, turn: chess.Color) -> int:
    """The action of ``move`` for the player ``turn`` (``ValueError`` when it has none, e.g. a king promotion).

    >>> move_index(chess.Move.from_uci("e2e4"), chess.WHITE), move_index(chess.Move.from_uci("e7e5"), chess.BLACK)
    (76, 76)
    """
    flip = 0 if turn else 56
    code = ((move.from_square ^ flip) * 64 + (move.to_square ^ flip)) * 5 + _SLOT_OF[move.promotion or 0]
    index = int(_INDEX[code])
    if index < 0:
        raise ValueError(f"{move.uci()} has no AlphaZero move index")
    return index


def encode_moves(moves: Sequence[chess.Move], turn: chess.Color) -> np.ndarray:
    """int64 actions of ``moves`` for the player ``turn``, in order (one table gather for all).

    Raises ``ValueError`` when a move has no index (a move no chess piece can
    make, a promotion off the seventh rank or to a king).
    """
    if not moves:
        return np.empty(0, dtype=np.int64)
    flip = 0 if turn else 56
    slot = _SLOT_OF
    codes = np.fromiter(
        (((m.from_square ^ flip) * 64 + (m.to_square ^ flip)) * 5 + slot[m.promotion or 0] for m in moves),
        dtype=np.int64,
        count=len(moves),
    )
    out = _INDEX[codes]
    if (out < 0).any():
        bad = next(m for m, i in zip(moves, out) if i < 0)
        raise ValueError(f"{bad.uci()} has no AlphaZero move index")
    return out


def decode_actions(indices: Sequence[int] | np.ndarray, board: chess.Board) -> list[chess.Move]:
    """The moves of ``indices`` on ``board`` (for the player to move): the inverse of :func:`encode_moves`.

    A queen-like move of a pawn to the last rank is a queen promotion; the
    piece standing on the source square decides. Raises ``ValueError`` for an
    index out of range or one that leaves the board. The moves are not checked
    for legality (a mask does that).
    """
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= NUM_ACTIONS):
        bad = int(idx[(idx < 0) | (idx >= NUM_ACTIONS)][0])
        raise ValueError(f"chess action {bad} is out of range 0..{NUM_ACTIONS - 1}")
    targets = _TARGET[idx]
    if (targets < 0).any():
        raise ValueError(f"chess action {int(idx[targets < 0][0])} leaves the board")
    flip = 0 if board.turn else 56
    sources = (idx % 64) ^ flip
    targets = targets ^ flip
    promos = _PROMO[idx]
    # queen promotions: a queen-like move (plane < 56) of a pawn onto the mover's last rank
    last_rank = 7 if board.turn else 0
    pawns = board.pawns
    queen = (idx < 56 * 64) & (targets // 8 == last_rank)
    moves = []
    for s, t, p, q in zip(sources.tolist(), targets.tolist(), promos.tolist(), queen.tolist()):
        promotion = p or (chess.QUEEN if q and (pawns >> s) & 1 else None)
        moves.append(chess.Move(s, t, promotion))
    return moves


# ---- planes -------------------------------------------------------------------------

_PIECE_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def _bits_of(values: np.ndarray) -> np.ndarray:
    """float32 ``(N, 8, 8)``: the 64 bits of each value, the least significant in cell (0, 0), row by row."""
    return np.unpackbits(values.astype("<u8").view(np.uint8), bitorder="little").astype(np.float32).reshape(-1, 8, 8)


#: The bit planes of the counts met in games (a table, so a position costs no unpacking).
_SMALL_BITS = _bits_of(np.arange(1024, dtype=np.uint64))


def _bits64(value: int) -> np.ndarray:
    """The 64 bits of ``value`` (least significant first) as float32 ``(8, 8)``; values past 64 bits are clipped."""
    value = int(value)
    if 0 <= value < len(_SMALL_BITS):
        return _SMALL_BITS[value]
    value = min(max(value, 0), 2**64 - 1)
    return _bits_of(np.array([value], dtype=np.uint64))[0]


def encode_planes(boards: Sequence[chess.Board | None], repetitions: Sequence[int]) -> np.ndarray:
    """The 119 float32 planes ``(119, 8, 8)`` of a position and its history.

    ``boards[0]`` is the position, ``boards[t]`` the one ``t`` plies before
    (``None`` or missing: before the game's start; at most 8 are read);
    ``repetitions[t]`` is how often ``boards[t]``'s position occurred before
    it in the game. Only piece placement is read from the history boards;
    the side to move, castling rights and clocks come from ``boards[0]``.
    """
    board = boards[0]
    if board is None:
        raise ValueError("the position itself (boards[0]) is required")
    me = board.turn
    them = not me
    out = np.zeros((NUM_PLANES, 8, 8), dtype=np.float32)
    rows: list[tuple[int, ...]] = []
    for b in boards[:HISTORY]:
        if b is None:
            break
        rows.append((b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings, b.occupied_co[me], b.occupied_co[them]))
    if rows:
        raw = np.array(rows, dtype="<u8")  # (T, 8): six kinds, the mover's men, the opponent's
        bb = np.concatenate([raw[:, :6] & raw[:, 6:7], raw[:, :6] & raw[:, 7:8]], axis=1)
        if not me:
            bb = bb.byteswap()  # flip the ranks: byte r of a bitboard is rank r
        cells = np.unpackbits(bb.view(np.uint8), bitorder="little").reshape(len(rows), 12, 8, 8)
        view = out[: HISTORY * PLANES_PER_STEP].reshape(HISTORY, PLANES_PER_STEP, 8, 8)
        view[: len(rows), :12] = cells
        for t in range(len(rows)):
            r = repetitions[t] if t < len(repetitions) else 0
            if r >= 1:
                view[t, 12] = 1.0
            if r >= 2:
                view[t, 13] = 1.0
    if me == chess.WHITE:
        out[COLOUR_PLANE] = 1.0
    out[MOVE_COUNT_PLANE] = _bits64(board.fullmove_number)
    rights = (
        board.has_kingside_castling_rights(me),
        board.has_queenside_castling_rights(me),
        board.has_kingside_castling_rights(them),
        board.has_queenside_castling_rights(them),
    )
    for i, held in enumerate(rights):
        if held:
            out[CASTLING_PLANE + i] = 1.0
    out[NO_PROGRESS_PLANE] = _bits64(board.halfmove_clock)
    return out
