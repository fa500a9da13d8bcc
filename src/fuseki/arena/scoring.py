"""Scoring a finished Go game: our own area count (:class:`OwnCount`) or a GTP referee (:class:`Referee`).

Games that end by two passes (or at the move cap) must be counted, and who
judges which stones are dead decides close games. :class:`OwnCount` removes
the stones an estimate calls dead (``none``: every stone alive, the book's and
Tromp-Taylor's convention; ``playouts``: :mod:`fuseki.go.ownership`;
``network``: the thesis's classifier, :mod:`fuseki.deadstones.scorer`) and
counts by the state's rules. :class:`Referee` asks a GTP engine (GNU Go by
default) for ``final_score`` and falls back to our count when it fails.
Every score comes with a note; a note of our count names its estimate, and
:func:`scored_by` reads it back from an SGF comment.

>>> scored_by("scored by our area count, dead stones: playouts (2 dead stones removed)")
'playouts'
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from typing import Protocol

from fuseki.arena.gtp_engines import new_game
from fuseki.engines.gtp_client import GtpClient, GtpClientError
from fuseki.go.coords import Point
from fuseki.go.sgf import parse_result
from fuseki.go.state import GameState
from fuseki.util.errors import InputError

__all__ = [
    "DEAD_STONE_CHOICES",
    "OwnCount",
    "OwnershipScorer",
    "Referee",
    "Scorer",
    "check_dead_stones",
    "scored_by",
]

#: How our own count may judge dead stones: ``none`` (every stone alive) or an
#: estimate of :data:`fuseki.deadstones.scorer.METHODS`.
DEAD_STONE_CHOICES = ("none", "playouts", "network")
#: The words of a game note that name the estimate our count used (:func:`scored_by` reads them back).
_SCORED_BY = "scored by our area count, dead stones: "
_SCORED_BY_RE = re.compile(re.escape(_SCORED_BY) + r"([a-z]+)")


class Scorer(Protocol):
    """What scores a finished game: ``score(state) -> (result, note)``; :class:`Referee` is one."""

    def score(self, state: GameState) -> tuple[str, str]: ...

    def close(self) -> None: ...


def check_dead_stones(method: str, model: str | None) -> None:
    """Raise ``ValueError`` for a dead-stone choice our count cannot use (the model file is read later)."""
    if method not in DEAD_STONE_CHOICES:
        raise InputError(f"unknown dead-stone estimate {method!r}; choose one of {', '.join(DEAD_STONE_CHOICES)}")
    if model is not None and method != "network":
        raise InputError(f"a dead-stone model applies to the network estimate only, not to {method!r}")


def scored_by(notes: str) -> str | None:
    """The dead-stone estimate named in a game's notes by :meth:`OwnCount.score`, or ``None``.

    >>> scored_by("stopped at the move cap; scored by our area count, dead stones: network (3 removed)")
    'network'
    """
    m = _SCORED_BY_RE.search(notes)
    return m.group(1) if m else None


class OwnCount:
    """Our own area count: remove the stones an estimate judges dead, then count by the state's rules.

    ``dead_stones`` is ``none`` (every stone alive: the book's and
    Tromp-Taylor's convention, and the match runner's default), ``playouts``
    or ``network`` (:func:`fuseki.deadstones.scorer.final_status_estimator`,
    with ``model``, ``playouts`` and ``seed``). The estimate is built here,
    so a bad choice or an unreadable model raises ``ValueError`` before any
    game is played. The note of :meth:`score` names the estimate, so that an
    SGF file says how its result was counted.

    >>> from fuseki.go.state import GameState
    >>> OwnCount().score(GameState.new(5, komi=0.5))
    ('W+0.5', 'scored by our area count, dead stones: none (every stone alive)')
    """

    def __init__(
        self,
        dead_stones: str = "none",
        *,
        model: str | os.PathLike[str] | None = None,
        playouts: int = 200,
        seed: int | None = 0,
    ) -> None:
        check_dead_stones(dead_stones, None if model is None else os.fspath(model))
        self.method = dead_stones
        self._status: Callable[[GameState], dict[str, list[Point]]] | None = None
        if dead_stones != "none":
            from fuseki.deadstones.scorer import final_status_estimator

            self._status = final_status_estimator(dead_stones, model=model, playouts=playouts, seed=seed)

    def dead(self, state: GameState) -> list[Point]:
        """The stones this count removes from ``state`` before counting."""
        return [] if self._status is None else list(self._status(state)["dead"])

    def note(self, removed: int) -> str:
        """The game note for a count that removed ``removed`` stones (:func:`scored_by` reads it)."""
        if self.method == "none":
            return f"{_SCORED_BY}none (every stone alive)"
        return f"{_SCORED_BY}{self.method} ({removed} dead stone{'s' if removed != 1 else ''} removed)"

    def score(self, state: GameState) -> tuple[str, str]:
        """(result, note) of ``state`` by our count."""
        dead = self.dead(state)
        return state.score(dead=dead).result, self.note(len(dead))

    def close(self) -> None:
        """Nothing to release (the scorer protocol's ``close``)."""



class OwnershipScorer(OwnCount):
    """Area count by the state's rules after removing the stones an estimate judges dead.

    ``dead_stones="playouts"`` (the default) is :func:`dead_stones` of
    :mod:`fuseki.go.ownership`: the same judgement the agents' termination
    rule (spec row B5) uses, so a bot that passed because it was ahead is
    also counted as ahead; ``seed`` makes it reproducible. ``"network"`` is
    the thesis's block classifier (``model``: a model file or name, else the
    shipped one). The note of every score names the estimate.
    """

    def __init__(
        self,
        *,
        playouts: int = 200,
        seed: int | None = 0,
        dead_stones: str = "playouts",
        model: str | os.PathLike[str] | None = None,
    ) -> None:
        if playouts < 1:
            raise InputError(f"playouts must be at least 1, got {playouts}")
        super().__init__(dead_stones, model=model, playouts=int(playouts), seed=seed)
        self.playouts = int(playouts)
        self.seed = seed


class Referee:
    """A GTP engine that scores games: it replays the moves and answers ``final_score``.

    Started on first use and again after a failure; :meth:`close` ends it.
    Handicap stones are set with GTP ``fixed_handicap``.
    """

    def __init__(self, argv: list[str], *, timeout: float = 30.0, fallback: OwnCount | None = None) -> None:
        self.argv = argv
        self.timeout = timeout
        #: Our count when the referee fails (``None``: every stone alive).
        self.fallback = fallback if fallback is not None else OwnCount()
        self._client: GtpClient | None = None

    def final_score(self, state: GameState) -> str:
        """The referee's ``final_score`` for the game that led to ``state``.

        Raises ``OSError`` or :class:`~fuseki.engines.gtp_client.GtpClientError` on trouble.
        """
        if self._client is None or not self._client.is_alive:
            self._client = GtpClient(self.argv, timeout=self.timeout)
        ref = self._client
        new_game(ref, state.size, state.rules.komi, state.handicap)
        line = list(state.ancestors())[::-1]
        for parent, child in itertools.pairwise(line):
            ref.play(parent.next_player, child.move_played().gtp(state.size))
        return ref.final_score().strip()

    def score(self, state: GameState) -> tuple[str, str]:
        """(result, note): the referee's ``final_score``, else our area count and why.

        If the referee fails or answers something that is not a result, the
        game is scored by :attr:`fallback` (our area count; every stone alive
        unless another dead-stone estimate was chosen) and the note says so
        and names the estimate; the referee is restarted for the next game.
        """
        try:
            result = self.final_score(state)
            parse_result(result)
            return result, ""
        except (OSError, GtpClientError, ValueError) as e:
            self.close()
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            result, note = self.fallback.score(state)
            return result, f"the referee failed ({first}); {note}"

    def close(self) -> None:
        if self._client is not None:
            self._client.close(timeout=1.0)
            self._client = None
