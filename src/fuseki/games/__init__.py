"""Games behind one protocol (:mod:`fuseki.games.base`), built by name with :func:`make_game`.

- ``tictactoe``: the book's first search example (ch. 4);
- ``hexapawn``: Gardner's 3×3 pawn game, Klein's HexapawnZero (ch. 5);
- ``go``: the Go engine through an adapter (``size``, ``komi``, ``rules``);
- ``chess``: python-chess through an adapter (:mod:`fuseki.games.chess`).

>>> make_game("tictactoe").initial_state().legal_moves()
[0, 1, 2, 3, 4, 5, 6, 7, 8]
>>> make_game("go", size=5, komi=0.5).initial_state().current_player
0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fuseki.games.base import Game, GameState
from fuseki.games.hexapawn import Hexapawn, HexapawnMove, HexapawnState
from fuseki.games.tictactoe import TicTacToe, TicTacToeState

__all__ = [
    "Game",
    "GameState",
    "Hexapawn",
    "HexapawnMove",
    "HexapawnState",
    "TicTacToe",
    "TicTacToeState",
    "available_games",
    "make_game",
]


def _go(**options: Any) -> Game:
    # Imported here: the Go engine loads Numba kernels, which tic-tac-toe does not need.
    from fuseki.games.go import GoGame

    return GoGame(**options)


def _chess(**options: Any) -> Game:
    # Imported here: the chess adapter is its own module (python-chess inside).
    from fuseki.games.chess import ChessGame

    return ChessGame(**options)


_FACTORIES: dict[str, Callable[..., Game]] = {
    "tictactoe": TicTacToe,
    "hexapawn": Hexapawn,
    "go": _go,
    "chess": _chess,
}


def available_games() -> list[str]:
    """The names :func:`make_game` accepts, sorted."""
    return sorted(_FACTORIES)


def make_game(name: str, **options: Any) -> Game:
    """The game called ``name``, built with ``options`` (e.g. ``make_game("go", size=9, komi=7.5)``).

    An unknown name or an option the game does not take raises ``ValueError``.
    """
    factory = _FACTORIES.get(name.lower())
    if factory is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(available_games())}")
    try:
        return factory(**options)
    except TypeError as e:
        if options and "argument" in str(e):
            raise ValueError(f"game {name!r} cannot be built with {', '.join(sorted(options))}: {e}") from None
        raise
