"""Gardner's Hexapawn (1962): chess with three pawns a side on a 3×3 board.

Klein (*Neural Networks for Chess*, ch. 5) builds his HexapawnZero on it
because it is the smallest game that still looks like chess. His rules:

- each side has three pawns, White on the first rank, Black on the third;
  White moves first;
- a pawn moves one square straight forward onto an empty square, or captures
  one square diagonally forward (no double step, no en passant);
- a player wins by getting a pawn to the far rank ("promoting" it);
- there is no stalemate or draw: a player who has no legal move on their turn
  loses. (Capturing all enemy pawns is a special case of this.)

The game is solved: Black, the second player, wins with best play, so the
exact minimax value of the start position is -1 for White.

Squares are named as in chess, files ``a``-``c`` and ranks ``1``-``3``, and
moves use UCI notation as python-chess prints them in Klein's listings
(``Move.from_uci('h5f7')``): ``"b1b2"`` is a step, ``"a2b3"`` a capture.

>>> s = Hexapawn().initial_state()
>>> print(s)
p p p
. . .
P P P
>>> [str(m) for m in s.legal_moves()]
['a1a2', 'b1b2', 'c1c2']
>>> s.play(HexapawnMove.from_uci("b1b2")).current_player
1
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from fuseki.games.base import mask_of, returns_of
from fuseki.games.symmetry import Symmetry, identity_symmetry, mirror_permutation

FILES = "abc"
SIZE = 3
EMPTY, WHITE_PAWN, BLACK_PAWN = 0, 1, 2
_SYMBOLS = {EMPTY: ".", WHITE_PAWN: "P", BLACK_PAWN: "p"}


def square_name(square: int) -> str:
    """``0`` -> ``"a1"``; squares are ``rank_index * 3 + file_index``, a1 = 0, c3 = 8."""
    return f"{FILES[square % SIZE]}{square // SIZE + 1}"


def parse_square(name: str) -> int:
    """``"a1"`` -> ``0``; raises ``ValueError`` for anything that is not a square."""
    if len(name) != 2 or name[0] not in FILES or name[1] not in "123":
        raise ValueError(f"{name!r} is not a Hexapawn square (a1..c3)")
    return (int(name[1]) - 1) * SIZE + FILES.index(name[0])


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class HexapawnMove:
    """A pawn move from one square to another (squares as ints, see :func:`square_name`)."""

    from_square: int
    to_square: int

    @classmethod
    def from_uci(cls, text: str) -> "HexapawnMove":
        """``"a1a2"`` -> the move from a1 to a2 (legality is the state's business)."""
        text = text.strip()
        if len(text) != 4:
            raise ValueError(f"a Hexapawn move is written like 'a1a2', got {text!r}")
        return cls(parse_square(text[:2]), parse_square(text[2:]))

    def uci(self) -> str:
        return square_name(self.from_square) + square_name(self.to_square)

    def __str__(self) -> str:
        return self.uci()


class HexapawnState:
    """An immutable Hexapawn position: nine squares plus the player to move (0 White, 1 Black).

    ``board[sq]`` is 0 (empty), 1 (white pawn) or 2 (black pawn), ``sq`` as in
    :func:`square_name`. The legal moves are computed once, in a fixed order:
    by origin square (a1, b1, ... c3), then by target file (a, b, c), so
    searches are reproducible.
    """

    __slots__ = ("board", "current_player", "_moves", "_winner")

    def __init__(self, board: Sequence[int] | None = None, current_player: int = 0) -> None:
        if board is None:
            board = (WHITE_PAWN,) * 3 + (EMPTY,) * 3 + (BLACK_PAWN,) * 3
        board = tuple(int(v) for v in board)
        if len(board) != 9 or any(v not in (0, 1, 2) for v in board):
            raise ValueError(f"a Hexapawn board is nine squares of 0, 1 or 2, got {board!r}")
        if current_player not in (0, 1):
            raise ValueError(f"current_player must be 0 (White) or 1 (Black), got {current_player!r}")
        self.board = board
        self.current_player = current_player
        self._settle()

    @classmethod
    def from_string(cls, text: str, current_player: int = 0) -> "HexapawnState":
        """Parse the board as :meth:`__str__` prints it: rank 3 first, ``P`` white, ``p`` black.

        >>> HexapawnState.from_string("p.p / .P. / P.P", current_player=1).legal_moves()[0].uci()
        'a3a2'
        """
        rows = [r for r in (line.replace(" ", "") for line in text.replace("/", "\n").splitlines()) if r]
        if len(rows) != 3 or any(len(r) != 3 for r in rows):
            raise ValueError(f"a Hexapawn board is three rows of three squares, got {text!r}")
        lookup = {".": EMPTY, "P": WHITE_PAWN, "p": BLACK_PAWN}
        board = [EMPTY] * 9
        for i, row in enumerate(rows):
            rank = 2 - i
            for f, ch in enumerate(row):
                if ch not in lookup:
                    raise ValueError(f"unknown Hexapawn square {ch!r} (use P, p or .)")
                board[rank * 3 + f] = lookup[ch]
        return cls(board, current_player)

    def _settle(self) -> None:
        """Compute the winner (if any) and the legal moves: everything ``play`` needs."""
        board = self.board
        self._winner: int | None = None
        if WHITE_PAWN in board[6:9]:
            self._winner = 0
        elif BLACK_PAWN in board[0:3]:
            self._winner = 1
        if self._winner is not None:
            self._moves: list[HexapawnMove] = []
            return
        me, them = (WHITE_PAWN, BLACK_PAWN) if self.current_player == 0 else (BLACK_PAWN, WHITE_PAWN)
        step = SIZE if self.current_player == 0 else -SIZE
        moves = []
        for sq in range(9):
            if board[sq] != me:
                continue
            fwd = sq + step
            if not 0 <= fwd < 9:
                continue  # cannot happen in a live game: it would be a promoted pawn
            f = sq % SIZE
            if f > 0 and board[fwd - 1] == them:
                moves.append(HexapawnMove(sq, fwd - 1))
            if board[fwd] == EMPTY:
                moves.append(HexapawnMove(sq, fwd))
            if f < SIZE - 1 and board[fwd + 1] == them:
                moves.append(HexapawnMove(sq, fwd + 1))
        self._moves = moves
        if not moves:
            self._winner = 1 - self.current_player  # no move on your turn loses

    @property
    def key(self) -> tuple[tuple[int, ...], int]:
        return (self.board, self.current_player)

    def legal_moves(self) -> list[HexapawnMove]:
        return list(self._moves)

    def play(self, move: HexapawnMove | str) -> "HexapawnState":
        if isinstance(move, str):
            move = HexapawnMove.from_uci(move)
        if self._winner is not None:
            raise ValueError(f"cannot play {move}: the game is over")
        if move not in self._moves:
            legal = ", ".join(m.uci() for m in self._moves)
            raise ValueError(f"illegal Hexapawn move {move}; legal moves: {legal}")
        board = list(self.board)
        board[move.to_square] = board[move.from_square]
        board[move.from_square] = EMPTY
        new = _new(HexapawnState)
        new.board = tuple(board)
        new.current_player = 1 - self.current_player
        new._settle()
        return new

    def is_over(self) -> bool:
        return self._winner is not None

    def winner(self) -> int | None:
        return self._winner

    def returns(self) -> tuple[float, float]:
        return returns_of(self._winner)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HexapawnState) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return "\n".join(
            " ".join(_SYMBOLS[self.board[rank * 3 + f]] for f in range(3)) for rank in (2, 1, 0)
        )

    def __repr__(self) -> str:
        rows = " / ".join("".join(_SYMBOLS[self.board[r * 3 + f]] for f in range(3)) for r in (2, 1, 0))
        return f"HexapawnState.from_string({rows!r}, current_player={self.current_player})"


_new = object.__new__


def _relative(square: int, player: int) -> int:
    """A square in the frame of ``player``: unchanged for White, ranks turned round for Black."""
    return square if player == 0 else (SIZE - 1 - square // SIZE) * SIZE + square % SIZE


class Hexapawn:
    """The game object: a name, the start position and the action encoding.

    Everything is seen from the player to move, with the board turned round
    (ranks reversed) when Black is to move, as AlphaZero does for chess, so
    the mover's pawns always walk "up" and one network serves both sides:

    - a *relative square* is ``rank * 3 + file`` with rank 0 the mover's own
      back rank;
    - action ``from * 3 + d`` (27 in all) moves the pawn on relative square
      ``from`` one rank forward and ``d - 1`` files sideways: ``d = 1`` is the
      step straight ahead, ``d = 0`` and ``d = 2`` the captures towards file
      a and file c;
    - the planes are ``(2, 3, 3)``: the mover's pawns, then the opponent's,
      row ``r`` of a plane being relative rank ``r``;
    - the symmetries are the identity and the left-right mirror (files a <-> c).

    >>> game, s = Hexapawn(), HexapawnState()
    >>> [game.action_index(s, m) for m in s.legal_moves()]
    [1, 4, 7]
    >>> game.index_to_move(s.play("b1b2"), 4).uci()  # Black's b3b2, in Black's frame b1b2
    'b3b2'
    """

    name = "hexapawn"
    num_actions: int = 27
    planes_shape: tuple[int, int, int] = (2, SIZE, SIZE)
    symmetries: tuple[Symmetry, ...] = (
        identity_symmetry(9, 27),
        Symmetry(
            "mirror",
            mirror_permutation(SIZE, SIZE),
            np.array([int(mirror_permutation(SIZE, SIZE)[a // 3]) * 3 + 2 - a % 3 for a in range(27)], dtype=np.int64),
        ),
    )

    def initial_state(self) -> HexapawnState:
        return HexapawnState()

    def action_index(self, state: HexapawnState, move: HexapawnMove | str) -> int:
        if isinstance(move, str):
            move = HexapawnMove.from_uci(move)
        player = state.current_player
        src, dst = _relative(move.from_square, player), _relative(move.to_square, player)
        d = dst % SIZE - src % SIZE + 1
        if dst // SIZE != src // SIZE + 1 or not 0 <= d <= 2:
            raise ValueError(f"{move} is not a pawn move of {'White' if player == 0 else 'Black'} in Hexapawn")
        return src * 3 + d

    def index_to_move(self, state: HexapawnState, index: int) -> HexapawnMove:
        index = int(index)
        if not 0 <= index < 27:
            raise ValueError(f"Hexapawn action {index} is out of range 0..26")
        src, d = divmod(index, 3)
        file = src % SIZE + d - 1
        if src // SIZE == SIZE - 1 or not 0 <= file < SIZE:
            raise ValueError(f"Hexapawn action {index} leaves the board")
        dst = (src // SIZE + 1) * SIZE + file
        player = state.current_player
        return HexapawnMove(_relative(src, player), _relative(dst, player))

    def legal_actions(self, state: HexapawnState) -> np.ndarray:
        return np.array([self.action_index(state, m) for m in state.legal_moves()], dtype=np.int64)

    def legal_mask(self, state: HexapawnState) -> np.ndarray:
        return mask_of(27, self.legal_actions(state))

    def planes(self, state: HexapawnState) -> np.ndarray:
        player = state.current_player
        me, them = (WHITE_PAWN, BLACK_PAWN) if player == 0 else (BLACK_PAWN, WHITE_PAWN)
        out = np.zeros((2, 9), dtype=np.float32)
        for sq, v in enumerate(state.board):
            if v == me:
                out[0, _relative(sq, player)] = 1.0
            elif v == them:
                out[1, _relative(sq, player)] = 1.0
        return out.reshape(2, SIZE, SIZE)

    def __repr__(self) -> str:
        return "Hexapawn()"
