"""The GTP engine under a clock: the time commands reach the time manager and bound genmove."""

from __future__ import annotations

import io
import time

from fuseki.agents.mcts_agent import MCTSAgent
from fuseki.go.state import Color
from fuseki.gtp.engine import GtpEngine
from fuseki.search.timecontrol import ClockState, TimeControl, TimeManager


def engine(**agent_options: object) -> tuple[GtpEngine, MCTSAgent]:
    agent = MCTSAgent(seed=1, **agent_options)  # type: ignore[arg-type]
    e = GtpEngine(agent, size=9, stdout=io.StringIO(), log=io.StringIO(), time_manager=TimeManager(lag=0.3))
    e.handle("genmove b")  # kernels compiled, overhead measured
    return e, agent


def timed(e: GtpEngine, command: str) -> float:
    t0 = time.perf_counter()
    reply = e.handle(command)
    assert reply is not None and reply.startswith("= "), reply
    return time.perf_counter() - t0


def test_byo_yomi_bounds_each_move_and_the_default_playouts_do_not() -> None:
    e, agent = engine()
    e.handle("time_settings 0 2 1")
    assert e.time_control == TimeControl.canadian(0, 2, 1)
    took = timed(e, "genmove w")
    assert 0.8 <= took <= 1.9  # about 2 s less the lag and margins, never the period
    assert agent.last_info is not None and agent.last_info.playouts != 10_000  # time, not the default playouts
    # time_left says less is left: the next move is shorter.
    e.handle("time_left b 1 1")
    took = timed(e, "genmove b")
    assert took <= 0.9


def test_same_settings_keep_the_clock_and_bookkeeping_charges_moves() -> None:
    e, _ = engine(playouts=200_000)
    e.handle("kgs-time_settings absolute 30")
    timed(e, "genmove w")
    after = e.clocks[Color.WHITE]
    assert 25 < after.main_left < 30  # charged from the command's arrival to the reply
    e.handle("kgs-time_settings absolute 30")  # gtp2ogs sends it again before every move
    assert e.clocks[Color.WHITE] == after
    e.handle("kgs-time_settings absolute 60")  # new settings: fresh clocks
    assert e.clocks == {}
    e.handle("time_left white 12 0")
    assert e.clocks[Color.WHITE] == ClockState(12.0)
    e.handle("clear_board")
    assert e.clocks == {}


def test_playouts_asked_for_cap_a_clocked_search() -> None:
    e, agent = engine(playouts=300)
    e.handle("time_settings 0 30 1")
    took = timed(e, "genmove w")
    assert agent.last_info is not None and agent.last_info.playouts <= 300
    assert took < 10


def test_no_limit_means_the_bots_own_budget() -> None:
    e, agent = engine(playouts=250)
    e.handle("time_settings 0 10 0")  # byo-yomi time without stones: no limit
    assert e.time_control.system == "none"
    timed(e, "genmove w")
    assert agent.last_info is not None and agent.last_info.playouts == 250


def test_kgs_byoyomi_and_time_left_periods() -> None:
    e, _ = engine(playouts=500)
    assert e.handle("kgs-time_settings byoyomi 0 5 3") == "= "
    e.handle("time_left black 4 2")
    assert e.clocks[Color.BLACK] == ClockState(0.0, 4.0, 2)
    budget = e.clock_budget(Color.BLACK, e.state)
    assert budget is not None and budget.limit < 4.0 - 0.3
    assert e.handle("kgs-time_settings byoyomi 0 0 3") == "= "  # no period time: no overtime
    assert e.time_control.system == "none"
    assert e.handle("kgs-time_settings byoyomi 1.5 2.5 1") == "= "  # decimals, as KataGo reads them
    assert e.time_control == TimeControl.byoyomi(1.5, 2.5, 1)
