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
  do not, unless ``claim_draws`` (below).
- ``key`` is python-chess's transposition key: the piece placement, the side to
  move, the castling rights and the en-passant square (only when an en-passant
  capture is actually legal). It ignores the move clocks and the history, so
  two states with the same key may differ in how close they are to a 75-move or
  fivefold-repetition draw. That is the usual trade-off of a chess
  transposition table.

Encoding (:class:`ChessGame`): AlphaZero's, from :mod:`fuseki.games.chess_encoding`:
119 input planes (8 history steps of 12 piece planes and 2 repetition planes,
colour, move count, 4 castling planes, no-progress count) and 8 × 8 × 73 =
4,672 move indices, both in the frame of the player to move (the board
flipped for Black). Chess has no symmetry used here (castling breaks the
mirror), so ``symmetries`` is the identity alone.

History: every state keeps a link to the state it was played from
(``parent``), so the planes see the last 8 positions and the repetition
counts, and fivefold repetition ends the game, without python-chess's move
stack. A state built from a FEN has no history before it (zero planes, as
at the start of a game).

Draw claims: with ``claim_draws=True`` (the Zero runs and the UCI engine use it) a
threefold repetition or 100 half-moves without a capture or pawn move end the
game as a draw as soon as the position is on the board (python-chess's
``claim_draw`` would also look one move ahead); checkmate still comes first.

Copy cost: ``play`` copies the board. By default the copy drops the move stack
(``board.copy(stack=False)``), which is several times cheaper deep in a game;
repetitions are counted through the ``parent`` links instead. Pass
``history=True`` to keep python-chess's stack too (for code that reads
``board.move_stack``).

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
from fuseki.games.chess_encoding import (
    HISTORY,
    KNIGHT_STEPS,
    NUM_ACTIONS,
    NUM_PLANES,
    decode_actions,
    encode_moves,
    encode_planes,
    move_index,
)
from fuseki.games.symmetry import Symmetry, identity_symmetry

__all__ = ["ChessGame", "ChessState", "player_of", "color_of", "KNIGHT_STEPS", "NUM_ACTIONS", "NUM_PLANES"]

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
    """One chess position and the game that led to it; immutable from the outside (``play`` returns a new state).

    Build one with :meth:`from_fen` or :meth:`ChessGame.initial_state`. The
    underlying board is available as :attr:`board` for reading (evaluation
    functions, printing); do not push moves on it. :attr:`parent` is the
    state before the last move (``None`` at the start or after a FEN).

    >>> s = ChessState.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # Black to move, stalemated
    >>> s.is_over(), s.winner(), s.returns(), s.legal_moves()
    (True, None, (0.0, 0.0), [])
    """

    __slots__ = ("board", "claim_draws", "history", "parent", "_actions", "_key", "_moves", "_outcome", "_reps")

    def __init__(self, board: chess.Board, *, history: bool = False, parent: ChessState | None = None, claim_draws: bool = False) -> None:
        #: The position. Treat as read-only: the state caches facts about it.
        self.board = board
        #: Whether ``play`` keeps python-chess's move stack too.
        self.history = history
        #: The state this one was played from (the game's history), or None.
        self.parent = parent
        #: Whether threefold repetition and the 50-move rule end the game (see the module notes).
        self.claim_draws = claim_draws
        self._moves: list[chess.Move] | None = None
        self._outcome: object = _NOT_COMPUTED
        self._key: Hashable | None = None
        self._reps: int | None = None
        self._actions: np.ndarray | None = None

    @classmethod
    def from_fen(cls, fen: str = chess.STARTING_FEN, *, history: bool = False, claim_draws: bool = False) -> "ChessState":
        """The state for a FEN (a missing move-clock field defaults as in python-chess), with no history before it.

        Raises ``ValueError`` for a malformed FEN.
        """
        return cls(chess.Board(fen), history=history, claim_draws=claim_draws)

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
        return ChessState(board, history=self.history, parent=self, claim_draws=self.claim_draws)

    def is_over(self) -> bool:
        """True after checkmate, stalemate, insufficient material, 75 moves or fivefold repetition (and claims)."""
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
        """How the game ended (python-chess's ``Outcome``), or None while it goes on.

        python-chess's ``outcome(claim_draw=False)``, plus fivefold repetition
        counted through the history links, plus, with ``claim_draws``,
        threefold repetition and the 50-move rule.
        """
        if self._outcome is _NOT_COMPUTED:
            outcome = self.board.outcome(claim_draw=False)
            if outcome is None:
                reps = self.repetitions()
                if reps >= 4:
                    outcome = chess.Outcome(chess.Termination.FIVEFOLD_REPETITION, None)
                elif self.claim_draws and reps >= 2:
                    outcome = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
                elif self.claim_draws and self.board.halfmove_clock >= 100:
                    outcome = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
            self._outcome = outcome
        return self._outcome  # type: ignore[return-value]

    def repetitions(self) -> int:
        """How often this position (python-chess's repetition key) occurred earlier in the game.

        Only the positions since the last capture or pawn move can repeat (the
        half-move clock says how far back that is), and only every other one
        has the same side to move.
        """
        if self._reps is None:
            count = 0
            board = self.board
            limit = board.halfmove_clock
            node = self.parent
            distance = 1
            while node is not None and distance <= limit:
                if distance % 2 == 0 and node.board.occupied == board.occupied and node.key == self.key:
                    count += 1
                node = node.parent
                distance += 1
            self._reps = count
        return self._reps

    def ancestors(self, count: int = HISTORY) -> list[ChessState]:
        """This state and up to ``count - 1`` states before it, the latest first."""
        out: list[ChessState] = []
        node: ChessState | None = self
        while node is not None and len(out) < count:
            out.append(node)
            node = node.parent
        return out

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

    ``claim_draws``: threefold repetition and the 50-move rule end the game
    (see the module notes). ``history``: keep python-chess's move stack too.

    >>> ChessGame().initial_state().fen() == chess.STARTING_FEN
    True
    """

    name = "chess"
    num_actions: int = NUM_ACTIONS
    planes_shape: tuple[int, int, int] = (NUM_PLANES, 8, 8)
    symmetries: tuple[Symmetry, ...] = (identity_symmetry(64, NUM_ACTIONS),)

    def __init__(self, fen: str = chess.STARTING_FEN, *, history: bool = False, claim_draws: bool = False) -> None:
        chess.Board(fen)  # validate now: ValueError for a malformed FEN
        self.fen = fen
        self.history = history
        self.claim_draws = claim_draws

    def initial_state(self) -> ChessState:
        """A fresh state for the starting FEN."""
        return ChessState.from_fen(self.fen, history=self.history, claim_draws=self.claim_draws)

    # -- action encoding (fuseki.games.chess_encoding) --------------------------

    def action_index(self, state: ChessState, move: MoveLike) -> int:
        """The 8 × 8 × 73 index of ``move`` in the frame of the player to move.

        >>> game = ChessGame()
        >>> s = game.initial_state()
        >>> game.action_index(s, "e2e4"), game.action_index(s.play("e2e4"), "e7e5")  # both up 2 squares
        (76, 76)
        """
        if isinstance(move, str):
            move = chess.Move.from_uci(move)
        return move_index(move, state.board.turn)

    def index_to_move(self, state: ChessState, index: int) -> chess.Move:
        """The move of ``index`` here (a queen-like pawn move to the last rank promotes to a queen)."""
        return decode_actions([int(index)], state.board)[0]

    def legal_actions(self, state: ChessState) -> np.ndarray:
        """The actions of ``state.legal_moves()`` (kept on the state: the search and the network both ask)."""
        if state._actions is None:
            state._actions = encode_moves(state.legal_moves(), state.board.turn)
            state._actions.flags.writeable = False
        return state._actions

    def legal_mask(self, state: ChessState) -> np.ndarray:
        return mask_of(NUM_ACTIONS, self.legal_actions(state))

    def planes(self, state: ChessState) -> np.ndarray:
        """The 119 planes of ``state`` and its last 7 predecessors (:func:`~fuseki.games.chess_encoding.encode_planes`)."""
        steps = state.ancestors(HISTORY)
        return encode_planes([s.board for s in steps], [s.repetitions() for s in steps])
