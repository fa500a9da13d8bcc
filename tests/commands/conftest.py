"""Helpers for driving terminal commands with scripted input."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable

import pytest

from fuseki.go.state import GameState, Move


class ScriptedBot:
    """An agent that plays the GTP moves it was given, then passes.

    Lets a test put the human in front of an exact position (a ko just taken,
    a bot pass) instead of whatever a random bot happens to do.
    """

    name = "scripted"

    def __init__(self, moves: Iterable[str] = ()) -> None:
        self.moves = list(moves)

    def select_move(self, state: GameState) -> Move:
        if self.moves:
            return Move.from_gtp(self.moves.pop(0), state.size)
        return Move.pass_turn()


@pytest.fixture
def feed_stdin(monkeypatch: pytest.MonkeyPatch) -> Callable[[Iterable[str]], None]:
    """Replace ``sys.stdin`` with the given lines (``input()`` then reads them)."""

    def feed(lines: Iterable[str]) -> None:
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))

    return feed


@pytest.fixture
def scripted_bot() -> type[ScriptedBot]:
    """The :class:`ScriptedBot` class (a fixture, so tests need not import conftest)."""
    return ScriptedBot
