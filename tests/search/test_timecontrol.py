"""The time manager under a fake clock: every system, every phase, never a loss on time."""

from __future__ import annotations

import random

import pytest

from fuseki.search.timecontrol import (
    Budget,
    ClockState,
    TimeControl,
    TimeManager,
    expected_game_length,
    phase_weight,
)
from fuseki.util.errors import InputError


def play_game(
    tc: TimeControl,
    manager: TimeManager,
    *,
    size: int,
    moves: int,
    spend: str = "limit",
    limit_every: int = 1,
    lag: float = 0.0,
    overhead: float = 0.0,
    seed: int = 0,
) -> tuple[list[float], ClockState]:
    """One player's moves 0, 2, 4, ... of a ``moves``-long game on a fake clock.

    Each move takes the budget's ``limit`` (the worst case: the search ran
    to the end; with ``limit_every=k`` only every k-th move, the others their
    ``target``) or ``target``, plus ``lag`` the engine cannot see, plus a
    random part of ``overhead``. The clock is kept by the rules
    (:meth:`ClockState.after_move`), the way a server keeps it; the manager
    sees it only through ``time_left`` as a controller reports it (floored
    to whole seconds, as gtp2ogs and our match runner send it).
    """
    rng = random.Random(seed)
    clock = ClockState.fresh(tc)
    spent = []
    for move_number in range(0, moves, 2):
        reported = ClockState.from_time_left(
            tc, int(clock.period_left if clock.in_overtime else clock.main_left), clock.stones_left
        )
        budget = manager.budget(tc, reported, move_number=move_number, size=size, overhead=overhead)
        assert budget is not None
        assert 0 < budget.target <= budget.limit
        at_limit = spend == "limit" and (move_number // 2) % limit_every == 0
        took = (budget.limit if at_limit else budget.target) + lag + rng.random() * overhead
        spent.append(took)
        clock = clock.after_move(tc, took)
        if clock.lost:
            break
    return spent, clock


CONTROLS = [
    TimeControl.from_gtp(0, 5, 1),  # the match of issue 21: 5 s a move
    TimeControl.byoyomi(0, 5, 1),
    TimeControl.byoyomi(60, 5, 3),
    TimeControl.byoyomi(600, 30, 5),
    TimeControl.canadian(60, 30, 10),
    TimeControl.canadian(0, 60, 25),
    TimeControl.canadian(120, 20, 5),
]


@pytest.mark.parametrize("tc", CONTROLS, ids=lambda tc: tc.describe())
@pytest.mark.parametrize("size", [9, 19])
def test_never_loses_on_time_with_overtime(tc: TimeControl, size: int) -> None:
    manager = TimeManager(lag=0.5)
    # Three times the expected game, every move to its limit, the lag fully used.
    moves = 3 * expected_game_length(size)
    spent, clock = play_game(tc, manager, size=size, moves=moves, lag=0.45, overhead=0.05)
    assert not clock.lost
    assert len(spent) == (moves + 1) // 2
    if tc.system == "byoyomi":
        assert clock.stones_left == tc.stones  # not one period lost


@pytest.mark.parametrize(("size", "main"), [(9, 60), (9, 300), (9, 1800), (19, 300), (19, 1800)])
def test_absolute_time_lasts_a_long_game(main: int, size: int) -> None:
    # (60 s on 19x19 is not in the list: 290 moves at a 0.2 s lag each cannot fit.)
    tc = TimeControl.absolute(main)
    manager = TimeManager(lag=0.2)
    # Twice the expected length, every third move to its limit, each paying the lag: time left at the end.
    moves = 2 * expected_game_length(size)
    spent, clock = play_game(tc, manager, size=size, moves=moves, lag=0.2, limit_every=3)
    assert not clock.lost
    assert sum(spent) < main


def test_main_time_goes_to_the_middle_game() -> None:
    tc = TimeControl.byoyomi(900, 30, 3)
    spent, clock = play_game(tc, TimeManager(), size=19, moves=expected_game_length(19), spend="target")
    assert not clock.lost
    n = len(spent)
    opening = sum(spent[: n // 10]) / (n // 10)
    middle = sum(spent[3 * n // 10 : 5 * n // 10]) / (2 * n // 10)
    assert middle > 1.5 * opening
    # ... and main time is used, not hoarded: most of it is gone by the end of the game.
    assert clock.in_overtime or clock.main_left < 0.2 * 900


def test_absolute_spends_more_in_the_middle_than_at_the_end() -> None:
    tc = TimeControl.absolute(600)
    spent, _ = play_game(tc, TimeManager(), size=9, moves=expected_game_length(9), spend="target")
    n = len(spent)
    assert max(spent[n // 4 : n // 2]) > 1.5 * spent[-1]
    assert max(spent[n // 4 : n // 2]) > 1.5 * spent[0]


def test_byoyomi_answers_within_the_period() -> None:
    tc = TimeControl.byoyomi(0, 5, 1)
    manager = TimeManager(lag=0.5, safety=0.05)
    budget = manager.budget(tc, ClockState.fresh(tc), move_number=30, size=9, overhead=0.1)
    assert budget is not None
    assert budget.limit == pytest.approx(5 - 0.5 - 0.1 - 0.25)
    assert budget.target == budget.limit  # overtime moves use their whole period
    assert not budget.bankable  # time left unused in a period is lost: no early stop


def test_canadian_divides_the_period_by_the_stones() -> None:
    tc = TimeControl.canadian(0, 100, 10)
    manager = TimeManager(lag=0.0, safety=0.0)
    b = manager.budget(tc, ClockState.from_time_left(tc, 40, 4), move_number=80, size=19)
    assert b is not None and b.target == pytest.approx(10.0)
    assert b.target < b.limit <= 20.0  # may borrow from the other three stones, never all of it
    assert b.bankable


def test_no_limit_means_no_budget() -> None:
    assert TimeManager().budget(TimeControl.none(), ClockState(0.0), move_number=0, size=9) is None


def test_a_hopeless_clock_still_gives_a_short_search() -> None:
    tc = TimeControl.absolute(10)
    b = TimeManager(min_move=0.05).budget(tc, ClockState(0.3), move_number=100, size=9)
    assert b == Budget(0.05, 0.05, True)


def test_gtp_settings_are_read_as_the_spec_says() -> None:
    assert TimeControl.from_gtp(0, 5, 1) == TimeControl.canadian(0, 5, 1)
    assert TimeControl.from_gtp(300, 0, 0) == TimeControl.absolute(300)
    assert TimeControl.from_gtp(0, 10, 0).system == "none"
    assert TimeControl.from_gtp(0, 0, 0).system == "none"
    with pytest.raises(InputError):
        TimeControl.from_gtp(-1, 0, 0)
    with pytest.raises(InputError):
        TimeControl.byoyomi(0, 0, 3)


def test_time_left_and_bookkeeping() -> None:
    byo = TimeControl.byoyomi(10, 5, 3)
    clock = ClockState.fresh(byo)
    assert clock == ClockState(10.0)
    clock = clock.after_move(byo, 12.0)  # 2 s into the first period: kept
    assert clock == ClockState(0.0, 5.0, 3)
    clock = clock.after_move(byo, 7.0)  # overran one period
    assert clock == ClockState(0.0, 5.0, 2)
    assert clock.after_move(byo, 11.0).lost  # overran both that are left
    can = TimeControl.canadian(0, 10, 2)
    clock = ClockState.fresh(can)
    assert clock == ClockState(0.0, 10.0, 2)
    clock = clock.after_move(can, 4.0)
    assert clock == ClockState(0.0, 6.0, 1)
    assert clock.after_move(can, 5.0) == ClockState(0.0, 10.0, 2)  # the period's stones done: fresh
    assert clock.after_move(can, 6.5).lost
    assert ClockState.from_time_left(byo, 4, 2) == ClockState(0.0, 4.0, 2)
    assert ClockState.from_time_left(byo, 8, 0) == ClockState(8.0)


def test_phase_weights_peak_in_the_middle() -> None:
    assert phase_weight(0.4) == pytest.approx(1.5)
    assert phase_weight(0.0) < 0.6 and phase_weight(0.9) < 0.6
    assert expected_game_length(9) == 65 and expected_game_length(19) == 289
