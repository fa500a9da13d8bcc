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

__all__ = ["ChessGame", "ChessState", "player_of", "color_of"]

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
        w = self.winner()
        if w is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

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

    def __init__(self, fen: str = chess.STARTING_FEN, *, history: bool = False) -> None:
        chess.Board(fen)  # validate now: ValueError for a malformed FEN
        self.fen = fen
        self.history = history

    def initial_state(self) -> ChessState:
        """A fresh state for the starting FEN."""
        return ChessState.from_fen(self.fen, history=self.history)
