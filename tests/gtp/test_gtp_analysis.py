"""Analysis over GTP: lz-analyze, kata-analyze, analyze, the genmove forms and GoGui's commands.

The engine runs its real read loop on pipes in a thread, so that the tests
see lines arrive while the search runs and the next command stop it. Every
line is read back with the independent parsers of ``tests/analysis_formats.py``.
"""

from __future__ import annotations

import io
import os
import queue
import re
import threading
import time

import pytest

from analysis_formats import GOGUI_TYPES, VERTEX, parse_gfx, parse_kata, parse_lz, parse_sabaki
from fuseki.agents.mcts_agent import MCTSAgent
from fuseki.agents.termination import Terminating
from fuseki.go.state import Color
from fuseki.gtp.engine import GtpEngine


class Live:
    """A GtpEngine serving on pipes in a thread; the test writes commands and reads lines as they come."""

    def __init__(self, agent: object, size: int = 9) -> None:
        rin, self._win = os.pipe()
        self._rout, wout = os.pipe()
        self._to_engine = os.fdopen(self._win, "w", buffering=1)
        self.engine = GtpEngine(
            agent,  # type: ignore[arg-type]
            size=size,
            stdin=os.fdopen(rin, "r"),
            stdout=os.fdopen(wout, "w"),
            log=io.StringIO(),
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        threading.Thread(target=self._read, daemon=True).start()

    def _serve(self) -> None:
        self.engine.run()
        self.engine.stdout.close()

    def _read(self) -> None:
        with os.fdopen(self._rout, "r") as out:
            for line in out:
                self.lines.put((time.perf_counter(), line.rstrip()))
        self.lines.put((time.perf_counter(), "<eof>"))

    def send(self, command: str) -> None:
        self._to_engine.write(command + "\n")

    def line(self, timeout: float = 60.0) -> tuple[float, str]:
        return self.lines.get(timeout=timeout)

    def reply(self, timeout: float = 60.0) -> list[str]:
        """The lines of one whole reply (up to its blank line)."""
        out = []
        while True:
            _, text = self.line(timeout)
            if text == "":
                return out
            assert text != "<eof>", out
            out.append(text)

    def close(self) -> None:
        self.send("quit")
        self._thread.join(timeout=60)


@pytest.fixture
def live() -> Live:  # type: ignore[misc]
    engine = Live(MCTSAgent(playouts=400, seed=1))
    yield engine
    engine.close()


def stream_until(live: Live, command: str, count: int) -> tuple[str, list[tuple[float, str]]]:
    """Send ``command``, collect ``count`` update lines as they arrive, then send ``name``."""
    live.send(command)
    _, head = live.line()
    updates = [live.line() for _ in range(count)]
    live.send("name")
    rest = live.reply()  # the rest of the analysis, up to its blank line
    updates += [(0.0, text) for text in rest]
    assert live.reply() == ["= fuseki"]  # the command that stopped it is answered next
    return head, updates


def test_lz_analyze_streams_until_the_next_command(live: Live) -> None:
    live.send("play b E5")
    assert live.reply() == ["="]
    head, updates = stream_until(live, "lz-analyze w 10", 4)
    assert head == "="
    stamps = [t for t, _ in updates[:4]]
    assert stamps[-1] - stamps[0] > 0.15  # spread over time at the interval, not written at once
    for _, text in updates:
        moves = parse_lz(text)
        visits = [m["visits"] for m in moves]
        assert visits == sorted(visits, reverse=True)
        assert all(m["move"].upper() != "E5" for m in moves)  # occupied
        assert all(0.0 <= m["lcb"] <= m["winrate"] for m in moves)
    # The visits of the best move grow from update to update: the search went on between them.
    tops = [parse_lz(text)[0]["visits"] for _, text in updates[:4]]
    assert tops[-1] > tops[0]


def test_kata_analyze_with_ownership_is_for_the_player_to_move(live: Live) -> None:
    # White has a solid wall on the right half; with White to move, that area is White's: positive.
    for v in ("F9", "F8", "F7", "F6", "F5", "F4", "F3", "F2", "F1"):
        live.send(f"play w {v}")
        assert live.reply() == ["="]
    _, updates = stream_until(live, "kata-analyze w 10 ownership true rootInfo true pvVisits true", 2)
    parsed = [parse_kata(text, 9) for _, text in updates]
    last = parsed[-1]
    own = last["ownership"]
    assert sum(own[r * 9 + 8] for r in range(9)) / 9 > 0.5  # column J: White's, White to move
    assert float(last["rootInfo"]["visits"]) > 0
    for m in last["moves"]:
        assert len(m["pvVisits"]) == len(m["pv"])
        assert m["pvVisits"][0] == m["visits"]
        assert m["pvVisits"] == sorted(m["pvVisits"], reverse=True)
    # The same position for Black: ownership flips sign.
    _, updates = stream_until(live, "kata-analyze b 10 ownership true", 1)
    own_b = parse_kata(updates[-1][1], 9)["ownership"]
    assert sum(own_b[r * 9 + 8] for r in range(9)) / 9 < -0.5


def test_sabaki_analyze_form(live: Live) -> None:
    head, updates = stream_until(live, "analyze b 10", 2)
    assert head == "="
    for _, text in updates:
        moves = parse_sabaki(text)
        assert len(re.findall(r"winrate \d\.\d+", text)) == len(moves)  # fractions, as Sabaki reads a dot
        assert all(isinstance(m["scoreLead"], float) for m in moves)


@pytest.mark.parametrize(("command", "parse"), [("lz-genmove_analyze", parse_lz), ("kata-genmove_analyze", parse_kata)])
def test_genmove_analyze_ends_with_play(live: Live, command: str, parse: object) -> None:
    live.send(f"7 {command} b 5")
    reply = live.reply()
    assert reply[0] == "=7"
    assert re.fullmatch(r"play (pass|resign|[A-HJ][1-9])", reply[-1]), reply[-1]
    for text in reply[1:-1]:
        parse(text)  # type: ignore[operator]
    vertex = reply[-1].split()[1]
    live.send("list_stones black")
    assert live.reply() == [f"= {vertex}"]


def test_bad_analysis_arguments_are_errors(live: Live) -> None:
    for command in ("lz-analyze b banana", "kata-analyze b 10 avoid b D4 1", "kata-analyze b 10 ownership maybe",
                    "lz-analyze b 10 ownership true", "kata-analyze b 10 maxmoves"):
        live.send(command)
        reply = live.reply()
        assert reply[0].startswith("? syntax error"), (command, reply)
    live.send("name")
    assert live.reply() == ["= fuseki"]


def test_maxmoves_and_minmoves(live: Live) -> None:
    _, updates = stream_until(live, "lz-analyze b 10 maxmoves 2", 1)
    assert all(len(parse_lz(text)) <= 2 for _, text in updates)
    _, updates = stream_until(live, "kata-analyze b 10 minmoves 81", 1)
    assert len(parse_kata(updates[0][1])["moves"]) == 81  # every legal move but pass, and pass


def test_gogui_interrupt_stops_a_long_genmove() -> None:
    slow = Live(Terminating(MCTSAgent(seconds=60.0, seed=1)))
    try:
        slow.send("list_commands")
        assert "gogui-interrupt" in slow.reply()
        slow.send("genmove b")
        time.sleep(0.5)
        t0 = time.perf_counter()
        slow.send("# interrupt")
        reply = slow.reply(timeout=30)
        assert time.perf_counter() - t0 < 10
        assert re.fullmatch(r"= [A-HJ][1-9]", reply[0]), reply
    finally:
        slow.close()


def test_end_of_input_stops_an_analysis() -> None:
    rin, win = os.pipe()
    engine = GtpEngine(MCTSAgent(playouts=100, seed=1), size=9, stdin=os.fdopen(rin, "r"), stdout=io.StringIO())
    thread = threading.Thread(target=engine.run, daemon=True)
    thread.start()
    with os.fdopen(win, "w") as w:
        w.write("lz-analyze b 10\n")
        w.flush()
        time.sleep(0.3)
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert engine.stdout.getvalue().startswith("=\n")  # type: ignore[attr-defined]


# ---- GoGui's analyze commands ------------------------------------------------------------


def gogui_engine() -> GtpEngine:
    return GtpEngine(MCTSAgent(playouts=300, seed=2), size=9, stdout=io.StringIO(), log=io.StringIO())


def test_gogui_analyze_commands_are_well_formed_and_known() -> None:
    engine = gogui_engine()
    reply = engine.handle("gogui-analyze_commands")
    assert reply is not None and reply.startswith("= ")
    lines = reply[2:].splitlines()
    assert any(line.startswith("gfx/") and "ownership" in line.lower() for line in lines)
    for line in lines:
        kind, label, command = line.split("/")
        assert kind in GOGUI_TYPES and label.strip()
        assert engine.handle(f"known_command {command.split()[0]}") == "= true"
        answer = engine.handle(command)
        assert answer is not None and answer.startswith("="), (command, answer)


def test_gogui_ownership_heat_map() -> None:
    engine = gogui_engine()
    for v in ("F9", "F8", "F7", "F6", "F5", "F4", "F3", "F2", "F1"):
        engine.handle(f"play w {v}")
    reply = engine.handle("fuseki-ownership")
    assert reply is not None
    gfx = parse_gfx(reply[2:])
    influence = gfx["INFLUENCE"]
    assert len(influence) == 81 and all(VERTEX.match(v) for v in influence)
    assert all(-1.0 <= x <= 1.0 for x in influence.values())
    assert sum(influence[f"J{r}"] for r in range(1, 10)) / 9 < -0.5  # White's side: negative (white)
    assert "to move" in gfx["TEXT"]
    board = engine.handle("fuseki-ownership_board")
    assert board is not None
    rows = board[2:].splitlines()
    assert len(rows) == 9 and all(len(r.split()) == 9 for r in rows)
    best = parse_gfx(engine.handle("fuseki-best_moves")[2:])  # type: ignore[index]
    assert best["VAR"][0][0] == "b" and len(best["LABEL"]) >= 1


def test_in_process_analysis_runs_for_the_budget() -> None:
    engine = gogui_engine()
    reply = engine.handle("kata-analyze b 0 ownership true")
    assert reply is not None
    head, *lines = reply.split("\n")
    assert head == "=" and len(lines) == 1  # no interval: only the last line
    assert len(parse_kata(lines[0], 9)["ownership"]) == 81


def test_colour_to_analyse_can_be_the_other_one() -> None:
    engine = gogui_engine()
    reply = engine.handle("lz-analyze w 0")
    assert reply is not None
    assert parse_lz(reply.split("\n")[1])
    assert engine.state.next_player is Color.BLACK  # analysis changes nothing
