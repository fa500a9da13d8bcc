"""Chess behind the :mod:`fuseki.games.base` protocol, with python-chess inside.

python-chess does the rules (move generation, check, mate, draws); this module
only adapts a :class:`chess.Board` to the immutable ``GameState`` protocol that
every search in :mod:`fuseki.search` runs on.

Conventions:

- Players: 0 is White, 1 is Black (the first player to move is 0, as in every
  game here).
- Moves are :class:`chess.Move` objects, listed in python-chess's
  ``board.legal_moves`` order (the order Klein's searches see, so node counts
  can be compared with his). ``play`` also accepts a UCI string (``"e2e4"``).
- The end of the game is python-chess's ``board.outcome(claim_draw=False)``:
  checkmate, stalemate, insufficient material, the 75-move rule and fivefold
  repetition end the game; draws that must be *claimed* (threefold, 50 moves)
  do not.
- ``key`` is python-chess's transposition key: the piece placement, the side to
  move, the castling rights and the en-passant square (only when an en-passant
  capture is actually legal). It ignores the move clocks and the history, so
  two states with the same key may differ in how close they are to a 75-move or
  fivefold-repetition draw. That is the usual trade-off of a chess
  transposition table.

Action encoding (:class:`ChessGame`): AlphaZero's 8 × 8 × 73 = 4,672 move
indices, in the frame of the player to move (the board turned round, ranks
reversed, when Black is to move, as AlphaZero does). A move from relative
square ``s`` (``rank * 8 + file``, rank 0 the mover's back rank) has index
``plane * 64 + s``, so the policy is a ``(73, 8, 8)`` block:

- planes 0-55, "queen moves": direction ``d`` (0 N, 1 NE, 2 E, 3 SE, 4 S,
  5 SW, 6 W, 7 NW, seen from the mover) and distance ``k`` (1..7) give plane
  ``d * 7 + k - 1``; every king, queen, rook, bishop and pawn move, castling
  (the king's two-square move) and promotion to a queen are here;
- planes 56-63, knight moves, in the order of :data:`KNIGHT_STEPS`;
- planes 64-72, under-promotions: ``64 + 3 * piece + (df + 1)`` with piece 0
  knight, 1 bishop, 2 rook and ``df`` the file step (-1, 0, +1).

The planes are an interim, documented encoding of the current position only
(the full 119 planes with history are a later issue): 19 planes of 8 × 8 in
the same turned frame, row ``r`` being relative rank ``r``: the mover's
pawns, knights, bishops, rooks, queens, king (0-5), the opponent's (6-11),
ones when White is to move (12), the mover's king- and queen-side castling
rights (13, 14), the opponent's (15, 16), the en-passant target square when
an en-passant capture is legal (17), and the half-move clock / 100 (18).
Chess has no symmetry used here (castling breaks the mirror), so
``symmetries`` is the identity alone.

Copy cost: ``play`` copies the board. By default the copy drops the move stack
(``board.copy(stack=False)``), which is several times cheaper deep in a game
but means fivefold repetition is never detected (the 75-move rule still is:
it only needs the half-move clock). Pass ``history=True`` to keep the stack
and detect fivefold repetition at the higher copy cost.

>>> game = ChessGame()
>>> state = game.initial_state()
>>> state.current_player, len(state.legal_moves())
(0, 20)
>>> for uci in ["f2f3", "e7e5", "g2g4", "d8h4"]:
...     state = state.play(uci)
>>> state.is_over(), state.winner(), state.returns()
(True, 1, (-1.0, 1.0))
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Union

import chess
import numpy as np

from fuseki.games.base import mask_of, returns_of
from fuseki.games.symmetry import Symmetry, identity_symmetry

__all__ = ["ChessGame", "ChessState", "player_of", "color_of", "KNIGHT_STEPS", "NUM_ACTIONS"]

#: The eight queen directions as (rank step, file step), seen from the player to move.
QUEEN_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
#: The eight knight steps as (rank step, file step), in the order of planes 56-63.
KNIGHT_STEPS: tuple[tuple[int, int], ...] = ((2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1))
#: Under-promotion pieces, in the order of planes 64-72.
UNDERPROMOTIONS: tuple[int, ...] = (chess.KNIGHT, chess.BISHOP, chess.ROOK)
#: 73 move planes of 64 squares.
NUM_ACTIONS = 73 * 64
NUM_PLANES = 19

_QUEEN_PLANE = {(dr * k, df * k): d * 7 + k - 1 for d, (dr, df) in enumerate(QUEEN_DIRECTIONS) for k in range(1, 8)}
_KNIGHT_PLANE = {step: 56 + i for i, step in enumerate(KNIGHT_STEPS)}
_PLANE_STEP = {plane: step for step, plane in {**_QUEEN_PLANE, **_KNIGHT_PLANE}.items()}

MoveLike = Union[chess.Move, str]

_NOT_COMPUTED = object()


def player_of(color: chess.Color) -> int:
    """The protocol's player number for a python-chess colour: White 0, Black 1."""
    return 0 if color == chess.WHITE else 1


def color_of(player: int) -> chess.Color:
    """The python-chess colour of a player number: 0 White, 1 Black."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return chess.WHITE if player == 0 else chess.BLACK


class ChessState:
    """One chess position; immutable from the outside (``play`` returns a new state).

    Build one with :meth:`from_fen` or :meth:`ChessGame.initial_state`. The
    underlying board is available as :attr:`board` for reading (evaluation
    functions, printing); do not push moves on it.

    >>> s = ChessState.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # Black to move, stalemated
    >>> s.is_over(), s.winner(), s.returns(), s.legal_moves()
    (True, None, (0.0, 0.0), [])
    """

    __slots__ = ("board", "history", "_moves", "_outcome", "_key")

    def __init__(self, board: chess.Board, *, history: bool = False) -> None:
        #: The position. Treat as read-only: the state caches facts about it.
        self.board = board
        #: Whether ``play`` keeps the move stack (fivefold repetition detection).
        self.history = history
        self._moves: list[chess.Move] | None = None
        self._outcome: object = _NOT_COMPUTED
        self._key: Hashable | None = None

    @classmethod
    def from_fen(cls, fen: str = chess.STARTING_FEN, *, history: bool = False) -> "ChessState":
        """The state for a FEN (a missing move-clock field defaults as in python-chess).

        Raises ``ValueError`` for a malformed FEN.
        """
        return cls(chess.Board(fen), history=history)

    # -- the protocol ------------------------------------------------------

    @property
    def current_player(self) -> int:
        """0 when White is to move, 1 when Black is."""
        return 0 if self.board.turn else 1

    @property
    def key(self) -> Hashable:
        """Placement, side to move, castling rights and a *legal* en-passant square."""
        if self._key is None:
            self._key = self.board._transposition_key()
        return self._key

    def legal_moves(self) -> list[chess.Move]:
        """The legal moves in python-chess order; empty when the game is over."""
        if self._moves is None:
            self._moves = [] if self.outcome() is not None else list(self.board.legal_moves)
        return self._moves

    def play(self, move: MoveLike) -> "ChessState":
        """The state after ``move`` (a :class:`chess.Move` or a UCI string).

        Raises :class:`chess.IllegalMoveError` (a ``ValueError``) when the move
        is illegal here or the game is over, and ``ValueError`` for a string
        that is not UCI.
        """
        if isinstance(move, str):
            move = chess.Move.from_uci(move)  # InvalidMoveError (a ValueError) on bad text
        if self.outcome() is not None:
            raise chess.IllegalMoveError(f"the game is over ({self.board.fen()}); no move is legal")
        if self._moves is not None:
            legal = move in self._moves
        else:
            legal = self.board.is_legal(move)
        if not legal:
            raise chess.IllegalMoveError(f"illegal move {move.uci()} in {self.board.fen()}")
        board = self.board.copy(stack=self.history)
        board.push(move)
        return ChessState(board, history=self.history)

    def is_over(self) -> bool:
        """True after checkmate, stalemate, insufficient material, 75 moves or fivefold repetition."""
        return self.outcome() is not None

    def winner(self) -> int | None:
        """0 (White) or 1 (Black) after a checkmate; None for a draw or a game in progress."""
        outcome = self.outcome()
        if outcome is None or outcome.winner is None:
            return None
        return player_of(outcome.winner)

    def returns(self) -> tuple[float, float]:
        """(+1, -1) when White has won, (-1, +1) when Black has, (0, 0) otherwise."""
        return returns_of(self.winner())

    # -- extras ------------------------------------------------------------

    def outcome(self) -> chess.Outcome | None:
        """python-chess's ``Outcome`` (``claim_draw=False``), or None while in progress."""
        if self._outcome is _NOT_COMPUTED:
            self._outcome = self.board.outcome(claim_draw=False)
        return self._outcome  # type: ignore[return-value]

    def fen(self) -> str:
        """The FEN of the position."""
        return self.board.fen()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChessState):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"ChessState({self.board.fen()!r})"

    def __str__(self) -> str:
        return str(self.board)


class ChessGame:
    """Chess from a starting position (the standard one unless a FEN is given).

    >>> ChessGame().initial_state().fen() == chess.STARTING_FEN
    True
    """

    name = "chess"
    num_actions: int = NUM_ACTIONS
    planes_shape: tuple[int, int, int] = (NUM_PLANES, 8, 8)
    symmetries: tuple[Symmetry, ...] = (identity_symmetry(64, NUM_ACTIONS),)

    def __init__(self, fen: str = chess.STARTING_FEN, *, history: bool = False) -> None:
        chess.Board(fen)  # validate now: ValueError for a malformed FEN
        self.fen = fen
        self.history = history

    def initial_state(self) -> ChessState:
        """A fresh state for the starting FEN."""
        return ChessState.from_fen(self.fen, history=self.history)

    # -- action encoding (see the module notes) ------------------------------

    def action_index(self, state: ChessState, move: MoveLike) -> int:
        """The 8 × 8 × 73 index of ``move`` in the frame of the player to move.

        >>> game = ChessGame()
        >>> s = game.initial_state()
        >>> game.action_index(s, "e2e4"), game.action_index(s.play("e2e4"), "e7e5")  # both N, 2 squares
        (76, 76)
        """
        if isinstance(move, str):
            move = chess.Move.from_uci(move)
        flip = not state.board.turn
        src = chess.square_mirror(move.from_square) if flip else move.from_square
        dst = chess.square_mirror(move.to_square) if flip else move.to_square
        dr, df = dst // 8 - src // 8, dst % 8 - src % 8
        if move.promotion is not None and move.promotion != chess.QUEEN:
            if dr != 1 or abs(df) > 1 or move.promotion not in UNDERPROMOTIONS:
                raise ValueError(f"{move.uci()} is not a promotion move")
            plane = 64 + 3 * UNDERPROMOTIONS.index(move.promotion) + df + 1
        else:
            plane = _QUEEN_PLANE.get((dr, df), _KNIGHT_PLANE.get((dr, df), -1))
            if plane < 0:
                raise ValueError(f"{move.uci()} is neither a queen-line nor a knight move")
        return plane * 64 + src

    def index_to_move(self, state: ChessState, index: int) -> chess.Move:
        """The move of ``index`` here (a queen-line pawn move to the last rank promotes to a queen)."""
        index = int(index)
        if not 0 <= index < NUM_ACTIONS:
            raise ValueError(f"chess action {index} is out of range 0..{NUM_ACTIONS - 1}")
        plane, src = divmod(index, 64)
        promotion = None
        if plane >= 64:
            piece, df = divmod(plane - 64, 3)
            dr, df = 1, df - 1
            promotion = UNDERPROMOTIONS[piece]
        else:
            dr, df = _PLANE_STEP[plane]
        rank, file = src // 8 + dr, src % 8 + df
        if not (0 <= rank < 8 and 0 <= file < 8):
            raise ValueError(f"chess action {index} leaves the board")
        dst = rank * 8 + file
        flip = not state.board.turn
        from_square = chess.square_mirror(src) if flip else src
        to_square = chess.square_mirror(dst) if flip else dst
        if promotion is None and plane < 56 and rank == 7 and state.board.piece_type_at(from_square) == chess.PAWN:
            promotion = chess.QUEEN
        return chess.Move(from_square, to_square, promotion)

    def legal_actions(self, state: ChessState) -> np.ndarray:
        return np.array([self.action_index(state, m) for m in state.legal_moves()], dtype=np.int64)

    def legal_mask(self, state: ChessState) -> np.ndarray:
        return mask_of(NUM_ACTIONS, self.legal_actions(state))

    def planes(self, state: ChessState) -> np.ndarray:
        board = state.board
        me = board.turn
        flip = not me
        out = np.zeros((NUM_PLANES, 64), dtype=np.float32)
        for square, piece in board.piece_map().items():
            rel = chess.square_mirror(square) if flip else square
            out[piece.piece_type - 1 + (0 if piece.color == me else 6), rel] = 1.0
        if me == chess.WHITE:
            out[12] = 1.0
        them = not me
        out[13] = board.has_kingside_castling_rights(me)
        out[14] = board.has_queenside_castling_rights(me)
        out[15] = board.has_kingside_castling_rights(them)
        out[16] = board.has_queenside_castling_rights(them)
        if board.ep_square is not None and board.has_legal_en_passant():
            out[17, chess.square_mirror(board.ep_square) if flip else board.ep_square] = 1.0
        out[18] = board.halfmove_clock / 100.0
        return out.reshape(NUM_PLANES, 8, 8)
