"""Clocks and how long to think: :class:`TimeControl`, :class:`ClockState`, :class:`TimeManager`.

A Go server or a GUI gives each player a clock in one of four systems (the
ones GTP's ``time_settings`` and KGS's ``kgs-time_settings`` can express):

``none``
    no limit.
``absolute``
    ``main`` seconds for the whole game (sudden death).
``canadian``
    ``main`` seconds, then periods of ``period`` seconds in which ``stones``
    moves must be played; each period that is met starts a fresh one.
``byoyomi`` (Japanese)
    ``main`` seconds, then ``stones`` periods of ``period`` seconds each: a
    move played within a period keeps it; a period overrun is lost, and the
    player loses on time when the last one is overrun.

:class:`ClockState` is one player's clock as the engine knows it, from the
controller's ``time_left`` or from its own bookkeeping of the moves it took.
:class:`TimeManager` turns it into a :class:`Budget` for the next move: a
``target`` the search aims at and a ``limit`` it never passes.

How the budget is shared out (after Pachi, Fuego and Leela Zero, whose time
managers all follow the same outline):

- **Main time** is spread over the moves expected to be left, weighted so
  that the middle game gets about three times what the opening and the
  endgame get per move (:func:`phase_weight`). The expected length of a game
  is ``0.8 * size**2`` moves; past it, the engine still plans for at least
  ``size**2 / 10`` more of its own moves, so the clock is never spent down to
  nothing by a game that runs long. Each move still to come is charged the
  margin's fixed part in advance. Sudden death cannot be made safe for a game
  of any length (every move pays the lag); the plan holds for games up to
  about twice the expected length.
- **Main time with overtime to come** (Canadian or byo-yomi) is planned to
  last to three quarters of the game. A move in overtime gets its period's
  share for nothing (unused overtime is lost), so a move in main time gets at
  least that share scaled by its phase weight (a third of it in the opening,
  all of it in the middle game), and may run on into the first period.
- **In overtime** a byo-yomi move gets its whole period less the margin (the
  search stops earlier when the move is decided); a Canadian move gets the
  time left in the period, less a margin for each stone still to play,
  divided by those stones (and may borrow up to half as much again).
- **The margin** is subtracted from everything: ``lag`` (the time between
  the controller starting the clock and the command reaching us, plus the
  reply's way back: pipes, a network, a loaded machine), the engine's own
  measured ``overhead`` past the planned end of its search, and ``safety`` (a fraction) of
  the time allowed.

>>> tc = TimeControl.byoyomi(main=0, period=5, periods=1)
>>> b = TimeManager(lag=0.5).budget(tc, ClockState.fresh(tc), move_number=20, size=9)
>>> round(b.target, 2), round(b.limit, 2), b.bankable
(4.25, 4.25, False)
"""

from __future__ import annotations

import dataclasses
import math

from fuseki.util.errors import InputError

__all__ = ["SYSTEMS", "Budget", "ClockState", "TimeControl", "TimeManager", "expected_game_length", "phase_weight"]

#: The clock systems, as ``kgs-time_settings`` names them.
SYSTEMS = ("none", "absolute", "canadian", "byoyomi")


def _check_seconds(value: float, what: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{what} must be a number of seconds at least 0, got {value!r}")
    return value


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """A clock system and its settings (see the module doc); build one with the class methods.

    ``stones`` is the number of moves per period for ``canadian`` and the
    number of periods for ``byoyomi``.
    """

    system: str = "none"
    main: float = 0.0
    period: float = 0.0
    stones: int = 0

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise InputError(f"unknown time system {self.system!r}; known: {', '.join(SYSTEMS)}")
        _check_seconds(self.main, "main time")
        _check_seconds(self.period, "period time")
        if self.stones < 0:
            raise InputError(f"stones/periods must be at least 0, got {self.stones}")
        if self.system in ("canadian", "byoyomi") and (self.period <= 0 or self.stones < 1):
            raise InputError(f"{self.system} needs a period longer than 0 s and at least 1 stone or period")
        if self.system == "absolute" and self.main <= 0:
            raise InputError("absolute time needs main time longer than 0 s")

    @classmethod
    def none(cls) -> TimeControl:
        return cls()

    @classmethod
    def absolute(cls, main: float) -> TimeControl:
        return cls("absolute", float(main))

    @classmethod
    def canadian(cls, main: float, period: float, stones: int) -> TimeControl:
        return cls("canadian", float(main), float(period), int(stones))

    @classmethod
    def byoyomi(cls, main: float, period: float, periods: int) -> TimeControl:
        return cls("byoyomi", float(main), float(period), int(periods))

    @classmethod
    def from_gtp(cls, main: float, byo_yomi: float, stones: int) -> TimeControl:
        """GTP's ``time_settings main_time byo_yomi_time byo_yomi_stones``.

        As the GTP specification says: a byo-yomi time of 0 means none
        (absolute time; with no main time either, no limit), and byo-yomi
        time with 0 stones means no time limit. Otherwise it is Canadian
        overtime (a Japanese period is Canadian with one stone).

        >>> TimeControl.from_gtp(0, 5, 1)
        TimeControl(system='canadian', main=0.0, period=5.0, stones=1)
        >>> TimeControl.from_gtp(300, 0, 0).system, TimeControl.from_gtp(0, 30, 0).system
        ('absolute', 'none')
        """
        main, byo_yomi = _check_seconds(main, "main time"), _check_seconds(byo_yomi, "byo-yomi time")
        if stones < 0:
            raise InputError(f"byo-yomi stones must be at least 0, got {stones}")
        if byo_yomi == 0:
            return cls.absolute(main) if main > 0 else cls.none()
        if stones == 0:
            return cls.none()
        return cls.canadian(main, byo_yomi, stones)

    @property
    def overtime_per_move(self) -> float:
        """Seconds a move gets on average once main time is over (0 without overtime)."""
        if self.system == "byoyomi":
            return self.period
        if self.system == "canadian":
            return self.period / self.stones
        return 0.0

    def describe(self) -> str:
        if self.system == "none":
            return "no time limit"
        if self.system == "absolute":
            return f"{self.main:g} s absolute"
        if self.system == "canadian":
            return f"{self.main:g} s + {self.stones} stones in {self.period:g} s (Canadian)"
        return f"{self.main:g} s + {self.stones} x {self.period:g} s byo-yomi"


@dataclasses.dataclass(frozen=True)
class ClockState:
    """One player's clock: main time left, or the current overtime period.

    ``stones_left`` is 0 in main time; in overtime it is the stones still to
    play in the period (Canadian) or the periods left (byo-yomi), as GTP's
    ``time_left`` (and KGS's reading of it for byo-yomi) reports them.
    ``period_left`` is the time left in the current period. ``lost`` is set
    when the bookkeeping saw the flag fall.
    """

    main_left: float
    period_left: float = 0.0
    stones_left: int = 0
    lost: bool = False

    @property
    def in_overtime(self) -> bool:
        return self.stones_left > 0

    @classmethod
    def fresh(cls, tc: TimeControl) -> ClockState:
        """The clock at the start of a game."""
        if tc.system in ("canadian", "byoyomi") and tc.main <= 0:
            return cls(0.0, tc.period, tc.stones)  # overtime from the first move
        return cls(tc.main)

    @classmethod
    def from_time_left(cls, tc: TimeControl, seconds: float, stones: int) -> ClockState:
        """The clock from ``time_left COLOR seconds stones`` (0 stones: main time)."""
        seconds = max(0.0, float(seconds))
        if stones < 0:
            raise InputError(f"stones left must be at least 0, got {stones}")
        if stones == 0 or tc.system in ("none", "absolute"):
            return cls(seconds)
        return cls(0.0, seconds, int(stones))

    def after_move(self, tc: TimeControl, elapsed: float) -> ClockState:
        """The clock after a move that took ``elapsed`` seconds (the engine's own bookkeeping)."""
        elapsed = max(0.0, float(elapsed))
        if tc.system == "none":
            return self
        if tc.system == "absolute":
            left = self.main_left - elapsed
            return ClockState(max(left, 0.0), lost=self.lost or left < 0)
        if not self.in_overtime:
            left = self.main_left - elapsed
            if left >= 0:
                return ClockState(left)
            # Main time ran out during this move: the rest is the first overtime move.
            return ClockState(0.0, tc.period, tc.stones)._overtime_move(tc, -left)
        return self._overtime_move(tc, elapsed)

    def _overtime_move(self, tc: TimeControl, elapsed: float) -> ClockState:
        if tc.system == "byoyomi":
            periods = self.stones_left
            spent = elapsed
            while spent > self.period_left and periods > 0:  # each overrun period is gone
                spent -= tc.period
                periods -= 1
            if periods <= 0:
                return ClockState(0.0, 0.0, 1, lost=True)
            return ClockState(0.0, tc.period, periods)  # the next move starts a fresh period
        left = self.period_left - elapsed
        if left < 0:
            return ClockState(0.0, 0.0, max(self.stones_left, 1), lost=True)
        stones = self.stones_left - 1
        if stones == 0:  # the period's stones are played: a fresh period
            return ClockState(0.0, tc.period, tc.stones)
        return ClockState(0.0, left, stones)


@dataclasses.dataclass(frozen=True)
class Budget:
    """Seconds for one move: aim at ``target``, never pass ``limit`` (both from the command's arrival).

    ``bankable`` says whether time this move does not use is still there for
    later moves (main time, or a Canadian period with other stones to play).
    When it is not (a byo-yomi period, the last stone of a Canadian period),
    stopping a search early saves nothing, and searching on deepens the tree
    that the next move reuses.
    """

    target: float
    limit: float
    bankable: bool = True


def expected_game_length(size: int) -> int:
    """Moves (both players) a game on this board is expected to last: ``0.8 * size**2``.

    About 65 on 9x9 and 290 on 19x19: engines that play under area scoring
    fill the dame and capture dead stones, so their games run longer than
    the 250 moves of a professional 19x19 game.
    """
    return max(8, round(0.8 * size * size))


def phase_weight(phase: float) -> float:
    """How much of the clock a move at ``phase`` (move number / expected length) deserves.

    0.5 + a bump centred on 40 % of the game: 1.5 in the middle game, about
    0.54 on the first move and at 80 %, 0.5 from there on. The opening
    follows patterns, the endgame is small; the middle game decides.
    """
    return 0.5 + math.exp(-(((phase - 0.4) / 0.22) ** 2))


class TimeManager:
    """Budgets for moves under a clock (see the module doc for the rules).

    ``lag`` seconds are kept back on every move for what happens outside the
    engine's own measurement (the controller's round trip); ``safety`` is the
    fraction of each move's allowance kept back on top; ``min_move`` is the
    shortest budget it ever gives (a move must still be searched a little).
    """

    def __init__(self, *, lag: float = 1.0, safety: float = 0.05, min_move: float = 0.05) -> None:
        self.lag = _check_seconds(lag, "lag")
        if not 0.0 <= safety < 0.5:
            raise InputError(f"safety must be a fraction in [0, 0.5), got {safety!r}")
        self.safety = float(safety)
        self.min_move = _check_seconds(min_move, "min_move")

    def margin(self, allowance: float, overhead: float = 0.0) -> float:
        """Seconds kept back from a move allowed ``allowance`` seconds."""
        return self.lag + max(0.0, overhead) + self.safety * max(allowance, 0.0)

    def budget(
        self, tc: TimeControl, clock: ClockState, *, move_number: int, size: int, overhead: float = 0.0
    ) -> Budget | None:
        """The budget for the move numbered ``move_number`` (0-based, both players) on a ``size`` board.

        ``None`` when there is no time limit (the bot's own budget applies).
        ``overhead`` is the engine's measured time past the planned end of a
        search (a last batch of simulations, writing the reply); the budget
        itself counts from the command's arrival.
        """
        if tc.system == "none":
            return None
        floor = self.min_move
        if clock.in_overtime:
            if tc.system == "byoyomi":
                allowed = clock.period_left
                cap = allowed - self.margin(allowed, overhead)
                return self._clip(cap, cap, floor, bankable=False)
            # Canadian: the period's time for the stones still to play, each of which pays the lag.
            stones = max(clock.stones_left, 1)
            allowed = clock.period_left
            usable = allowed - stones * (self.lag + max(0.0, overhead)) - self.safety * allowed
            per_stone = usable / stones
            # One move may borrow from the others, as long as each of them keeps half its share.
            cap = usable - (stones - 1) * max(floor, 0.5 * per_stone)
            return self._clip(per_stone, min(cap, 1.5 * per_stone), floor, bankable=stones > 1)
        # Main time.
        length = expected_game_length(size)
        overtime = tc.overtime_per_move
        horizon = length * (0.75 if overtime > 0 else 1.0)
        own_left = max((horizon - move_number) / 2.0, size * size / 10.0, 1.0)
        weights = sum(phase_weight((move_number + 2 * k) / length) for k in range(math.ceil(own_left)))
        # Every move still to come pays the lag and the overhead out of the same main time; in
        # sudden death that is kept back for a game twice the expected length, with a short search each.
        per_move_cost = self.lag + max(0.0, overhead)
        if overtime > 0:
            usable = max(clock.main_left - own_left * per_move_cost, 0.0)
        else:
            tail = max((2 * length - move_number) / 2.0, size * size / 10.0)
            usable = max(clock.main_left - tail * (per_move_cost + floor), 0.0)
        share = usable * phase_weight(move_number / length) / weights
        if overtime > 0:
            # A move in overtime gets its share for nothing (unused overtime is lost), so a move
            # in main time gets at least that share scaled by its phase: a third in the opening,
            # all of it in the middle game. Main time beyond that goes where the weights say.
            weight = phase_weight(move_number / length)
            per_move = overtime - self.margin(overtime, overhead)
            target = max(share, per_move * weight / phase_weight(0.4))
            allowed = clock.main_left + overtime  # a move may run on into the first period
            cap = allowed - self.margin(allowed, overhead)
            return self._clip(target, min(cap, 3.0 * target), floor)
        # Absolute: at most twice the share, and never more than a third of what is left.
        allowed = clock.main_left
        cap = allowed / 3.0 - self.margin(allowed / 3.0, overhead)
        return self._clip(share, min(cap, 2.0 * share), floor)

    @staticmethod
    def _clip(target: float, limit: float, floor: float, *, bankable: bool = True) -> Budget:
        limit = max(limit, floor)
        return Budget(min(max(target, floor), limit), limit, bankable)
