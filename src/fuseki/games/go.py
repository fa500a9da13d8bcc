"""Go behind the :mod:`fuseki.games.base` protocol: a thin adapter over :class:`fuseki.go.GameState`.

The rules engine keeps its own, richer interface (colours, int move indices,
scoring, SGF); searches written against the generic protocol see Go through
this adapter instead. Player 0 is Black, player 1 White. Legal moves are
:class:`fuseki.go.Move` values, every legal point and then pass; resignation
is left out, because a search that may resign at any node only wastes nodes.

The wrapped state is :attr:`GoGameState.go`, so a Go agent can hand the
result of a generic search straight back to a frontend.

Action encoding: action ``row * size + col`` is a stone on that point and
``size * size`` is pass (the engine's own move index), so ``num_actions`` is
``size * size + 1``. The symmetries are the 8 of the square, pass fixed.
The planes are AlphaGo Zero's (``history`` = 8 gives its 17): for each of the
last ``history`` positions, newest first, the stones of the player to move
now and then the opponent's, and a last plane of ones when Black is to move
(the side that pays komi). Positions before the start of the record are
empty planes. Pass ``encoder=`` (any object with ``encode(go_state)`` and
``shape``, e.g. ``fuseki.encoders.get_encoder("zero", 9)``) to read a Go
encoder's planes instead; they are then as that encoder defines them.

>>> game = GoGame(size=5, komi=0.5)
>>> s = game.initial_state()
>>> s.current_player, len(s.legal_moves())
(0, 26)
>>> s.play(s.legal_moves()[0]).go.move_number
1
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from fuseki.games.base import mask_of, returns_of
from fuseki.games.symmetry import board_symmetries
from fuseki.go.rules import Rules, Scoring
from fuseki.go.state import Color, GameState, IllegalMoveError, Move


class GoGameState:
    """A Go position seen through the generic protocol. Immutable, like the state it wraps."""

    __slots__ = ("go",)

    def __init__(self, go: GameState) -> None:
        if not isinstance(go, GameState):
            raise TypeError(f"GoGameState wraps a fuseki.go.GameState, got {type(go).__name__}")
        self.go = go

    @property
    def current_player(self) -> int:
        return 0 if self.go.next_player is Color.BLACK else 1

    @property
    def key(self) -> Hashable:
        """Stones and side to move (the engine's Zobrist key), plus what else decides the future.

        The engine's ``key`` is only stones and side to move. For a search the
        number of consecutive passes matters too (one more pass ends the game),
        and so do the simple-ko point and, under territory scoring, the
        prisoners. Under a superko rule the full history also changes which
        moves are legal; that is ignored here, as every Go program's
        transposition table does (the "graph history interaction" problem).
        """
        go = self.go
        ko = go.ko_point
        extra = (go.captures(Color.BLACK), go.captures(Color.WHITE)) if go.rules.scoring is Scoring.TERRITORY else ()
        return (go.key, min(go.passes, 2), ko, extra)

    def legal_moves(self) -> list[Move]:
        return self.go.legal_moves()

    def play(self, move: Move | int) -> "GoGameState":
        """The state after ``move`` (a :class:`Move` or an int index); ``IllegalMoveError`` (a ``ValueError``) if illegal."""
        return GoGameState(self.go.play(move))

    def is_over(self) -> bool:
        return self.go.is_over()

    def winner(self) -> int | None:
        color = self.go.winner()
        if color is None:
            return None
        return 0 if color is Color.BLACK else 1

    def returns(self) -> tuple[float, float]:
        return returns_of(self.winner())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoGameState) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return str(self.go)

    def __repr__(self) -> str:
        return f"GoGameState({self.go!r})"


class GoGame:
    """Go on a ``size`` × ``size`` board under ``rules`` (a :class:`Rules` value or preset name).

    ``komi`` overrides the rules' komi when given.
    """

    def __init__(
        self,
        size: int = 9,
        komi: float | None = None,
        rules: Rules | str | None = None,
        history: int = 8,
        encoder: Any = None,
    ) -> None:
        self.size = size
        self.komi = komi
        self.rules = rules
        # Build one state now, so a bad size, komi or rule name fails here and not mid-search.
        self._start = GameState.new(size, rules, komi=komi)
        self.name = f"go{size}"
        if not isinstance(history, int) or history < 1:
            raise ValueError(f"history must be a positive number of positions, got {history!r}")
        self.history = history
        self.encoder = encoder
        if encoder is not None:
            c, h, w = (int(x) for x in encoder.shape)
            if (h, w) != (size, size):
                raise ValueError(f"the encoder makes {(c, h, w)} planes, the board is {size}x{size}")
            self.planes_shape: tuple[int, int, int] = (c, h, w)
        else:
            self.planes_shape = (2 * history + 1, size, size)
        self.num_actions = size * size + 1
        self.symmetries = board_symmetries(size, extra_actions=1)

    def initial_state(self) -> GoGameState:
        return GoGameState(self._start)

    # -- action encoding ----------------------------------------------------

    def action_index(self, state: GoGameState, move: Move | int) -> int:
        """A point's ``row * size + col``, or ``size * size`` for pass; resign has no index."""
        try:
            index = state.go.move_index(move)
        except IllegalMoveError as e:
            raise ValueError(str(e)) from None
        if not 0 <= index <= self.size * self.size:
            raise ValueError(f"{move!r} has no action index on a {self.size}x{self.size} board")
        return index

    def index_to_move(self, state: GoGameState, index: int) -> Move:
        index = int(index)
        n = self.size
        if not 0 <= index <= n * n:
            raise ValueError(f"Go action {index} is out of range 0..{n * n}")
        return Move.pass_turn() if index == n * n else Move.play((index // n, index % n))

    def legal_actions(self, state: GoGameState) -> np.ndarray:
        # legal_points() lists the points and then pass: the order of legal_moves().
        return np.array(state.go.legal_points(), dtype=np.int64)

    def legal_mask(self, state: GoGameState) -> np.ndarray:
        return mask_of(self.num_actions, self.legal_actions(state))

    def planes(self, state: GoGameState) -> np.ndarray:
        go = state.go
        if self.encoder is not None:
            return np.asarray(self.encoder.encode(go), dtype=np.float32)
        me = int(go.next_player)
        out = np.zeros(self.planes_shape, dtype=np.float32)
        s: GameState | None = go
        for t in range(self.history):
            if s is None:
                break
            stones = s.stones()
            out[2 * t] = stones == me
            out[2 * t + 1] = stones == 3 - me
            s = s.parent
        if me == Color.BLACK:
            out[-1] = 1.0
        return out

    @staticmethod
    def wrap(state: GameState) -> GoGameState:
        """Any engine state (e.g. one built with :meth:`GameState.from_ascii`) as a protocol state."""
        return GoGameState(state)

    def __repr__(self) -> str:
        return f"GoGame(size={self.size}, komi={self.komi!r}, rules={self.rules!r}, history={self.history})"
