"""The ``Game`` protocol: what every search in :mod:`fuseki.search` may rely on.

Why a protocol and not a base class: Go's :class:`fuseki.go.GameState` already
exists with a richer interface, and chess comes from python-chess; each game
gets a thin adapter instead of being forced into one inheritance tree
(OpenSpiel and pgx do the same). Searches see only what is below.

Players are numbered 0 (the first to move: Black, White in chess, X in
tic-tac-toe) and 1. Values and returns are always from a stated player's point
of view, never "from the side to move" implicitly, because that convention is
where most negamax sign bugs come from.

A state is immutable: ``play`` returns a new state. ``key`` is hashable and
equal for equal positions (same side to move, same repetition-relevant
history where the game cares), so transposition tables can be keyed by it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class GameState(Protocol):
    """One position of a two-player, zero-sum, perfect-information game."""

    @property
    def current_player(self) -> int:
        """0 or 1: the player to move (meaningless once the game is over)."""
        ...

    @property
    def key(self) -> Hashable:
        """A hashable identity of the position (for transposition tables)."""
        ...

    def legal_moves(self) -> Sequence[Any]:
        """The legal moves, in a fixed, deterministic order (empty when over)."""
        ...

    def play(self, move: Any) -> "GameState":
        """The state after ``move``; raises ``ValueError`` for an illegal move."""
        ...

    def is_over(self) -> bool:
        """True when the game has ended."""
        ...

    def winner(self) -> int | None:
        """0 or 1 for a finished game with a winner; None for a draw or a game in progress."""
        ...

    def returns(self) -> tuple[float, float]:
        """Final reward per player: (+1, -1), (-1, +1) or (0, 0); (0, 0) while in progress."""
        ...


@runtime_checkable
class Game(Protocol):
    """A game: a name and a starting position."""

    name: str

    def initial_state(self) -> GameState:
        """The position at the start of the game."""
        ...
