"""The match runner: forfeits, restarts, resume, the tally and its JSON line, SGF output.

Most tests use a tiny scripted GTP engine (written to ``tmp_path``) that plays a
few stones along the first rows and then passes, and that can be told to
crash, hang, resign or answer nonsense at its N-th ``genmove``. Real GNU Go
plays one short match.
"""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.go.sgf import load_sgf
from fuseki.go.state import Color
from fuseki.arena.match import Match, MatchSettings, MatchSettingsMismatch
from fuseki.util.runs import LOCK_FILE
from fuseki.arena.outcome import GameOutcome, MatchSummary
from fuseki.go.sgf import parse_result
from fuseki.util.stats import wilson_interval


ENGINE = textwrap.dedent(
    '''
    """Scripted GTP engine: plays --moves stones on the first free points, then passes."""
    import os, sys, time

    COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    opts = {}
    for a in sys.argv[1:]:
        k, _, v = a.partition("=")
        opts[k] = v
    once = opts.get("--once")
    if once and os.path.exists(once):
        for k in ("--crash-at", "--hang-at", "--say-at", "--fail-at", "--resign-at"):
            opts.pop(k, None)
    log = open(opts["--log"], "a") if "--log" in opts else None
    if log:
        log.write(f"#start {time.time()}\\n"); log.flush()
    size, taken, asked = 9, set(), 0
    order = int(opts.get("--offset", "0"))

    def reply(text="", ok=True):
        sys.stdout.write(("=" if ok else "?") + " " + text + "\\n\\n")
        sys.stdout.flush()

    def at(key):
        return key in opts and int(opts[key].split(":")[0]) == asked

    def mark_once():
        if once:
            open(once, "w").close()

    for line in sys.stdin:
        if log:
            log.write(line); log.flush()
        parts = line.split()
        if not parts:
            continue
        cmd, args = parts[0], parts[1:]
        if cmd == "name":
            reply(opts.get("--name", "scripted"))
        elif cmd == "version":
            reply("1.0")
        elif cmd == "boardsize":
            size = int(args[0]); reply()
        elif cmd == "clear_board":
            taken = set(); asked = 0; reply()
        elif cmd == "play":
            if args[1].lower() != "pass":
                taken.add(args[1].upper())
            reply()
        elif cmd == "genmove":
            asked += 1
            time.sleep(float(opts.get("--think", "0")))
            if at("--crash-at"):
                mark_once(); sys.stderr.write("segfault, sort of\\n"); sys.exit(3)
            if at("--hang-at"):
                mark_once(); time.sleep(60)
            if at("--fail-at"):
                mark_once(); reply("cannot generate a move", ok=False); continue
            if at("--resign-at"):
                mark_once(); reply("resign"); continue
            if at("--say-at"):
                mark_once(); reply(opts["--say-at"].split(":", 1)[1]); continue
            if asked > int(opts.get("--moves", "3")):
                reply("pass"); continue
            free = [f"{COLS[c]}{r}" for r in range(1, size + 1) for c in range(size)
                    if f"{COLS[c]}{r}" not in taken]
            move = free[order % len(free)] if free else "pass"
            taken.add(move); reply(move)
        elif cmd == "quit":
            if log:
                log.write(f"#end {time.time()}\\n"); log.flush()
            reply(); break
        elif cmd in ("komi", "time_settings", "fixed_handicap"):
            reply("C3 G7" if cmd == "fixed_handicap" else "")
        else:
            reply("unknown command", ok=False)
    '''
)


@pytest.fixture
def engine(tmp_path: Path):
    """``engine("--crash-at=2")`` -> a command line (str) running the scripted engine."""
    script = tmp_path / "scripted_engine.py"
    script.write_text(ENGINE)

    def command(*options: str) -> str:
        return shlex.join([sys.executable, str(script), *options])

    return command


def _match(
    a: str, b: str, sgf_dir: Path | None = None, **kw
) -> tuple[Match, list[str]]:
    lines: list[str] = []
    kw.setdefault("referee", None)
    kw.setdefault("move_time", 5.0)
    settings = MatchSettings(engine_a=a, engine_b=b, **kw)
    return Match(settings, sgf_dir, progress=lambda event: lines.append(event.message), setup_timeout=5.0), lines


def test_a_second_match_on_the_same_folder_is_refused(engine, tmp_path: Path) -> None:
    from fuseki.util.runs import RunFolderBusy

    m, _ = _match(engine(), engine("--moves=1"), tmp_path / "games", size=7)
    assert m.folder is not None
    with m.folder.locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        m.run(1)
    assert not (tmp_path / "games" / "game_0001.sgf").exists()


# ---- pure parts -------------------------------------------------------------------


def test_wilson_interval_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236593, abs=1e-6) and hi == pytest.approx(
        0.763407, abs=1e-6
    )
    lo, hi = wilson_interval(0, 4)
    assert lo == 0.0 and hi == pytest.approx(0.489891, abs=1e-6)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.722467, abs=1e-6) and hi == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # symmetric: B's interval is the mirror of A's
    lo, hi = wilson_interval(3, 20)
    lo2, hi2 = wilson_interval(17, 20)
    assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)


def test_summary_counts_draws_half_and_forfeits_for_the_other_side() -> None:
    outcomes = (
        GameOutcome(1, Color.BLACK, "B+3.5", "A", "score"),
        GameOutcome(2, Color.WHITE, "0", None, "draw"),
        GameOutcome(3, Color.BLACK, "W+F", "B", "forfeit", "black crashed"),
        GameOutcome(4, Color.WHITE, "W+R", "A", "resign"),
    )
    s = MatchSummary(outcomes)
    data = s.to_dict()
    assert list(data)[:7] == [
        "games",
        "a_wins",
        "b_wins",
        "draws",
        "forfeits",
        "a_win_rate",
        "ci95",
    ]
    assert (
        data["games"],
        data["a_wins"],
        data["b_wins"],
        data["draws"],
        data["forfeits"],
    ) == (4, 2, 1, 1, 1)
    assert data["a_win_rate"] == pytest.approx(2.5 / 4)
    assert data["ci95"] == pytest.approx(list(wilson_interval(2.5, 4)), abs=1e-6)
    assert data["a_forfeits"] == 1 and data["b_forfeits"] == 0


def test_parse_result() -> None:
    assert parse_result("B+R") == (Color.BLACK, "resign")
    assert parse_result("w+f") == (Color.WHITE, "forfeit")
    assert parse_result("W+0.5") == (Color.WHITE, "score")
    assert parse_result("Draw") == (None, "draw")
    for bad in ("", "?", "Void", "B+x"):
        with pytest.raises(ValueError):
            parse_result(bad)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="handicap"):
        MatchSettings("a", "b", size=5, handicap=2)
    with pytest.raises(ValueError, match="unknown rule set"):
        MatchSettings("a", "b", rules="klingon")
    with pytest.raises(ValueError, match="move time"):
        MatchSettings("a", "b", move_time=0)


# ---- games with the scripted engine ---------------------------------------------------


def test_normal_games_alternate_colours_and_sgf_replays_to_result(
    engine, tmp_path: Path
) -> None:
    # A plays one more stone than B, so by area count (komi 0.5 < 1) ... A wins as Black
    # and as White the komi decides: check colours through the SGF, results through replay.
    out = tmp_path / "games"
    m, lines = _match(
        engine("--name=alpha", "--moves=4"),
        engine("--name=beta", "--moves=2"),
        out,
        komi=0.5,
    )
    summary = m.run(2)
    assert [o.a_color for o in summary.outcomes] == [Color.BLACK, Color.WHITE]
    assert len(lines) == 2 and lines[0].startswith("game 1/2: A black, B white")
    for o in summary.outcomes:
        record = load_sgf(out / f"game_{o.number:04d}.sgf")
        assert record.result == o.result
        assert (record.black, record.white) == (
            ("alpha 1.0", "beta 1.0")
            if o.a_color is Color.BLACK
            else ("beta 1.0", "alpha 1.0")
        )
        assert record.ruleset == "Chinese" and record.komi == 0.5
        final = record.replay()
        assert final.is_over() and final.score().result == record.result
    assert summary.a_wins == 2  # 4 stones against 2 on an open board wins either way


@pytest.mark.parametrize(
    ("option", "reason"),
    [
        ("--crash-at=2", "crashed"),
        ("--hang-at=2", "within"),
        ("--fail-at=2", "failure"),
        ("--say-at=2:banana", "banana"),
        ("--say-at=2:Z99", "Z99"),
        ("--say-at=2:A1", "occupied"),  # A1 holds A's first stone
    ],
)
def test_misbehaving_engine_forfeits_and_is_restarted(
    engine, tmp_path: Path, option: str, reason: str
) -> None:
    out = tmp_path / "games"
    once = tmp_path / "once"
    log = tmp_path / "b.log"
    bad = engine(option, f"--once={once}")  # misbehaves in its first game only
    m, lines = _match(bad, engine(f"--log={log}"), out, move_time=1.0)
    summary = m.run(2)
    first, second = summary.outcomes
    assert (
        first.forfeit and first.winner == "B" and first.result == "W+F"
    )  # A is Black in game 1
    assert reason.lower() in first.reason.lower()
    assert not second.forfeit  # restarted, and fine this time
    assert m.engines["A"].starts == 2
    record = load_sgf(out / "game_0001.sgf")
    assert (
        record.result == "W+F"
        and "forfeit: black (A" in record.comment
        and reason.lower() in record.comment.lower()
    )
    assert "W+F" in lines[0] and "A wins" not in lines[0]
    if option == "--say-at=2:A1":
        # the illegal move was never passed on to the opponent
        # (A1 is B's first stone: the engine heard it once, and not the illegal repeat)
        assert log.read_text().split("clear_board")[1].count("play black A1") == 1


def test_resignation_ends_the_game(engine, tmp_path: Path) -> None:
    m, _ = _match(engine(), engine("--resign-at=1"), tmp_path / "g")
    (o,) = m.run(1).outcomes
    assert o.result == "B+R" and o.winner == "A" and o.kind == "resign"
    record = load_sgf(tmp_path / "g" / "game_0001.sgf")
    assert record.result == "B+R" and len(record.moves) == 1


def test_engine_that_dies_at_start_forfeits_every_game(engine, tmp_path: Path) -> None:
    dead = shlex.join([sys.executable, "-c", "import sys; sys.exit(5)"])
    m, _ = _match(engine(), dead, tmp_path / "g")
    summary = m.run(2)
    assert summary.forfeits == 2 and summary.a_wins == 2
    assert all("crashed" in o.reason or "started" in o.reason for o in summary.outcomes)


def test_move_cap_stops_and_scores(engine, tmp_path: Path) -> None:
    m, _ = _match(
        engine("--moves=50"), engine("--moves=50", "--offset=1"), None, max_moves=6
    )
    (o,) = m.run(1).outcomes
    assert o.moves == 6 and "move cap" in o.reason


def test_handicap_gives_black_the_stones(engine, tmp_path: Path) -> None:
    m, _ = _match(engine(), engine(), tmp_path / "g", handicap=2)
    m.run(1)
    record = load_sgf(tmp_path / "g" / "game_0001.sgf")
    assert record.handicap == 2 and len(record.setup_black) == 2
    assert record.moves[0].color is Color.WHITE


# ---- resume --------------------------------------------------------------------------


def test_resume_plays_only_the_missing_games(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    log = tmp_path / "a.log"
    a = engine(f"--log={log}")
    m, _ = _match(a, engine("--moves=2"), out)
    first = m.run(2)
    assert sorted(p.name for p in out.iterdir() if p.name != LOCK_FILE) == [
        "game_0001.sgf",
        "game_0002.sgf",
        "match.json",
    ]
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("*.sgf")}
    games_played = log.read_text().count("clear_board")
    m, lines = _match(a, engine("--moves=2"), out)
    second = m.run(4)
    assert [o.reused for o in second.outcomes] == [True, True, False, False]
    assert (
        log.read_text().count("clear_board") - games_played == 2
    )  # only two more games
    assert {
        p.name: p.stat().st_mtime_ns for p in out.glob("game_000[12].sgf")
    } == stamps
    assert [o.result for o in second.outcomes[:2]] == [o.result for o in first.outcomes]
    assert "earlier run" in lines[0]


def test_resume_reuses_forfeit_reasons(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    m, _ = _match(engine("--say-at=1:banana"), engine(), out)
    m.run(1)
    m, _ = _match(engine("--say-at=1:banana"), engine(), out)
    (o,) = m.run(1).outcomes
    assert o.reused and o.forfeit and "banana" in o.reason.lower()


def test_resume_refuses_other_settings(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    m, _ = _match(engine(), engine(), out)
    m.run(1)
    m, _ = _match(engine(), engine(), out, komi=6.5)
    with pytest.raises(MatchSettingsMismatch, match="komi"):
        m.run(2)


# ---- the command line ------------------------------------------------------------------


def test_cli_json_line(engine, tmp_path: Path, capsys) -> None:
    out = tmp_path / "games"
    argv = ["match", engine(), engine("--moves=1"), "--games", "2", "--referee", "none"]
    code = main([*argv, "--size", "7", "--sgf-dir", str(out), "--json"])
    captured = capsys.readouterr()
    assert code == 0
    data = json.loads(captured.out.strip().splitlines()[-1])
    assert list(data)[:7] == [
        "games",
        "a_wins",
        "b_wins",
        "draws",
        "forfeits",
        "a_win_rate",
        "ci95",
    ]
    assert data["games"] == 2 and data["a_wins"] + data["b_wins"] + data["draws"] == 2
    assert (
        len(data["ci95"]) == 2
        and 0 <= data["ci95"][0] <= data["a_win_rate"] <= data["ci95"][1] <= 1
    )
    assert captured.err.count("game ") >= 2
    # same folder, other settings: one clear line, status 2
    code = main([*argv, "--size", "9", "--sgf-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "other settings" in err and "size" in err


def test_cli_missing_program_is_a_user_error(capsys) -> None:
    code = main(
        ["match", "no-such-engine-xyz", "no-such-engine-xyz", "--referee", "none"]
    )
    assert code == 2 and "not found" in capsys.readouterr().err


# ---- real engines ---------------------------------------------------------------------


@pytest.mark.gnugo
def test_gnugo_against_itself_with_gnugo_referee(gnugo: str, tmp_path: Path) -> None:
    out = tmp_path / "games"
    cmd = f"{gnugo} --mode gtp --level 1"
    m, _ = _match(
        cmd,
        cmd,
        out,
        size=5,
        referee=f"{gnugo} --mode gtp --chinese-rules",
        move_time=10,
    )
    summary = m.run(2)
    assert summary.games == 2 and summary.forfeits == 0
    for o in summary.outcomes:
        record = load_sgf(out / f"game_{o.number:04d}.sgf")
        assert record.black.startswith("GNU Go") and record.result == o.result
        _, kind = parse_result(record.result)
        final = record.replay()
        assert final.is_over() if kind == "score" else kind == "resign"


@pytest.mark.gnugo
def test_random_bot_loses_to_gnugo(tmp_path: Path, capsys: pytest.CaptureFixture[str], gnugo: str) -> None:
    """The CI match of issue 4: GNU Go must beat the random bot in every game."""
    out = tmp_path / "games"
    ours = shlex.join([sys.executable, "-m", "fuseki", "gtp", "--bot", "random"])
    code = main(
        [
            "match",
            ours,
            f"{gnugo} --mode gtp --level 1",
            "--size",
            "9",
            "--games",
            "2",
            "--sgf-dir",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["games"] == 2 and data["b_wins"] == 2 and data["forfeits"] == 0
    for path in sorted(out.glob("game_*.sgf")):
        record = load_sgf(path)
        assert record.replay().is_over() or record.result.endswith("+R")


def test_doctests() -> None:
    import doctest

    import fuseki.arena.match
    import fuseki.arena.outcome
    import fuseki.arena.scoring

    for module in (fuseki.arena.match, fuseki.arena.outcome, fuseki.arena.scoring):
        failures, _ = doctest.testmod(module)
        assert failures == 0, module.__name__


# ---- our own count and its dead-stone estimate (spec T4) ---------------------------------

#: A 5x5 position where the two estimates disagree: B5 (Black) and the White string
#: C5 B4 C4 are both in atari. The network's static rule calls both dead; the
#: playouts see that Black, to move, captures first.
MUTUAL_ATARI = """
. X O X .
X O O X .
. . X . .
. . . . .
. . . . .
"""


def test_own_count_estimates_differ_and_name_themselves() -> None:
    from fuseki.go.coords import Point
    from fuseki.go.state import GameState
    from fuseki.arena.scoring import OwnCount, scored_by

    state = GameState.from_ascii(MUTUAL_ATARI)
    none, playouts, network = OwnCount(), OwnCount("playouts"), OwnCount("network")
    assert none.dead(state) == []
    assert Point(0, 1) not in playouts.dead(state) and Point(1, 1) in playouts.dead(state)
    assert Point(0, 1) in network.dead(state) and Point(1, 1) in network.dead(state)
    for count, method in ((none, "none"), (playouts, "playouts"), (network, "network")):
        result, note = count.score(state)
        parse_result(result)
        assert scored_by(note) == method, note
    assert network.score(state)[1].endswith("(4 dead stones removed)")
    with pytest.raises(ValueError, match="unknown dead-stone estimate 'magic'"):
        OwnCount("magic")
    with pytest.raises(ValueError, match="network estimate only"):
        OwnCount("playouts", model="x")


def test_settings_check_the_dead_stone_choice() -> None:
    with pytest.raises(ValueError, match="unknown dead-stone estimate"):
        MatchSettings(engine_a="a", engine_b="b", dead_stones="magic")
    with pytest.raises(ValueError, match="network estimate only"):
        MatchSettings(engine_a="a", engine_b="b", dead_stones_model="m.safetensors")
    assert MatchSettings(engine_a="a", engine_b="b").dead_stones == "none"  # as before: every stone alive


def test_match_scores_by_the_network_when_asked(
    engine, tmp_path: Path, dead_stones_spy: Callable[..., list[object]]
) -> None:
    calls = dead_stones_spy()
    out = tmp_path / "games"
    m, _ = _match(engine("--moves=4"), engine("--moves=2"), out, size=7, komi=0.5, dead_stones="network")
    summary = m.run(2)
    assert len(calls) == 2
    for o in summary.outcomes:
        # Every White stone removed: all 49 points are Black's.
        assert o.result == "B+48.5" and o.dead_stones == "network"
        assert o.to_dict()["dead_stones"] == "network"
        comment = load_sgf(out / f"game_{o.number:04d}.sgf").comment
        assert "note: scored by our area count, dead stones: network" in comment
    # Resuming reads the estimate back from the SGF files.
    m2, _ = _match(engine("--moves=4"), engine("--moves=2"), out, size=7, komi=0.5, dead_stones="network")
    again = m2.run(2)
    assert all(o.reused and o.dead_stones == "network" for o in again.outcomes)
    # Another estimate is another match.
    m3, _ = _match(engine("--moves=4"), engine("--moves=2"), out, size=7, komi=0.5)
    with pytest.raises(MatchSettingsMismatch, match="dead_stones"):
        m3.run(1)


def test_default_count_keeps_every_stone_alive(engine, dead_stones_spy: Callable[..., list[object]]) -> None:
    calls = dead_stones_spy()
    m, _ = _match(engine("--moves=4"), engine("--moves=2"), size=7, komi=0.5)
    o = m.run(1).outcomes[0]
    assert calls == [] and o.dead_stones == "none" and o.result == "B+1.5"
    assert "every stone alive" in o.reason


def test_old_match_json_without_the_setting_resumes(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    m, _ = _match(engine(), engine("--moves=1"), out, size=7)
    m.run(1)
    data = json.loads((out / "match.json").read_text())
    for key in ("dead_stones", "dead_stones_model"):
        del data["settings"][key]  # as written before the setting existed
    (out / "match.json").write_text(json.dumps(data))
    m2, _ = _match(engine(), engine("--moves=1"), out, size=7)
    assert m2.run(1).outcomes[0].reused


def test_clock_is_sent_only_when_asked(engine, tmp_path: Path) -> None:
    for clock in (False, True):
        log = tmp_path / f"clock-{clock}.log"
        m, _ = _match(engine(f"--log={log}"), engine("--moves=1"), size=7, clock=clock, move_time=5.0)
        m.run(1)
        assert ("time_settings 0 5 1" in log.read_text()) is clock


def test_old_match_json_was_played_with_a_clock(engine, tmp_path: Path) -> None:
    out = tmp_path / "games"
    m, _ = _match(engine(), engine("--moves=1"), out, size=7, clock=True)
    m.run(1)
    data = json.loads((out / "match.json").read_text())
    del data["settings"]["clock"]  # as written before the setting existed, when every match had a clock
    (out / "match.json").write_text(json.dumps(data))
    m2, _ = _match(engine(), engine("--moves=1"), out, size=7)
    with pytest.raises(MatchSettingsMismatch, match="clock: True there, False now"):
        m2.run(1)
    m3, _ = _match(engine(), engine("--moves=1"), out, size=7, clock=True)
    assert m3.run(1).outcomes[0].reused
    assert MatchSettings.from_dict({"engine_a": "a", "engine_b": "b"}).clock is True


def test_failed_referee_falls_back_to_the_chosen_estimate(
    engine, fake_gnugo, dead_stones_spy: Callable[..., list[object]]
) -> None:
    calls = dead_stones_spy()
    m, _ = _match(
        engine("--moves=4"), engine("--moves=2"), size=7, komi=0.5, referee=fake_gnugo("--refuse-play"),
        dead_stones="network",
    )
    o = m.run(1).outcomes[0]
    assert len(calls) == 1 and o.result == "B+48.5" and o.dead_stones == "network"
    assert "the referee failed" in o.reason and "dead stones: network" in o.reason


def test_cli_dead_stones_flags(engine, tmp_path: Path, capsys) -> None:
    argv = ["match", engine("--moves=4"), engine("--moves=2"), "--games", "1", "--size", "7", "--referee", "none"]
    assert main([*argv, "--dead-stones", "network", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["results"][0]["dead_stones"] == "network"
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a model")
    for extra, message in (
        (["--dead-stones", "network", "--dead-stones-model", str(bad)], "not a dead-stone model file"),
        (["--dead-stones-model", str(bad)], "applies to --dead-stones network only"),
    ):
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


# ---- {seed}: a seed of its own for each game ---------------------------------------


def test_fill_seed_replaces_the_placeholder_inside_words() -> None:
    from fuseki.arena.gtp_engines import fill_seed

    assert fill_seed(["michi", "-z{seed}", "gtp"], 17) == ["michi", "-z17", "gtp"]
    assert fill_seed(["x", "--seed", "{seed}", "--log=a{seed}b{seed}"], 3) == ["x", "--seed", "3", "--log=a3b3"]
    assert fill_seed(["gnugo", "--mode", "gtp"], 5) == ["gnugo", "--mode", "gtp"]


def test_seed_placeholder_gives_each_game_and_side_its_own_seed(engine, tmp_path: Path) -> None:
    from fuseki.util.seeds import derive_seed

    logs = tmp_path / "logs"
    logs.mkdir()
    a = engine("--moves=2", f"--log={logs}/a-{{seed}}.txt")
    b = engine("--moves=2", "--offset=40", f"--log={logs}/b.txt")
    m, _ = _match(a, b, tmp_path / "games", size=9, seed=11)
    summary = m.run(3)
    assert len(summary.outcomes) == 3 and all(o.kind != "forfeit" for o in summary.outcomes)
    seeds = [derive_seed(11, n, "A") for n in (1, 2, 3)]
    assert len(set(seeds)) == 3 and derive_seed(11, 1, "B") != seeds[0]
    # A was started once per game, each time with that game's seed in its command line ...
    assert sorted(p.name for p in logs.glob("a-*.txt")) == sorted(f"a-{s}.txt" for s in seeds)
    assert m.engines["A"].starts == 3
    for n, s in enumerate(seeds, 1):
        assert (logs / f"a-{s}.txt").read_text().count("clear_board") == 1, n
    # ... while B, without the placeholder, kept running through the match.
    assert m.engines["B"].starts == 1
    assert (logs / "b.txt").read_text().count("clear_board") == 3
    # The settings keep the command as written, so a resumed match fills it the same way.
    settings = json.loads((tmp_path / "games" / "match.json").read_text())
    assert "{seed}" in json.dumps(settings)
    assert m.game_seed(2, "A") == seeds[1]


# ---- several games at a time -------------------------------------------------------


def _moves_and_results(folder: Path) -> list[tuple[str, list[str]]]:
    games = []
    for path in sorted(folder.glob("game_*.sgf")):
        record = load_sgf(path)
        games.append((record.result, [str(m) for m in record.moves]))
    return games


def test_workers_play_the_same_games_as_one_at_a_time_and_at_once(engine, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    # Each game's moves depend on its seed, so a game given to the wrong engine or seed would differ.
    a = engine("--moves=3", "--offset={seed}", "--think=0.2", f"--log={logs}/a-{{seed}}.txt")
    b = engine("--moves=3", "--offset={seed}", "--think=0.2", f"--log={logs}/b-{{seed}}.txt")
    one, _ = _match(a, b, tmp_path / "one", size=9, seed=5)
    one.run(6)
    logs_one = {p.name for p in logs.iterdir()}
    for p in logs.iterdir():
        p.unlink()
    three, lines = _match(a, b, tmp_path / "three", size=9, seed=5)
    summary = three.run(6, workers=3)
    assert [o.number for o in summary.outcomes] == [1, 2, 3, 4, 5, 6]
    assert all(o.kind != "forfeit" for o in summary.outcomes)
    assert _moves_and_results(tmp_path / "one") == _moves_and_results(tmp_path / "three")
    assert {p.name for p in logs.iterdir()} == logs_one and len(logs_one) == 12  # a process per game and side
    assert len(lines) == 6 and lines[-1].endswith(f"| A {summary.a_wins} - B {summary.b_wins}")
    # The games really ran side by side: some two of engine A's lives overlap.
    lives = []
    for path in logs.glob("a-*.txt"):
        stamps = dict(line[1:].split() for line in path.read_text().splitlines() if line.startswith("#"))
        lives.append((float(stamps["start"]), float(stamps["end"])))
    lives.sort()
    assert any(later[0] < earlier[1] for earlier, later in zip(lives, lives[1:]))


def test_an_aborted_parallel_match_writes_no_half_game_and_resumes(engine, tmp_path: Path) -> None:
    a = engine("--moves=3", "--offset={seed}", "--think=0.3")
    b = engine("--moves=3", "--offset=40", "--think=0.3")
    seen: list[str] = []

    def stop_after_the_first(event) -> None:
        seen.append(event.message)
        raise RuntimeError("stop the match")

    settings = MatchSettings(engine_a=a, engine_b=b, size=9, referee=None, move_time=5.0)
    match = Match(settings, tmp_path / "games", progress=stop_after_the_first, setup_timeout=5.0)
    with pytest.raises(RuntimeError, match="stop the match"):
        match.run(4, workers=2)
    written = sorted((tmp_path / "games").glob("game_*.sgf"))
    assert 1 <= len(written) <= 2 and len(seen) == 1
    # The games the abort cut short were not written as forfeits: every game on disk is a real one.
    assert all("F" not in (load_sgf(p).result or "") for p in written)
    again, lines = _match(a, b, tmp_path / "games", size=9)
    summary = again.run(4, workers=2)
    assert len(summary.outcomes) == 4 and all(o.kind != "forfeit" for o in summary.outcomes)
    assert sum("[from an earlier run]" in line for line in lines) == len(written)


def test_workers_must_be_positive(engine, tmp_path: Path) -> None:
    m, _ = _match(engine(), engine(), tmp_path / "games", size=9)
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        m.run(2, workers=0)
