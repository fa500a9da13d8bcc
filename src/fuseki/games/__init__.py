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

from typing import Any

from fuseki.games.base import Game, GameState
from fuseki.games.hexapawn import Hexapawn, HexapawnMove, HexapawnState
from fuseki.games.tictactoe import TicTacToe, TicTacToeState
from fuseki.util.registry import Registry

__all__ = [
    "GAMES",
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

#: Every game by name. Go and chess are imported when built: the Go engine loads
#: Numba kernels and the chess adapter python-chess, which tic-tac-toe needs neither of.
GAMES = Registry("game")
GAMES.register("tictactoe", "fuseki.games.tictactoe:TicTacToe", "tic-tac-toe, the book's first search example (ch. 4)")
GAMES.register("hexapawn", "fuseki.games.hexapawn:Hexapawn", "Gardner's 3x3 pawn game, Klein's HexapawnZero (ch. 5)")
GAMES.register("go", "fuseki.games.go:GoGame", "Go on the Numba rules engine (options size, komi, rules)")
GAMES.register("chess", "fuseki.games.chess:ChessGame", "chess on python-chess (options fen, history)")


def available_games() -> list[str]:
    """The names :func:`make_game` accepts, sorted."""
    return GAMES.names()


def make_game(name: str, **options: Any) -> Game:
    """The game called ``name``, built with ``options`` (e.g. ``make_game("go", size=9, komi=7.5)``).

    An unknown name or an option the game does not take raises
    :class:`~fuseki.util.registry.RegistryError`, a ``ValueError``.
    """
    game: Game = GAMES.build(name.lower(), **options)
    return game
