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
(:class:`~fuseki.arena.scoring.OwnCount`). Which stones our count removes as dead is a setting,
``dead_stones``: ``none`` (every stone alive, the default, as before),
``playouts`` (:mod:`fuseki.go.ownership`) or ``network`` (the thesis's
classifier, :mod:`fuseki.deadstones.scorer`, spec T4). A game scored by our
count says so, and by which estimate, in a ``note:`` line of its SGF comment
and in the ``dead_stones`` field of its JSON result.

Each game is written as ``game_0001.sgf`` ... in the SGF folder, atomically,
next to a ``match.json`` with the settings. Running the same match again with
the same folder reuses the finished games and plays only the missing ones;
a second match on a folder that a match is playing into is refused
(:mod:`fuseki.util.runs`).

``run(games, workers=N)`` plays N games at a time, as cutechess-cli's
``-concurrency`` does: each in its own thread with its own two engines and
referee (a 19x19 match against GNU Go is GNU Go's thinking time, hours on one
core). With ``{seed}`` in both commands every game restarts its engines, so
the games do not depend on N; a match may resume at another N. A match cut
short (Ctrl-C, an error) writes no half-played game: the next run plays it.

The result is a :class:`~fuseki.arena.outcome.MatchSummary`: wins, draws, forfeits and A's win rate
with a Wilson 95 % interval, draws counting half a win.

The pieces of one game are public for other drivers (the self-play corpus
generator uses them): :class:`~fuseki.arena.gtp_engines.Engine` (a
restartable GTP engine whose failures raise
:class:`~fuseki.arena.outcome.Forfeit`), :func:`play_gtp_game` (the checked
move loop and the scoring) and :class:`~fuseki.arena.scoring.Referee`
(``final_score`` of a replayed game).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from fuseki.arena.clock import GRACE, GameClock, format_time_control, parse_time_control
from fuseki.arena.gtp_engines import Engine
from fuseki.arena.outcome import (
    Forfeit,
    GameOutcome,
    MatchSummary,
    PlayedGame,
    TimeLoss,
    a_color,
    game_progress,
    moves_digest,
    side_of,
)
from fuseki.arena.records import game_file, games_folder, locked, prepare_games_folder, read_finished
from fuseki.arena.scoring import OwnCount, Referee, check_dead_stones, scored_by
from fuseki.engines.gtp_client import GtpClient, GtpError, GtpTimeout
from fuseki.engines.programs import program_exists, resolve_command
from fuseki.go.coords import CoordinateError, check_size
from fuseki.go.handicap import max_fixed_handicap
from fuseki.go.rules import Rules, Scoring
from fuseki.go.sgf import GameRecord, parse_result, save_sgf
from fuseki.go.state import Color, GameState, IllegalMoveError, Move
from fuseki.util.progress import ProgressCallback
from fuseki.util.runs import ChunkPlan, RunMismatch
from fuseki.util.seeds import derive_seed
from fuseki.util.slots import play_in_slots
from fuseki.util.errors import InputError

__all__ = [
    "DEFAULT_REFEREE",
    "SETTINGS_FILE",
    "Match",
    "MatchSettings",
    "MatchSettingsMismatch",
    "play_gtp_game",
]

#: The referee when none is given. ``--chinese-rules`` is added for area scoring.
DEFAULT_REFEREE = "gnugo --mode gtp"
#: The settings file in a match's SGF folder.
SETTINGS_FILE = "match.json"


#: The SGF folder holds a match with other settings; resuming it would mix two matches (the one run-folder mismatch).
MatchSettingsMismatch = RunMismatch



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
        DEFAULT_REFEREE  #: ``None``: our own area count (:class:`~fuseki.arena.scoring.OwnCount`)
    )
    #: Recorded; and the root of the per-game seeds that fill ``{seed}`` in an
    #: engine's command (:meth:`Match.game_seed`).
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
    #: A real clock (:mod:`fuseki.arena.clock`): ``"canadian 0 5 1"``, ``"byoyomi 600 30 5"``,
    #: ``"absolute 300"``. Both engines are told it and get ``time_left`` before each move; a move
    #: that ends after the flag fell loses on time. ``None``: no clock (``move_time`` is the timeout).
    time_control: str | None = None

    #: Match folders written before ``clock`` existed were played with a clock.
    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}

    def __post_init__(self) -> None:
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
        if self.time_control is not None:
            canonical = format_time_control(parse_time_control(self.time_control))
            if canonical != self.time_control:
                raise InputError(f"time control {self.time_control!r}: write it as {canonical!r}")
            if self.clock:
                raise InputError("a real clock (time control) and --clock exclude each other")

    @property
    def game_clock(self) -> GameClock | None:
        """A fresh clock for one game, or ``None`` without a time control."""
        return None if self.time_control is None else GameClock(parse_time_control(self.time_control))

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


def play_gtp_game(
    engines_by_color: Mapping[Color, Engine],
    state: GameState,
    *,
    move_cap: int,
    move_time: float,
    referee: Referee | None = None,
    own_count: OwnCount | None = None,
    clock: GameClock | None = None,
) -> PlayedGame:
    """Alternate genmove/play from ``state`` until two passes, a resignation or the move cap.

    The engines must be set up (:meth:`~fuseki.arena.gtp_engines.Engine.setup`) and know the moves that
    ``state`` already holds (an opening, sent with ``play``). Each generated
    move is checked on our ``GameState`` before the other engine gets it. A
    game that did not end by resignation is scored by ``referee`` (``None``:
    ``own_count``, our area count, by default with every stone alive). ``genmove`` may take
    ``move_time`` seconds; with a ``clock``, as long as the mover's clock allows, each move is
    charged to it, and a late move raises :class:`~fuseki.arena.outcome.TimeLoss`. Raises
    :class:`~fuseki.arena.outcome.Forfeit` for the first engine that fails; the caller decides
    what that means for the game.
    """
    size = state.size
    notes: list[str] = []
    while not state.is_over() and state.move_number < move_cap:
        color = state.next_player
        mover, other = engines_by_color[color], engines_by_color[color.other]
        if clock is None:
            reply = mover.call(
                color, lambda gtp, c=color: gtp.genmove(c, timeout=move_time)
            )
        else:
            try:
                reply = _clocked_genmove(mover, color, clock)
            except TimeLoss as loss:
                loss.state = state  # the game so far goes into the record
                raise
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


def _clocked_genmove(engine: Engine, color: Color, clock: GameClock) -> str:
    """``time_left`` for both players, then ``genmove`` timed as a server times it; the move is charged."""
    flag = clock.until_flag(color)

    def ask(gtp: GtpClient) -> tuple[str, float]:
        for c in (Color.BLACK, Color.WHITE):
            try:
                gtp.send(clock.time_left_command(c))
            except GtpError:
                pass  # an engine without time_left keeps its own clock
        start = time.perf_counter()
        try:
            reply = gtp.genmove(color, timeout=flag + GRACE)
        except GtpTimeout:
            raise TimeLoss(
                color, f"no move {flag + GRACE:.1f} s after genmove with {flag:.2f} s on its clock", killed=True
            ) from None
        return reply, time.perf_counter() - start

    reply, seconds = engine.call(color, ask)
    clock.record(color, seconds)
    if clock.lost(color):
        raise TimeLoss(color, f"took {seconds:.2f} s for move {len(clock.moves)} with {flag:.2f} s on its clock")
    return reply


# ---- the match -------------------------------------------------------------------


class Match:
    """A match between the engines of ``settings``; :meth:`run` plays it.

    ``sgf_dir`` (optional) receives ``match.json`` and one SGF per game, and
    makes the match resumable. ``progress`` gets a :class:`~fuseki.util.progress.Progress` per game.
    ``setup_timeout`` bounds every command but ``genmove`` (engine start-up
    included).
    """

    def __init__(
        self,
        settings: MatchSettings,
        sgf_dir: str | os.PathLike[str] | None = None,
        *,
        progress: ProgressCallback | None = None,
        setup_timeout: float = 30.0,
    ) -> None:
        self.settings = settings
        self.sgf_dir = Path(sgf_dir) if sgf_dir is not None else None
        self.folder = None if self.sgf_dir is None else games_folder(self.sgf_dir, SETTINGS_FILE, "a match")
        self.progress = progress or (lambda event: None)
        self.setup_timeout = setup_timeout
        self.referee_argv = settings.referee_argv()
        #: Our count, for games without a referee or whose referee failed;
        #: built now so that an unreadable model is an error before any game.
        self.own_count = OwnCount(settings.dead_stones, model=settings.dead_stones_model)
        self.engines, self.referee = self._new_slot()

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

        Raises :class:`MatchSettingsMismatch` when the folder holds another
        match and :class:`~fuseki.util.runs.RunFolderBusy` when a match is
        playing into it now. :meth:`run` does this too; a caller that wants
        these errors before any engine starts calls it first.
        """
        with locked(self.folder):
            self._prepare()

    def _prepare(self) -> None:
        if self.folder is not None:
            prepare_games_folder(self.folder, self.settings, {"fuseki_match": 1})

    def game_path(self, number: int) -> Path | None:
        return None if self.sgf_dir is None else game_file(self.sgf_dir, number)

    def _reuse(self, number: int) -> GameOutcome | None:
        """The outcome stored in an earlier run's SGF for this game, if it is finished and readable."""
        path = self.game_path(number)
        return None if path is None else read_finished(path, number)

    # ---- running ---------------------------------------------------------------

    def run(self, games: int, workers: int = 1) -> MatchSummary:
        """Play (or reuse) games 1 to ``games``, ``workers`` at a time; the tally (holding the SGF folder's lock)."""
        if games < 0:
            raise InputError(f"number of games must not be negative, got {games}")
        if workers < 1:
            raise InputError(f"workers must be at least 1, got {workers}")
        outcomes: list[GameOutcome] = []
        try:
            with locked(self.folder):
                self._prepare()
                plan = ChunkPlan.scan(range(1, games + 1), self._reuse)
                todo = [number for number in range(1, games + 1) if number not in plan.done]
                if workers == 1 or len(todo) < 2:
                    for number in range(1, games + 1):  # in order: a reused game is reported in its place
                        outcome = plan.done.get(number) or self.play_game(number)
                        assert outcome is not None  # None only once an abort is set
                        outcomes.append(outcome)
                        self.progress(game_progress(outcome, games, outcomes))
                else:
                    for number in sorted(plan.done):
                        outcomes.append(plan.done[number])
                        self.progress(game_progress(plan.done[number], games, outcomes))
                    self._play_parallel(todo, min(workers, len(todo)), games, outcomes)
                    outcomes.sort(key=lambda o: o.number)
        finally:
            self.close()
        return MatchSummary(
            tuple(outcomes), self.engines["A"].name, self.engines["B"].name
        )

    def _new_slot(self) -> tuple[dict[str, Engine], Referee | None]:
        """A game slot: its own engines A and B and its own referee (started when first needed).

        The match's own slot is ``self.engines``/``self.referee``; ``run(workers=N)`` makes N-1 more.
        """
        s = self.settings
        engines = {
            "A": Engine("A", resolve_command(s.engine_a), self.setup_timeout),
            "B": Engine("B", resolve_command(s.engine_b), self.setup_timeout),
        }
        referee = (
            None
            if self.referee_argv is None
            else Referee(self.referee_argv, timeout=self.setup_timeout, fallback=self.own_count)
        )
        return engines, referee

    def _play_parallel(self, todo: list[int], workers: int, games: int, outcomes: list[GameOutcome]) -> None:
        """Play the games ``todo`` in ``workers`` threads, each with its own engines; append each outcome as it ends.

        :func:`~fuseki.util.slots.play_in_slots` runs the threads: a match cut
        short stops every engine and writes no game the stop interrupted.
        """
        extra = [self._new_slot() for _ in range(workers - 1)]

        def play(number: int, slot: tuple[dict[str, Engine], Referee | None], abort: threading.Event) -> GameOutcome | None:
            return self.play_game(number, engines=slot[0], referee=slot[1], abort=abort)

        def finished(outcome: GameOutcome) -> None:
            outcomes.append(outcome)
            self.progress(game_progress(outcome, games, outcomes))

        try:
            play_in_slots(todo, [(self.engines, self.referee), *extra], play, finished, self._stop_slot, name="match")
        finally:
            for slot in extra:  # the match's own slot stops in close()
                self._stop_slot(slot)

    @staticmethod
    def _stop_slot(slot: tuple[dict[str, Engine], Referee | None]) -> None:
        engines, referee = slot
        for engine in engines.values():
            engine.stop()
        if referee is not None:
            referee.close()

    def close(self) -> None:
        self._stop_slot((self.engines, self.referee))

    def game_seed(self, number: int, label: str) -> int:
        """The seed that fills ``{seed}`` in engine ``label``'s command for game ``number``.

        Derived from the match's ``seed``, the game number and the side, so
        each game and each engine gets its own, and a resumed match gives a
        replayed game the seed it would have had.
        """
        return derive_seed(self.settings.seed, number, label)

    def play_game(
        self,
        number: int,
        *,
        engines: Mapping[str, Engine] | None = None,
        referee: Referee | None = None,
        abort: threading.Event | None = None,
    ) -> GameOutcome | None:
        """Play game ``number`` (1-based), write its SGF, and return its outcome.

        ``engines`` and ``referee`` are a game slot's (default: the match's
        own). Once ``abort`` is set the game is not written and ``None`` is
        returned: an engine stopped by the abort would read as a forfeit.
        """
        s = self.settings
        if engines is None:
            engines, referee = self.engines, self.referee
        for label, engine in engines.items():
            engine.reseed(self.game_seed(number, label))  # restarts an engine whose command holds {seed}
        color_a = a_color(number)
        by_color = {
            color_a: engines["A"],
            color_a.other: engines["B"],
        }
        state = GameState.new(s.size, s.game_rules, handicap=s.handicap)
        notes: tuple[str, ...] = ()
        result = ""
        reason = ""
        kind = ""
        forfeited: Color | None = None
        clock = s.game_clock
        try:
            for color in (Color.BLACK, Color.WHITE):
                by_color[color].setup(
                    color,
                    size=s.size,
                    komi=s.komi,
                    move_time=s.move_time,
                    handicap=s.handicap,
                    clock=s.clock,
                    time_settings=None if clock is None else clock.settings_commands(),
                )
            game = play_gtp_game(
                by_color,
                state,
                move_cap=s.move_cap,
                move_time=s.move_time,
                referee=referee,
                own_count=self.own_count,
                clock=clock,
            )
            state, result, kind, notes = game.state, game.result, game.kind, game.notes
        except TimeLoss as f:
            forfeited = f.color
            reason = f"{f.color.name.lower()} ({by_color[f.color].label}: {by_color[f.color].name}) {f.reason}"
            result = f"{f.color.other.letter}+T"
            kind = "time"
            state = f.state if f.state is not None else state
            if f.killed:
                by_color[f.color].stop()
        except Forfeit as f:
            forfeited = f.color
            reason = f"{f.color.name.lower()} ({by_color[f.color].label}: {by_color[f.color].name}) {f.reason}"
            result = f"{f.color.other.letter}+F"
            kind = "forfeit"
            by_color[f.color].stop()  # restarted, fresh, for the next game
        if abort is not None and abort.is_set():
            return None
        winner, _ = parse_result(result)
        comment_lines = [
            (
                f"fuseki match game {number}: A = {engines['A'].name} ({color_a.name.lower()}), "
                f"B = {engines['B'].name} ({color_a.other.name.lower()})"
            )
        ]
        if forfeited is not None:
            comment_lines.append(f"{'time' if kind == 'time' else 'forfeit'}: {reason}")
        if clock is not None:
            comment_lines.append(f"clock: {clock.tc.describe()}")
        comment_lines += [f"note: {n}" for n in notes]
        record = GameRecord.from_state(
            state,
            black=by_color[Color.BLACK].name,
            white=by_color[Color.WHITE].name,
            result=result,
            date=datetime.date.today().isoformat(),
        )
        record.comment = "\n".join(comment_lines)
        if clock is not None:
            for move_number, entry in enumerate(clock.moves[: len(record.moves)], start=1):
                record.clock[move_number] = (entry.left, entry.stones)
                record.comments[move_number] = f"time used: {entry.seconds:.3f} s"
        record.event = "fuseki match"
        record.game_name = f"game {number}"
        path = self.game_path(number)
        if path is not None:
            save_sgf(path, record)
        return GameOutcome(
            number,
            color_a,
            result,
            side_of(winner, color_a),
            kind,
            reason if forfeited is not None else "; ".join(notes),
            len(record.moves),
            dead_stones=None if forfeited is not None else scored_by("\n".join(notes)),
            digest=moves_digest(record.moves),
        )
