"""A real game clock for matches between GTP engines: :class:`GameClock`.

With a clock, the match runner behaves like a server: it tells both engines
the time settings at the start of a game (``time_settings``, or KGS's
``kgs-time_settings`` for Japanese byo-yomi), sends ``time_left`` for both
players before each ``genmove`` (as gtp2ogs does), measures each ``genmove``
from the moment the command is written until its reply is read (the round
trip counts, as on a server), and keeps each player's clock by the rules of
:mod:`fuseki.search.timecontrol`. A move that ends after the player's flag
fell loses the game on time (``B+T``/``W+T``).

A clock is written as text, in one of these forms:

``M B S``            GTP's ``time_settings``: main time, byo-yomi time, stones
                     (Canadian; ``0 5 1`` is 5 seconds a move)
``absolute M``       sudden death
``canadian M B S``   the same as ``M B S``
``byoyomi M P N``    Japanese byo-yomi: N periods of P seconds

>>> parse_time_control("0 5 1")
TimeControl(system='canadian', main=0.0, period=5.0, stones=1)
>>> format_time_control(parse_time_control("byoyomi 600 30 5"))
'byoyomi 600 30 5'
"""

from __future__ import annotations

import dataclasses
import math

from fuseki.go.state import Color
from fuseki.search.timecontrol import ClockState, TimeControl
from fuseki.util.errors import InputError

__all__ = ["GRACE", "GameClock", "MoveTime", "format_time_control", "parse_time_control"]

#: Seconds a ``genmove`` may run past the flag before the engine is killed (the game is lost either way).
GRACE = 2.0


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"time control: {what} must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"time control: {what} must be at least 0, got {text!r}")
    return value


def _count(text: str, what: str) -> int:
    if not text.isdigit():
        raise InputError(f"time control: {what} must be a whole number, got {text!r}")
    return int(text)


def parse_time_control(spec: str) -> TimeControl:
    """A clock from its text (see the module doc); ``InputError`` with the reason for anything else."""
    words = spec.split()
    if not words:
        raise InputError("time control: empty; give 'M B S', 'absolute M', 'canadian M B S' or 'byoyomi M P N'")
    system = words[0].lower()
    if system[0].isdigit():
        system, words = "gtp", ["gtp", *words]
    args = words[1:]
    wanted = {"gtp": 3, "absolute": 1, "canadian": 3, "byoyomi": 3}
    if system not in wanted:
        raise InputError(f"time control: unknown system {words[0]!r}; known: absolute, canadian, byoyomi, or 'M B S'")
    if len(args) != wanted[system]:
        raise InputError(f"time control: {system} takes {wanted[system]} number(s), got {len(args)}")
    if system == "absolute":
        return TimeControl.absolute(_number(args[0], "main time"))
    main, period = _number(args[0], "main time"), _number(args[1], "period time")
    count = _count(args[2], "stones" if system != "byoyomi" else "periods")
    if system == "byoyomi":
        return TimeControl.byoyomi(main, period, count)
    if system == "canadian":
        return TimeControl.canadian(main, period, count)
    tc = TimeControl.from_gtp(main, period, count)
    if tc.system == "none":
        raise InputError(f"time control {spec!r} means no time limit; leave the option out instead")
    return tc


def format_time_control(tc: TimeControl) -> str:
    """The canonical text of a clock (what ``match.json`` stores)."""
    if tc.system == "absolute":
        return f"absolute {tc.main:g}"
    return f"{tc.system} {tc.main:g} {tc.period:g} {tc.stones}"


def _gtp_seconds(x: float) -> str:
    """GTP wants whole seconds: round down, as gtp2ogs does (the engine then errs on the safe side)."""
    return str(max(0, math.floor(x)))


@dataclasses.dataclass(frozen=True)
class MoveTime:
    """One move's time: who, how long it took (wall clock, round trip included), and the clock after it."""

    color: Color
    seconds: float
    left: float  #: main time left, or in overtime the time that was left in the period
    stones: int  #: 0 in main time; stones (Canadian) or periods (byo-yomi) left in overtime


class GameClock:
    """Both players' clocks for one game under ``tc``."""

    def __init__(self, tc: TimeControl) -> None:
        if tc.system == "none":
            raise InputError("a game clock needs a time limit")
        self.tc = tc
        self.clocks = {c: ClockState.fresh(tc) for c in (Color.BLACK, Color.WHITE)}
        self.moves: list[MoveTime] = []

    def settings_commands(self) -> list[str]:
        """What to send an engine at the start of the game, best first.

        Japanese byo-yomi needs KGS's command; an engine without it gets the
        GTP approximation gtp2ogs uses (the periods but the last as main time,
        then one stone per period), which is never longer than the real clock.
        """
        tc = self.tc
        if tc.system == "absolute":
            return [f"time_settings {_gtp_seconds(tc.main)} 0 0"]
        if tc.system == "canadian":
            return [f"time_settings {_gtp_seconds(tc.main)} {_gtp_seconds(tc.period)} {tc.stones}"]
        fallback = f"time_settings {_gtp_seconds(tc.main + (tc.stones - 1) * tc.period)} {_gtp_seconds(tc.period)} 1"
        return [f"kgs-time_settings byoyomi {_gtp_seconds(tc.main)} {_gtp_seconds(tc.period)} {tc.stones}", fallback]

    def time_left_command(self, color: Color) -> str:
        """``time_left COLOR SECONDS STONES`` for ``color``'s clock now."""
        clock = self.clocks[color]
        seconds = clock.period_left if clock.in_overtime else clock.main_left
        return f"time_left {color.name.lower()} {_gtp_seconds(seconds)} {clock.stones_left}"

    def until_flag(self, color: Color) -> float:
        """Seconds ``color`` may think on this move before losing on time."""
        clock, tc = self.clocks[color], self.tc
        if tc.system == "absolute":
            return clock.main_left
        if tc.system == "byoyomi":
            periods = clock.stones_left if clock.in_overtime else tc.stones
            first = clock.period_left if clock.in_overtime else tc.period
            return clock.main_left + first + (periods - 1) * tc.period
        return clock.main_left + (clock.period_left if clock.in_overtime else tc.period)

    def record(self, color: Color, seconds: float) -> MoveTime:
        """Charge ``seconds`` to ``color``; the move's entry (check :meth:`lost` after)."""
        before = self.clocks[color]
        after = before.after_move(self.tc, seconds)
        self.clocks[color] = after
        if after.in_overtime or (before.in_overtime and not after.lost):
            # In overtime the clock shows what was left of the period when the move was made.
            start = before.period_left if before.in_overtime else self.tc.period
            spent_in_period = seconds - (0.0 if before.in_overtime else before.main_left)
            left, stones = max(start - spent_in_period, 0.0), after.stones_left
        else:
            left, stones = after.main_left, 0
        entry = MoveTime(color, seconds, left, stones)
        self.moves.append(entry)
        return entry

    def lost(self, color: Color) -> bool:
        return self.clocks[color].lost
