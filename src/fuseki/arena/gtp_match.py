"""Matches between two GTP engines: :class:`Match`.

A match plays N games between engine A and engine B (any two GTP programs,
given as command lines), with colours alternating: A is Black in games 1, 3,
5, ... (even 0-based index). Each move an engine generates is checked with our
own :class:`~fuseki.go.state.GameState` before the other engine sees it. An
engine that crashes, hangs past the move time, answers ``?`` to ``genmove``,
or answers with a vertex that does not parse or an illegal move loses that
game by forfeit (``RE[B+F]``/``RE[W+F]``, the reason in the game comment); it
is restarted for the next game and the match goes on.

Finished games (two passes) are scored by a referee engine (GNU Go by
default) that replays the moves and answers ``final_score``; without a
referee, or when the referee fails, our own area count decides
(:class:`OwnCount`). Which stones our count removes as dead is a setting,
``dead_stones``: ``none`` (every stone alive, the default, as before),
``playouts`` (:mod:`fuseki.go.ownership`) or ``network`` (the thesis's
classifier, :mod:`fuseki.deadstones.scorer`, spec T4). A game scored by our
count says so, and by which estimate, in a ``note:`` line of its SGF comment
and in the ``dead_stones`` field of its JSON result.

Each game is written as ``game_0001.sgf`` ... in the SGF folder, atomically,
next to a ``match.json`` with the settings. Running the same match again with
the same folder reuses the finished games and plays only the missing ones.

The result is a :class:`MatchSummary`: wins, draws, forfeits and A's win rate
with a Wilson 95 % interval, draws counting half a win.

The pieces of one game are public for other drivers (the self-play corpus
generator uses them): :class:`Engine` (a restartable GTP engine whose
failures raise :class:`Forfeit`), :func:`play_gtp_game` (the checked move
loop and the scoring) and :class:`Referee` (``final_score`` of a replayed
game).

>>> [round(x, 4) for x in wilson_interval(5, 10)]
[0.2366, 0.7634]
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import math
import os
import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from fuseki.go.coords import CoordinateError, Point
from fuseki.go.rules import Rules, Scoring
from fuseki.go.sgf import GameRecord, SgfError, load_sgf, parse_result, save_sgf
from fuseki.go.state import Color, GameState, IllegalMoveError, Move
from fuseki.engines.programs import program_exists, resolve_command
from fuseki.util.errors import FusekiError, InputError
from fuseki.util.stats import wilson_interval
from fuseki.engines.gtp_client import (
    GtpClient,
    GtpClientError,
    GtpEngineDied,
    GtpError,
    GtpProtocolError,
    GtpTimeout,
)

__all__ = [
    "settings_diffs",
    "DEAD_STONE_CHOICES",
    "DEFAULT_REFEREE",
    "Engine",
    "Forfeit",
    "GameOutcome",
    "Match",
    "MatchSettings",
    "MatchSettingsMismatch",
    "MatchSummary",
    "OwnCount",
    "PlayedGame",
    "Referee",
    "parse_result",
    "play_gtp_game",
    "program_exists",
    "resolve_command",
    "scored_by",
    "wilson_interval",
]

#: The referee when none is given. ``--chinese-rules`` is added for area scoring.
DEFAULT_REFEREE = "gnugo --mode gtp"
SETTINGS_FILE = "match.json"
#: How our own count may judge dead stones: ``none`` (every stone alive) or an
#: estimate of :data:`fuseki.deadstones.scorer.METHODS`.
DEAD_STONE_CHOICES = ("none", "playouts", "network")
#: The words of a game note that name the estimate our count used (:func:`scored_by` reads them back).
_SCORED_BY = "scored by our area count, dead stones: "
_SCORED_BY_RE = re.compile(re.escape(_SCORED_BY) + r"([a-z]+)")


def settings_diffs(cls: type, theirs: dict[str, Any], mine: dict[str, Any]) -> list[str]:
    """``"key: X there, Y now"`` for every setting of a saved run that differs from this run's.

    ``cls`` is the settings dataclass: a file written before a setting existed
    holds that setting's default, so an old folder still resumes. Where the
    old behaviour differs from today's default, ``cls.LEGACY`` names the value
    such a file stands for (``clock``: old runs always sent a clock).
    """
    defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    defaults.update(getattr(cls, "LEGACY", {}))
    return [
        f"{key}: {theirs.get(key, defaults.get(key))!r} there, {value!r} now"
        for key, value in mine.items()
        if theirs.get(key, defaults.get(key)) != value
    ]


class MatchSettingsMismatch(FusekiError, ValueError):
    """The SGF folder holds a match with other settings; resuming it would mix two matches."""


# ---- small pure helpers ---------------------------------------------------------


# ---- settings, outcomes, summary -------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MatchSettings:
    """Everything that must stay the same for a match to be resumed (not the number of games)."""

    engine_a: str
    engine_b: str
    size: int = 9
    komi: float = 7.5
    handicap: int = 0
    move_time: float = 10.0
    max_moves: int | None = None  #: ``None``: three times the board's area
    rules: str = "chinese"
    referee: str | None = (
        DEFAULT_REFEREE  #: ``None``: our own area count (:class:`OwnCount`)
    )
    seed: int = 0
    #: Which stones our own count removes: ``none``, ``playouts`` or ``network`` (:data:`DEAD_STONE_CHOICES`).
    dead_stones: str = "none"
    dead_stones_model: str | None = None  #: ``network`` only: a model file or name; ``None``: the shipped one
    #: Send ``time_settings 0 T 1`` at the start of each game. Off by default:
    #: GNU Go with a clock ignores ``--level`` and thinks as long as the clock
    #: allows (its level-1 moves become its level-10 moves, docs/match.md), so
    #: a match "against level 1" would not be one. ``move_time`` bounds each
    #: ``genmove`` either way.
    clock: bool = False

    #: Match folders written before ``clock`` existed were played with a clock.
    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}

    def __post_init__(self) -> None:
        from fuseki.go.coords import check_size
        from fuseki.go.handicap import max_fixed_handicap

        check_size(self.size)
        Rules.preset(self.rules)  # ValueError for an unknown preset
        if not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi}")
        if self.handicap and not 2 <= self.handicap <= max_fixed_handicap(self.size):
            raise InputError(
                f"fixed handicap on {self.size}x{self.size} must be from 2 to "
                f"{max_fixed_handicap(self.size)} stones (or 0), got {self.handicap}"
            )
        if not (math.isfinite(self.move_time) and self.move_time > 0):
            raise InputError(
                f"move time must be a positive number of seconds, got {self.move_time}"
            )
        if self.max_moves is not None and self.max_moves < 1:
            raise InputError(f"max moves must be at least 1, got {self.max_moves}")
        check_dead_stones(self.dead_stones, self.dead_stones_model)

    @property
    def move_cap(self) -> int:
        return (
            self.max_moves if self.max_moves is not None else 3 * self.size * self.size
        )

    @property
    def game_rules(self) -> Rules:
        return Rules.preset(self.rules).replace(komi=float(self.komi))

    def referee_argv(self) -> list[str] | None:
        """The referee's command, with GNU Go's ``--chinese-rules`` for area scoring when it is the default."""
        if self.referee is None:
            return None
        argv = resolve_command(self.referee)
        if self.referee == DEFAULT_REFEREE and self.game_rules.scoring is Scoring.AREA:
            argv.append("--chinese-rules")
        return argv

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSettings:
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{**cls.LEGACY, **{k: v for k, v in data.items() if k in fields}})


@dataclasses.dataclass(frozen=True)
class GameOutcome:
    """One game of a match, from A's and B's point of view."""

    number: int  #: 1-based
    a_color: Color  #: A's colour in this game
    result: str  #: as in the SGF ``RE``: ``"B+3.5"``, ``"W+R"``, ``"B+F"``, ``"0"``
    winner: str | None  #: ``"A"``, ``"B"`` or ``None`` for a draw
    kind: str  #: ``"score"``, ``"resign"``, ``"forfeit"``, ``"draw"``
    reason: str = (
        ""  #: for a forfeit: what the loser did; else notes (move cap, referee trouble)
    )
    moves: int = 0
    reused: bool = False  #: read back from an SGF file of an earlier run
    #: The dead-stone estimate of our own count when it scored the game
    #: (``none``, ``playouts``, ``network``); ``None``: a referee scored it, or nobody (resign, forfeit).
    dead_stones: str | None = None

    @property
    def forfeit(self) -> bool:
        return self.kind == "forfeit"

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.number,
            "a_color": self.a_color.name.lower(),
            "result": self.result,
            "winner": self.winner,
            "kind": self.kind,
            "reason": self.reason,
            "moves": self.moves,
            "reused": self.reused,
            "dead_stones": self.dead_stones,
        }


@dataclasses.dataclass(frozen=True)
class MatchSummary:
    """The tally of a match. Forfeits count as wins for the other engine, draws half for each."""

    outcomes: tuple[GameOutcome, ...]
    engine_a: str = "A"
    engine_b: str = "B"

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def a_wins(self) -> int:
        return sum(o.winner == "A" for o in self.outcomes)

    @property
    def b_wins(self) -> int:
        return sum(o.winner == "B" for o in self.outcomes)

    @property
    def draws(self) -> int:
        return sum(o.winner is None for o in self.outcomes)

    @property
    def forfeits(self) -> int:
        return sum(o.forfeit for o in self.outcomes)

    @property
    def a_win_rate(self) -> float | None:
        """A's score per game (draws half); ``None`` with no games."""
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else None

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.a_wins + 0.5 * self.draws, self.games)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object; the first seven keys are fixed, in this order."""
        lo, hi = self.ci95
        rate = self.a_win_rate
        return {
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "forfeits": self.forfeits,
            "a_win_rate": None if rate is None else round(rate, 6),
            "ci95": [round(lo, 6), round(hi, 6)],
            "a_forfeits": sum(o.forfeit and o.winner == "B" for o in self.outcomes),
            "b_forfeits": sum(o.forfeit and o.winner == "A" for o in self.outcomes),
            "engine_a": self.engine_a,
            "engine_b": self.engine_b,
            "results": [o.to_dict() for o in self.outcomes],
        }

    def describe(self) -> str:
        """Two human lines for the end of a match."""
        lines = [
            (
                f"A = {self.engine_a}, B = {self.engine_b}: {self.games} games, A {self.a_wins} wins, "
                f"B {self.b_wins} wins, {self.draws} draws ({self.forfeits} by forfeit)"
            )
        ]
        if self.games:
            lo, hi = self.ci95
            lines.append(
                f"A's win rate {100 * (self.a_win_rate or 0):.1f} % "
                f"(Wilson 95 % interval {100 * lo:.1f}-{100 * hi:.1f} %; a draw counts half a win)"
            )
        return "\n".join(lines)


# ---- engines ---------------------------------------------------------------------


class Forfeit(Exception):
    """Raised inside a game: ``color`` loses by forfeit for ``reason``."""

    def __init__(self, color: Color, reason: str) -> None:
        super().__init__(reason)
        self.color = color
        self.reason = reason


def _describe_failure(e: GtpClientError) -> str:
    if isinstance(e, GtpTimeout):
        return f"no answer to {e.command!r} within {e.timeout:g} s (hung; killed)"
    if isinstance(e, GtpEngineDied):
        first = str(e).splitlines()[0]
        return f"crashed: {first}"
    if isinstance(e, GtpProtocolError):
        return f"broke the protocol: {e}"
    if isinstance(e, GtpError):
        return f"answered {e.command!r} with a failure: ? {e.message}"
    return f"stopped answering: {e}"


def _new_game(gtp: GtpClient, size: int, komi: float, handicap: int) -> None:
    """``boardsize``, ``clear_board``, ``komi`` and, with a handicap, ``fixed_handicap``."""
    gtp.boardsize(size)
    gtp.clear_board()
    gtp.komi(komi)
    if handicap:
        gtp.send(f"fixed_handicap {handicap}")


class Engine:
    """One side of a game: its command line and, while it runs, its client.

    ``label`` names it in forfeit reasons (``"A"``, ``"B"``, ``"black"``).
    ``setup_timeout`` bounds every command but ``genmove`` (start-up included).
    """

    def __init__(self, label: str, argv: list[str], setup_timeout: float) -> None:
        self.label = label  # "A", "B", "black", ...
        self.argv = argv
        self.setup_timeout = setup_timeout
        self.client: GtpClient | None = None
        self.display_name: str | None = (
            None  # "GNU Go 3.8", learnt on the first start that answers
        )
        self.starts = 0

    def ensure(self) -> GtpClient:
        """The running client; starts (or restarts) the engine when needed. OSError if it cannot start."""
        if self.client is None or not self.client.is_alive:
            self.stop()
            self.client = GtpClient(self.argv, timeout=self.setup_timeout)
            self.starts += 1
            if self.display_name is None:
                try:
                    name = self.client.name().strip()
                    try:
                        version = self.client.version().strip()
                    except GtpError:
                        version = ""
                    self.display_name = f"{name} {version}".strip() or shlex.join(
                        self.argv
                    )
                except GtpClientError:
                    pass  # the game will find out; the name stays unknown for now
        return self.client

    @property
    def name(self) -> str:
        return self.display_name or shlex.join(self.argv)

    def stop(self) -> None:
        if self.client is not None:
            self.client.close(timeout=1.0)
            self.client = None

    def call(self, color: Color, what: Callable[[GtpClient], Any]) -> Any:
        """Run ``what`` on the (started) engine; any failure is a :class:`Forfeit` by ``color``."""
        try:
            client = self.ensure()
        except OSError as e:
            raise Forfeit(color, f"could not be started: {e}") from None
        try:
            return what(client)
        except GtpClientError as e:
            raise Forfeit(color, _describe_failure(e)) from None

    def setup(
        self,
        color: Color,
        *,
        size: int,
        komi: float,
        move_time: float,
        handicap: int = 0,
        clock: bool = False,
    ) -> None:
        """Start a game: board size, empty board, komi, fixed handicap, and with ``clock`` ``time_settings 0 T 1``.

        A failure is a :class:`Forfeit` by ``color``; an engine that does not
        know ``time_settings`` just ignores the clock. Without ``clock`` no time
        command is sent, so an engine plays at its own fixed strength (see
        :attr:`MatchSettings.clock` for why that matters with GNU Go).
        """

        def setup(gtp: GtpClient) -> None:
            _new_game(gtp, size, komi, handicap)
            if not clock:
                return
            try:  # optional: an engine that does not know it just ignores the clock
                gtp.send(f"time_settings 0 {max(1, math.ceil(move_time))} 1")
            except GtpError:
                pass

        self.call(color, setup)


# ---- one game ----------------------------------------------------------------------


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
        _new_game(ref, state.size, state.rules.komi, state.handicap)
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


@dataclasses.dataclass(frozen=True)
class PlayedGame:
    """What :func:`play_gtp_game` returns."""

    state: GameState  #: the final position (its history holds every move)
    result: str  #: ``"B+3.5"``, ``"W+R"``, ``"0"``
    kind: str  #: ``"score"``, ``"resign"`` or ``"draw"``
    notes: tuple[str, ...] = ()  #: the move cap, referee trouble


def play_gtp_game(
    engines_by_color: Mapping[Color, Engine],
    state: GameState,
    *,
    move_cap: int,
    move_time: float,
    referee: Referee | None = None,
    own_count: OwnCount | None = None,
) -> PlayedGame:
    """Alternate genmove/play from ``state`` until two passes, a resignation or the move cap.

    The engines must be set up (:meth:`Engine.setup`) and know the moves that
    ``state`` already holds (an opening, sent with ``play``). Each generated
    move is checked on our ``GameState`` before the other engine gets it. A
    game that did not end by resignation is scored by ``referee`` (``None``:
    ``own_count``, our area count, by default with every stone alive). ``genmove`` may take
    ``move_time`` seconds. Raises :class:`Forfeit` for the first engine that
    fails; the caller decides what that means for the game.
    """
    size = state.size
    notes: list[str] = []
    while not state.is_over() and state.move_number < move_cap:
        color = state.next_player
        mover, other = engines_by_color[color], engines_by_color[color.other]
        reply = mover.call(
            color, lambda gtp, c=color: gtp.genmove(c, timeout=move_time)
        )
        if reply == "resign":
            state = state.play(Move.resign())
            return PlayedGame(state, state.result(), "resign", tuple(notes))
        try:
            move = Move.from_gtp(reply, size)
        except (CoordinateError, ValueError) as e:
            raise Forfeit(
                color, f"answered genmove with {reply[:40]!r}: {e}"
            ) from None
        try:
            state = state.play(move)
        except IllegalMoveError as e:
            raise Forfeit(
                color,
                f"played the illegal move {reply} at move {state.move_number + 1}: {e.reason}",
            ) from None
        vertex = move.gtp(size)
        try:
            other.call(color.other, lambda gtp, c=color, v=vertex: gtp.play(c, v))
        except Forfeit as f:
            raise Forfeit(
                f.color, f"{f.reason} (after the opponent's legal move {vertex})"
            ) from None
    if not state.is_over():
        notes.append(
            f"stopped at the move cap ({move_cap} moves) and scored as it stood"
        )
    if referee is None:
        result, note = (own_count if own_count is not None else OwnCount()).score(state)
    else:
        result, note = referee.score(state)
    if note:
        notes.append(note)
    winner, _ = parse_result(result)
    kind = "draw" if winner is None else "score"
    return PlayedGame(state, result, kind, tuple(notes))


# ---- the match -------------------------------------------------------------------


class Match:
    """A match between the engines of ``settings``; :meth:`run` plays it.

    ``sgf_dir`` (optional) receives ``match.json`` and one SGF per game, and
    makes the match resumable. ``progress`` is called with one line per game.
    ``setup_timeout`` bounds every command but ``genmove`` (engine start-up
    included).
    """

    def __init__(
        self,
        settings: MatchSettings,
        sgf_dir: str | os.PathLike[str] | None = None,
        *,
        progress: Callable[[str], None] | None = None,
        setup_timeout: float = 30.0,
    ) -> None:
        self.settings = settings
        self.sgf_dir = Path(sgf_dir) if sgf_dir is not None else None
        self.progress = progress or (lambda line: None)
        self.setup_timeout = setup_timeout
        self.engines = {
            "A": Engine("A", resolve_command(settings.engine_a), setup_timeout),
            "B": Engine("B", resolve_command(settings.engine_b), setup_timeout),
        }
        self.referee_argv = settings.referee_argv()
        #: Our count, for games without a referee or whose referee failed;
        #: built now so that an unreadable model is an error before any game.
        self.own_count = OwnCount(settings.dead_stones, model=settings.dead_stones_model)
        self.referee = (
            None
            if self.referee_argv is None
            else Referee(self.referee_argv, timeout=setup_timeout, fallback=self.own_count)
        )

    # ---- set-up and resume ---------------------------------------------------

    def check(self) -> None:
        """Raise ``FileNotFoundError`` for a program that does not exist (before any game)."""
        for label, engine in self.engines.items():
            if not program_exists(engine.argv):
                raise FileNotFoundError(
                    f"engine {label}: program {engine.argv[0]!r} not found"
                )
        if self.referee_argv is not None and not program_exists(self.referee_argv):
            raise FileNotFoundError(
                f"referee: program {self.referee_argv[0]!r} not found (use --referee none for our own count)"
            )

    def prepare_dir(self) -> None:
        """Create the SGF folder and its ``match.json``, or check it against ours.

        Raises :class:`MatchSettingsMismatch` when the folder holds another match.
        """
        if self.sgf_dir is None:
            return
        self.sgf_dir.mkdir(parents=True, exist_ok=True)
        path = self.sgf_dir / SETTINGS_FILE
        mine = self.settings.to_dict()
        if path.exists():
            try:
                theirs = json.loads(path.read_text(encoding="utf-8")).get(
                    "settings", {}
                )
            except (ValueError, AttributeError) as e:
                raise MatchSettingsMismatch(
                    f"{path} is not a match settings file ({e})"
                ) from None
            diffs = settings_diffs(MatchSettings, theirs, mine)
            if diffs:
                raise MatchSettingsMismatch(
                    f"{self.sgf_dir} holds a match with other settings ({'; '.join(diffs)}); "
                    "use another --sgf-dir or the same settings"
                )
            return
        data = {"fuseki_match": 1, "settings": mine}
        save_sgf(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))

    def game_path(self, number: int) -> Path | None:
        return None if self.sgf_dir is None else self.sgf_dir / f"game_{number:04d}.sgf"

    def _reuse(self, number: int) -> GameOutcome | None:
        """The outcome stored in an earlier run's SGF for this game, if it is finished and readable."""
        path = self.game_path(number)
        if path is None or not path.exists():
            return None
        try:
            record = load_sgf(path)
            winner, kind = parse_result(record.result)
        except (OSError, SgfError, ValueError):
            return None  # unreadable or unfinished: play it again
        a_color = self.a_color(number)
        reason = ""
        for line in record.comment.splitlines():
            if line.startswith(("forfeit: ", "note: ")):
                reason = line.split(": ", 1)[1]
                break
        return GameOutcome(
            number,
            a_color,
            record.result,
            self._side(winner, a_color),
            kind,
            reason,
            len(record.moves),
            reused=True,
            dead_stones=scored_by(record.comment),
        )

    @staticmethod
    def a_color(number: int) -> Color:
        """A is Black in games 1, 3, 5, ... (even 0-based index)."""
        return Color.BLACK if (number - 1) % 2 == 0 else Color.WHITE

    @staticmethod
    def _side(winner: Color | None, a_color: Color) -> str | None:
        if winner is None:
            return None
        return "A" if winner is a_color else "B"

    # ---- running ---------------------------------------------------------------

    def run(self, games: int) -> MatchSummary:
        """Play (or reuse) games 1 to ``games`` and return the tally."""
        if games < 0:
            raise InputError(f"number of games must not be negative, got {games}")
        self.prepare_dir()
        outcomes: list[GameOutcome] = []
        try:
            for number in range(1, games + 1):
                outcome = self._reuse(number)
                if outcome is None:
                    outcome = self.play_game(number)
                outcomes.append(outcome)
                self._report(outcome, outcomes, games)
        finally:
            self.close()
        return MatchSummary(
            tuple(outcomes), self.engines["A"].name, self.engines["B"].name
        )

    def _report(
        self, outcome: GameOutcome, outcomes: list[GameOutcome], games: int
    ) -> None:
        a = sum(o.winner == "A" for o in outcomes)
        b = sum(o.winner == "B" for o in outcomes)
        d = sum(o.winner is None for o in outcomes)
        colours = (
            "A black, B white" if outcome.a_color is Color.BLACK else "B black, A white"
        )
        who = "draw" if outcome.winner is None else f"{outcome.winner} wins"
        extra = f" ({outcome.reason})" if outcome.forfeit and outcome.reason else ""
        reused = " [from an earlier run]" if outcome.reused else ""
        self.progress(
            f"game {outcome.number}/{games}: {colours}: {outcome.result}, {who}{extra}{reused}"
            f" | A {a} - B {b}" + (f" - draws {d}" if d else "")
        )

    def close(self) -> None:
        for engine in self.engines.values():
            engine.stop()
        if self.referee is not None:
            self.referee.close()

    def play_game(self, number: int) -> GameOutcome:
        """Play game ``number`` (1-based), write its SGF, and return its outcome."""
        s = self.settings
        a_color = self.a_color(number)
        by_color = {
            a_color: self.engines["A"],
            a_color.other: self.engines["B"],
        }
        state = GameState.new(s.size, s.game_rules, handicap=s.handicap)
        notes: tuple[str, ...] = ()
        result = ""
        reason = ""
        kind = ""
        forfeited: Color | None = None
        try:
            for color in (Color.BLACK, Color.WHITE):
                by_color[color].setup(
                    color,
                    size=s.size,
                    komi=s.komi,
                    move_time=s.move_time,
                    handicap=s.handicap,
                    clock=s.clock,
                )
            game = play_gtp_game(
                by_color,
                state,
                move_cap=s.move_cap,
                move_time=s.move_time,
                referee=self.referee,
                own_count=self.own_count,
            )
            state, result, kind, notes = game.state, game.result, game.kind, game.notes
        except Forfeit as f:
            forfeited = f.color
            reason = f"{f.color.name.lower()} ({by_color[f.color].label}: {by_color[f.color].name}) {f.reason}"
            result = f"{f.color.other.letter}+F"
            kind = "forfeit"
            by_color[f.color].stop()  # restarted, fresh, for the next game
        winner, _ = parse_result(result)
        comment_lines = [
            (
                f"fuseki match game {number}: A = {self.engines['A'].name} ({a_color.name.lower()}), "
                f"B = {self.engines['B'].name} ({a_color.other.name.lower()})"
            )
        ]
        if forfeited is not None:
            comment_lines.append(f"forfeit: {reason}")
        comment_lines += [f"note: {n}" for n in notes]
        record = GameRecord.from_state(
            state,
            black=by_color[Color.BLACK].name,
            white=by_color[Color.WHITE].name,
            result=result,
            date=datetime.date.today().isoformat(),
        )
        record.comment = "\n".join(comment_lines)
        record.event = "fuseki match"
        record.game_name = f"game {number}"
        path = self.game_path(number)
        if path is not None:
            save_sgf(path, record)
        return GameOutcome(
            number,
            a_color,
            result,
            self._side(winner, a_color),
            kind,
            reason if forfeited is not None else "; ".join(notes),
            len(record.moves),
            dead_stones=None if forfeited is not None else scored_by("\n".join(notes)),
        )
