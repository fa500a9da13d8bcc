"""Game clocks for web games: main time, then Japanese byo-yomi (issue 22).

A game may have a :class:`TimeControl`: ``main`` seconds each, then
``periods`` periods of ``byoyomi`` seconds. In byo-yomi a move made within a
period keeps it; a period used up is lost and the next one starts. A player
whose main time and periods are all used up loses on time (``"B+T"``: Black
wins because White's clock ran out).

The clock's state is plain JSON kept in the game's row (:func:`start`,
:func:`charge`): each side's main time left and periods left, which side's
clock runs and since when (server time, ``time.time()``). The server charges
a side when its move arrives (the human's) or comes back from the worker (the
bot's), and checks the running side on every read, so a player who walks away
loses on time at the next look at the game. The clocks stop in the scoring
phase and run again on resume.

>>> tc = TimeControl(main=10, byoyomi=5, periods=2)
>>> s = start(tc, "black", now=100.0)
>>> s = charge(s, tc, now=108.0)                         # Black used 8 s of main time
>>> s["black"]["main"], s["running"], s["flagged"]
(2.0, 'white', None)
>>> s = charge(s, tc, now=120.0)                         # White: 10 s main + 2 s of a period (kept)
>>> s["white"]["main"], s["white"]["periods"]
(0.0, 2)
>>> s = charge(s, tc, now=128.0)                         # Black: 2 s main, then 6 s: one period lost
>>> s["black"]["periods"], s["flagged"]
(1, None)
>>> flagged_now(s, tc, now=138.5)                        # White thinks 10.5 s in byo-yomi: both periods gone
'white'
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from fuseki.util.errors import FusekiError

__all__ = ["MAX_MAIN", "TimeControl", "charge", "flagged_now", "start", "stop", "view"]

#: The longest main time a web game may have (seconds): 3 hours.
MAX_MAIN = 3 * 3600.0
#: The longest byo-yomi period (seconds) and the most periods.
MAX_BYOYOMI = 600.0
MAX_PERIODS = 30

COLORS = ("black", "white")


class ClockError(FusekiError, ValueError):
    """A time control that cannot be used (HTTP 422)."""


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """``main`` seconds each, then ``periods`` byo-yomi periods of ``byoyomi`` seconds."""

    main: float = 600.0
    byoyomi: float = 0.0
    periods: int = 0

    def __post_init__(self) -> None:
        for name, value, top in (("main", self.main, MAX_MAIN), ("byoyomi", self.byoyomi, MAX_BYOYOMI)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ClockError(f"clock.{name} must be a number of seconds, got {value!r}")
            if not 0 <= value <= top:
                raise ClockError(f"clock.{name} must be from 0 to {top:g} seconds, got {value:g}")
        if isinstance(self.periods, bool) or not isinstance(self.periods, int) or not 0 <= self.periods <= MAX_PERIODS:
            raise ClockError(f"clock.periods must be a whole number from 0 to {MAX_PERIODS}, got {self.periods!r}")
        if (self.byoyomi > 0) != (self.periods > 0):
            raise ClockError("clock.byoyomi and clock.periods go together: both above 0, or both 0")
        if self.main <= 0 and self.periods == 0:
            raise ClockError("a clock needs some time: clock.main above 0, or byo-yomi periods")

    def to_dict(self) -> dict[str, Any]:
        return {"main": float(self.main), "byoyomi": float(self.byoyomi), "periods": int(self.periods)}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "TimeControl":
        return TimeControl(float(data["main"]), float(data.get("byoyomi", 0.0)), int(data.get("periods", 0)))


def start(tc: TimeControl, to_move: str | None, now: float) -> dict[str, Any]:
    """A fresh clock: full time each, ``to_move``'s clock running (``None``: both stopped)."""
    side = {"main": float(tc.main), "periods": int(tc.periods)}
    return {"black": dict(side), "white": dict(side), "running": to_move, "since": now, "flagged": None}


def _spend(side: dict[str, Any], tc: TimeControl, elapsed: float) -> tuple[dict[str, Any], bool]:
    """``side`` after thinking ``elapsed`` seconds for one move; True when its time ran out."""
    main, periods = float(side["main"]), int(side["periods"])
    if elapsed <= main:
        return {"main": round(main - elapsed, 3), "periods": periods}, False
    over = elapsed - main
    if periods == 0 or tc.byoyomi <= 0:
        return {"main": 0.0, "periods": 0}, True
    lost = int(over // tc.byoyomi)
    if lost >= periods:
        return {"main": 0.0, "periods": 0}, True
    return {"main": 0.0, "periods": periods - lost}, False


def charge(state: dict[str, Any], tc: TimeControl, now: float, *, next_to_move: str | None = "other") -> dict[str, Any]:
    """The running side made its move at ``now``: take its time, then start ``next_to_move``'s clock.

    ``next_to_move="other"`` (the default) starts the opponent's clock; a colour
    starts that one; ``None`` stops both (the scoring phase). A side out of time
    is recorded in ``flagged`` and both clocks stop.
    """
    out = {**state, "black": dict(state["black"]), "white": dict(state["white"])}
    running = state.get("running")
    if state.get("flagged") or running is None:
        out["running"] = None if state.get("flagged") else (None if next_to_move == "other" else next_to_move)
        out["since"] = now
        return out
    side, out_of_time = _spend(state[running], tc, max(0.0, now - float(state["since"])))
    out[running] = side
    out["since"] = now
    if out_of_time:
        out["flagged"] = running
        out["running"] = None
        return out
    out["running"] = ("white" if running == "black" else "black") if next_to_move == "other" else next_to_move
    return out


def restart(state: dict[str, Any], to_move: str | None, now: float) -> dict[str, Any]:
    """Run ``to_move``'s clock from ``now`` without charging anyone (resume, undo)."""
    if state.get("flagged"):
        return state
    return {**state, "running": to_move, "since": now}


def stop(state: dict[str, Any], tc: TimeControl, now: float) -> dict[str, Any]:
    """Charge the running side and stop both clocks (two passes: the scoring phase)."""
    return charge(state, tc, now, next_to_move=None)


def flagged_now(state: dict[str, Any], tc: TimeControl, now: float) -> str | None:
    """The side whose time has run out by ``now`` (the one flagged before, or the running one), else ``None``."""
    if state.get("flagged"):
        return str(state["flagged"])
    running = state.get("running")
    if running is None:
        return None
    _, out_of_time = _spend(state[running], tc, max(0.0, now - float(state["since"])))
    return running if out_of_time else None


def view(state: dict[str, Any], tc: TimeControl, now: float) -> dict[str, Any]:
    """The clocks as the page shows them at ``now``: each side's main time and periods left, the running side.

    For the running side ``period_left`` is what is left of the current
    byo-yomi period; the page counts down from these values by itself.
    """
    out: dict[str, Any] = {"main": tc.main, "byoyomi": tc.byoyomi, "periods": tc.periods,
                           "running": state.get("running"), "flagged": state.get("flagged")}
    for color in COLORS:
        side = state[color]
        main, periods = float(side["main"]), int(side["periods"])
        period_left = tc.byoyomi if periods else 0.0
        if color == state.get("running") and not state.get("flagged"):
            elapsed = max(0.0, now - float(state["since"]))
            if elapsed <= main:
                main -= elapsed
            else:
                over = elapsed - main
                main = 0.0
                if tc.byoyomi > 0 and periods:
                    lost = int(over // tc.byoyomi)
                    periods = max(0, periods - lost)
                    period_left = tc.byoyomi - (over - lost * tc.byoyomi) if periods else 0.0
                else:
                    periods = 0
        out[color] = {"main": round(main, 2), "periods": periods, "period_left": round(period_left, 2)}
    return out
