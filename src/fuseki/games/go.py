"""Go behind the :mod:`fuseki.games.base` protocol: a thin adapter over :class:`fuseki.go.GameState`.

The rules engine keeps its own, richer interface (colours, int move indices,
scoring, SGF); searches written against the generic protocol see Go through
this adapter instead. Player 0 is Black, player 1 White. Legal moves are
:class:`fuseki.go.Move` values, every legal point and then pass; resignation
is left out, because a search that may resign at any node only wastes nodes.

The wrapped state is :attr:`GoGameState.go`, so a Go agent can hand the
result of a generic search straight back to a frontend.

>>> game = GoGame(size=5, komi=0.5)
>>> s = game.initial_state()
>>> s.current_player, len(s.legal_moves())
(0, 26)
>>> s.play(s.legal_moves()[0]).go.move_number
1
"""

from __future__ import annotations

from collections.abc import Hashable

from fuseki.go.rules import Rules, Scoring
from fuseki.go.state import Color, GameState, Move


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
        w = self.winner()
        if w is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

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

    def __init__(self, size: int = 9, komi: float | None = None, rules: Rules | str | None = None) -> None:
        self.size = size
        self.komi = komi
        self.rules = rules
        # Build one state now, so a bad size, komi or rule name fails here and not mid-search.
        self._start = GameState.new(size, rules, komi=komi)
        self.name = f"go{size}"

    def initial_state(self) -> GoGameState:
        return GoGameState(self._start)

    @staticmethod
    def wrap(state: GameState) -> GoGameState:
        """Any engine state (e.g. one built with :meth:`GameState.from_ascii`) as a protocol state."""
        return GoGameState(state)

    def __repr__(self) -> str:
        return f"GoGame(size={self.size}, komi={self.komi!r}, rules={self.rules!r})"
