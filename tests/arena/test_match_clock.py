"""Matches under a real clock: settings sent, time_left before every move, time per move recorded, losses on time."""

from __future__ import annotations

import re
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from fuseki.arena.clock import GameClock, format_time_control, parse_time_control
from fuseki.arena.match import Match, MatchSettings
from fuseki.cli import main
from fuseki.go.sgf import load_sgf
from fuseki.go.state import Color
from fuseki.search.timecontrol import TimeControl
from fuseki.util.errors import InputError

ENGINE = textwrap.dedent(
    '''
    """A GTP engine that plays the first free points, thinking --think seconds (--slow-at=N:S on move N)."""
    import sys, time

    COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    opts = dict(a.partition("=")[::2] for a in sys.argv[1:])
    log = open(opts["--log"], "a") if "--log" in opts else None
    size, taken, asked = 9, set(), 0

    def reply(text="", ok=True):
        sys.stdout.write(("=" if ok else "?") + " " + text + "\\n\\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if log:
            log.write(line); log.flush()
        parts = line.split()
        if not parts:
            continue
        cmd, args = parts[0], parts[1:]
        if cmd == "boardsize":
            size = int(args[0]); reply()
        elif cmd == "clear_board":
            taken, asked = set(), 0; reply()
        elif cmd == "play":
            taken.add(args[1].upper()); reply()
        elif cmd == "genmove":
            asked += 1
            slow = opts.get("--slow-at", "0:0").split(":")
            time.sleep(float(slow[1]) if int(slow[0]) == asked else float(opts.get("--think", "0")))
            if asked > int(opts.get("--moves", "4")):
                reply("pass"); continue
            free = [f"{COLS[c]}{r}" for r in range(1, size + 1) for c in range(size) if f"{COLS[c]}{r}" not in taken]
            move = free[0]
            taken.add(move); reply(move)
        elif cmd == "kgs-time_settings" and "--no-kgs" in opts:
            reply("unknown command", ok=False)
        elif cmd in ("name", "version", "komi", "time_settings", "kgs-time_settings", "time_left", "quit"):
            reply("clocked" if cmd == "name" else "")
            if cmd == "quit":
                break
        else:
            reply("unknown command", ok=False)
    '''
)


@pytest.fixture
def engine(tmp_path: Path):
    script = tmp_path / "clocked_engine.py"
    script.write_text(ENGINE)

    def command(*options: str) -> str:
        return shlex.join([sys.executable, str(script), *options])

    return command


def clock_match(a: str, b: str, spec: str, sgf_dir: Path | None = None, **kw: object) -> Match:
    settings = MatchSettings(
        engine_a=a, engine_b=b, size=7, referee=None, time_control=format_time_control(parse_time_control(spec)), **kw
    )
    return Match(settings, sgf_dir, setup_timeout=10.0)


def test_time_left_before_every_genmove_and_times_in_the_sgf(engine, tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    out = tmp_path / "games"
    summary = clock_match(engine(f"--log={log}", "--think=0.2"), engine("--moves=3"), "0 2 1", out).run(1)
    outcome = summary.outcomes[0]
    assert outcome.kind != "time" and summary.time_losses == 0
    sent = log.read_text().splitlines()
    assert "time_settings 0 2 1" in sent
    for i, line in enumerate(sent):
        if line.startswith("genmove"):
            # gtp2ogs's order: both clocks, then the move.
            assert sent[i - 2] == "time_left black 2 1" and sent[i - 1] == "time_left white 2 1", sent[i - 2 : i + 1]
    record = load_sgf(out / "game_0001.sgf")
    assert "clock: 0 s + 1 stones in 2 s (Canadian)" in record.comment
    assert len(record.comments) == len(record.moves) > 0
    used = [float(re.fullmatch(r"time used: ([0-9.]+) s", c).group(1)) for c in record.comments.values()]  # type: ignore[union-attr]
    a_moves = [u for (color, _), u in zip(record.moves, used) if color is Color.BLACK]
    assert all(0.2 <= u < 1.5 for u in a_moves)  # the think time plus a round trip
    text = (out / "game_0001.sgf").read_text()
    assert re.search(r"BL\[\d+\.\d\d\]", text) and re.search(r"OB\[1\]", text)


def test_a_late_move_loses_on_time(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    summary = clock_match(engine("--slow-at=2:1.6"), engine(), "0 1 1", out).run(1)
    outcome = summary.outcomes[0]
    assert outcome.kind == "time" and outcome.result == "W+T" and outcome.winner == "B"
    assert "on its clock" in outcome.reason
    assert summary.to_dict()["a_time_losses"] == 1
    record = load_sgf(out / "game_0001.sgf")
    assert record.result == "W+T"
    assert len(record.moves) == 2  # the moves before the late one are kept
    assert record.comment.splitlines()[1].startswith("time: black (A: clocked)")
    # A resumed match reads the loss back with its reason.
    again = clock_match(engine("--slow-at=2:1.6"), engine(), "0 1 1", out).run(1).outcomes[0]
    assert again.reused and again.kind == "time" and "on its clock" in again.reason


def test_a_hung_engine_loses_on_time_and_is_restarted(engine, tmp_path: Path) -> None:
    summary = clock_match(engine("--slow-at=1:30"), engine(), "absolute 1").run(2)
    first, second = summary.outcomes
    assert first.kind == "time" and first.result == "W+T"
    assert "no move" in first.reason
    # Killed after the grace time, restarted for game 2 (where, as White, it hangs again).
    assert second.kind == "time" and second.result == "B+T" and "no move" in second.reason


def test_byoyomi_is_sent_as_kgs_time_settings_or_its_gtp_approximation(engine, tmp_path: Path) -> None:
    for flag, expected in (("", "kgs-time_settings byoyomi 10 5 3"), ("--no-kgs", "time_settings 20 5 1")):
        log = tmp_path / f"byo{flag}.log"
        opts = [f"--log={log}"] + ([flag] if flag else [])
        clock_match(engine(*opts), engine(), "byoyomi 10 5 3").run(1)
        sent = log.read_text().splitlines()
        assert expected in sent
        assert "time_left black 10 0" in sent  # main time: 0 periods, as KGS and gtp2ogs send it


def test_game_clock_rules() -> None:
    clock = GameClock(TimeControl.byoyomi(3, 2, 2))
    assert clock.settings_commands()[0] == "kgs-time_settings byoyomi 3 2 2"
    assert clock.until_flag(Color.BLACK) == pytest.approx(7.0)
    clock.record(Color.BLACK, 4.0)  # 1 s into the first period: kept
    assert clock.time_left_command(Color.BLACK) == "time_left black 2 2"
    assert clock.until_flag(Color.BLACK) == pytest.approx(4.0)
    clock.record(Color.BLACK, 3.0)  # overran one period
    assert clock.time_left_command(Color.BLACK) == "time_left black 2 1" and not clock.lost(Color.BLACK)
    clock.record(Color.BLACK, 2.5)
    assert clock.lost(Color.BLACK)
    assert clock.time_left_command(Color.WHITE) == "time_left white 3 0"


def test_time_control_text() -> None:
    assert parse_time_control("0 5 1") == TimeControl.canadian(0, 5, 1)
    assert parse_time_control("300 0 0") == TimeControl.absolute(300)
    assert format_time_control(parse_time_control("canadian 60 30 10")) == "canadian 60 30 10"
    for bad in ("", "0 0 0", "0 10 0", "byoyomi 10 5", "hourglass 60", "absolute x", "byoyomi 1 1 -1"):
        with pytest.raises(InputError):
            parse_time_control(bad)
    with pytest.raises(InputError):
        MatchSettings(engine_a="a", engine_b="b", time_control="0 5 1")  # not the canonical form
    with pytest.raises(InputError):
        MatchSettings(engine_a="a", engine_b="b", time_control="canadian 0 5 1", clock=True)


def test_cli_time_control(engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", engine(), engine(), "--time-control", "0 0 0", "--referee", "none"]) == 2
    assert "no time limit" in capsys.readouterr().err
    code = main(["match", engine(), engine(), "--games", "1", "--size", "7", "--time-control", "0 3 1",
                 "--referee", "none", "--json", "--progress", "none"])
    assert code == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert '"a_time_losses": 0' in last
