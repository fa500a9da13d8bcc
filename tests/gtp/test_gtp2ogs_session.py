"""fuseki as an OGS bot: the command sequence gtp2ogs sends, under a real byo-yomi clock.

gtp2ogs (online-go/gtp2ogs, src/Bot.ts and src/Game.ts, version 8) cannot be
installed here, so :class:`Gtp2OgsLike` sends what it sends, in its order and
its way:

- at start, ``list_commands``; it uses ``kgs-time_settings`` when listed;
- before each move it loads the state (``boardsize``, ``clear_board``,
  ``komi``, then one ``play`` per move so far, each awaited), either into a
  fresh bot from a pool (``manager: pool``) or only the new moves into the
  game's own process (``manager: persistent``);
- then, without waiting for the replies, ``kgs-time_settings byoyomi M P N``
  and ``time_left black T P``/``time_left white T P``, where T is what the
  server's clock showed at the last move minus the time since, rounded down,
  and P is 0 in main time and the periods left in byo-yomi (KGS's reading);
- then ``genmove COLOR``; lines end with CR LF;
- at the end ``final_score`` (``farewellscore``) and ``quit``.

The server's clock runs from the opponent's move (plus a simulated network
delay) to the arrival of our reply, so everything above counts. The engine
must never lose a byo-yomi period.
"""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys
import time

import pytest

from fuseki.go.state import Color, GameState, Move, Point
from fuseki.search.timecontrol import ClockState, TimeControl

#: OGS byo-yomi for the test: 4 s main time, then 3 periods of 2 s.
CLOCK = TimeControl.byoyomi(4, 2, 3)
#: What the server and gtp2ogs add to the engine's own time on every move (a network round trip).
NETWORK_DELAY = 0.1


class Gtp2OgsLike:
    """A controller that talks to an engine the way gtp2ogs does (see the module doc)."""

    my_color = Color.BLACK  #: the bot's colour on the server

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
        )
        self.sent: list[str] = []
        self.commands = set(self.command("list_commands").split())
        self.kgstime = "kgs-time_settings" in self.commands

    def write(self, line: str) -> None:
        self.sent.append(line)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\r\n")
        self.proc.stdin.flush()

    def read_reply(self) -> str:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the engine closed its output after {self.sent[-3:]}"
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.rstrip("\r\n"))
        text = "\n".join(lines)
        assert text.startswith("="), f"{self.sent[-1]!r} -> {text!r}"
        return text[1:].strip()

    def command(self, line: str) -> str:
        self.write(line)
        return self.read_reply()

    def load_state(self, size: int, komi: float, moves: list[tuple[Color, Move]]) -> None:
        self.command(f"boardsize {size}")
        self.command("clear_board")
        self.command(f"komi {komi:g}")
        for color, move in moves:
            self.command(f"play {color.name.lower()} {move.gtp(size)}")

    def clock_commands(self, clocks: dict[Color, ClockState], since_move: float) -> list[str]:
        """``kgs-time_settings`` and both ``time_left`` lines, as gtp2ogs's loadClock writes them."""
        assert self.kgstime, "gtp2ogs would fall back to time_settings; fuseki lists kgs-time_settings"
        out = [f"kgs-time_settings byoyomi {CLOCK.main:g} {CLOCK.period:g} {CLOCK.stones}"]
        for color in (Color.BLACK, Color.WHITE):
            c = clocks[color]
            offset = since_move if color is self.my_color else 0.0
            if c.in_overtime:
                left, periods = (c.period_left - offset), c.stones_left
            else:
                left, periods = c.main_left - offset, 0
            out.append(f"time_left {color.name.lower()} {math.floor(max(left, 0))} {periods}")
        return out

    def close(self) -> None:
        try:
            self.command("quit")
        finally:
            self.proc.wait(timeout=10)


def random_move(state: GameState, rng: random.Random) -> Move:
    """The opponent: a random legal move that fills no own eye, or a pass."""
    points = list(state.legal_points())
    n = state.size
    rng.shuffle(points)
    for p in points:
        if p == n * n:
            continue
        return Move.play(Point(*divmod(int(p), n)))
    return Move.pass_turn()


@pytest.mark.parametrize("manager", ["persistent", "pool"])
def test_gtp2ogs_session_never_loses_a_period(manager: str) -> None:
    argv = [sys.executable, "-m", "fuseki", "gtp", "--bot", "mcts", "--seed", "3", "--lag", "0.5"]
    bot = Gtp2OgsLike(argv)
    rng = random.Random(5)
    size, komi = 7, 7.5
    state = GameState.new(size, komi=komi)
    moves: list[tuple[Color, Move]] = []
    clocks = {c: ClockState.fresh(CLOCK) for c in (Color.BLACK, Color.WHITE)}
    spent: list[float] = []
    try:
        assert {"genmove", "play", "kgs-time_settings", "time_left", "final_score"} <= bot.commands
        if manager == "persistent":
            bot.load_state(size, komi, moves)
        for _ in range(10):
            if state.is_over():
                break
            # Black: the bot. The server's clock started at the opponent's move, a network delay ago.
            move_made = time.perf_counter() - NETWORK_DELAY
            if manager == "pool":
                bot.load_state(size, komi, moves)  # a pooled bot gets the whole game again
            lines = bot.clock_commands(clocks, time.perf_counter() - move_made)
            for line in lines + ["genmove black"]:
                bot.write(line)  # pipelined, as gtp2ogs's `void this.command(...)`
            for _line in lines:
                assert bot.read_reply() == ""
            reply = bot.read_reply()
            took = time.perf_counter() - move_made + NETWORK_DELAY  # and the way back to the server
            spent.append(took)
            before = clocks[Color.BLACK]
            clocks[Color.BLACK] = before.after_move(CLOCK, took)
            after = clocks[Color.BLACK]
            assert not after.lost
            if before.in_overtime:
                assert after.stones_left == before.stones_left, f"a period lost: {took:.2f} s on move {len(moves) + 1}"
            if reply == "resign":
                break
            move = Move.from_gtp(reply, size)
            state = state.play(move)
            moves.append((Color.BLACK, move))
            if state.is_over():
                break
            # White: the opponent, at once; the bot hears of it by play (persistent) or by the next reload.
            reply_move = random_move(state, rng)
            state = state.play(reply_move)
            moves.append((Color.WHITE, reply_move))
            if manager == "persistent":
                bot.command(f"play white {reply_move.gtp(size)}")
        assert len(spent) >= 5
        assert clocks[Color.BLACK].in_overtime  # the game reached byo-yomi: periods were at stake
        assert clocks[Color.BLACK].stones_left == CLOCK.stones
        assert re.fullmatch(r"[BW]\+\d+(\.5)?|0", bot.command("final_score"))
        # The sequence was gtp2ogs's: CR LF lines, clock before every genmove.
        genmoves = [i for i, line in enumerate(bot.sent) if line.startswith("genmove")]
        for i in genmoves:
            assert bot.sent[i - 3].startswith("kgs-time_settings byoyomi 4 2 3")
            assert bot.sent[i - 2].startswith("time_left black") and bot.sent[i - 1].startswith("time_left white")
    finally:
        bot.close()
    assert bot.proc.returncode == 0
    # The engine used its time, though gtp2ogs rounds the clock down to whole seconds: a 2 s
    # period with 0.1 s gone reads "1", so the engine plans with 1 s less than it has.
    assert max(spent) > 0.5
