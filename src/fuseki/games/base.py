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

**Action encoding** (what AlphaZero-style searches and networks need). A
network reads a position as float32 planes and answers with one logit per
action, so every game fixes:

- ``num_actions``: the length of the policy vector, the same in every
  position. Each legal move has exactly one index in ``range(num_actions)``;
  most indices are illegal in a given position (see ``legal_mask``).
- ``action_index(state, move)`` and ``index_to_move(state, index)``: the two
  directions of that map. They take the state because an index may be
  relative to the player to move (chess and Hexapawn encode moves in the
  mover's frame, with the board turned round for Black, as AlphaZero does) or
  need the position to be decoded (a chess pawn reaching the last rank is a
  queen promotion). ``index_to_move`` raises ``ValueError`` for an index that
  is no move here; ``action_index`` for a move that has no index.
- ``legal_actions(state)``: the indices of ``state.legal_moves()``, in that
  order; ``legal_mask(state)``: the same as a boolean vector.
- ``planes(state)``: float32 ``planes_shape`` ``(C, H, W)``, always **from the
  point of view of the player to move** (own pieces first, then the
  opponent's), so one network serves both sides.
- ``symmetries``: :class:`fuseki.games.symmetry.Symmetry` values, the identity
  first, each a permutation of the plane cells and one of the action vector
  (Go and tic-tac-toe: the 8 dihedral ones; Hexapawn: the left-right mirror;
  chess: none but the identity).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from fuseki.games.symmetry import Symmetry


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
    """A game: a name, a starting position and the action encoding (see the module notes)."""

    name: str
    #: Length of the policy vector (fixed for the game).
    num_actions: int
    #: ``(C, H, W)`` of :meth:`planes`.
    planes_shape: tuple[int, int, int]
    #: The game's symmetries, the identity first.
    symmetries: tuple[Symmetry, ...]

    def initial_state(self) -> GameState:
        """The position at the start of the game."""
        ...

    def action_index(self, state: Any, move: Any) -> int:
        """The index of ``move`` in ``state`` (``ValueError`` if it has none)."""
        ...

    def index_to_move(self, state: Any, index: int) -> Any:
        """The move with action ``index`` in ``state`` (``ValueError`` if none)."""
        ...

    def legal_actions(self, state: Any) -> np.ndarray:
        """int64 indices of ``state.legal_moves()``, in the same order."""
        ...

    def legal_mask(self, state: Any) -> np.ndarray:
        """bool ``(num_actions,)``: True exactly at the legal actions."""
        ...

    def planes(self, state: Any) -> np.ndarray:
        """float32 ``planes_shape``, from the point of view of the player to move."""
        ...


def returns_of(winner: int | None) -> tuple[float, float]:
    """A two-player zero-sum game's returns from its winner: (+1, -1), (-1, +1), or (0, 0) for a draw or no result.

    Every game's ``returns`` is this of its ``winner()``; one function keeps the sign convention in one place.

    >>> returns_of(0), returns_of(1), returns_of(None)
    ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))
    """
    if winner is None:
        return (0.0, 0.0)
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def mask_of(num_actions: int, actions: np.ndarray) -> np.ndarray:
    """A boolean ``(num_actions,)`` vector that is True at ``actions``: the usual ``legal_mask``."""
    mask = np.zeros(num_actions, dtype=bool)
    mask[actions] = True
    return mask
