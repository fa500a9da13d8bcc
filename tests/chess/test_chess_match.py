"""``fuseki chess-match``: openings and colours, adjudication by the rules, forfeits, clocks, PGN, Elo, resume.

Most games are between two copies of a fake engine that plays random legal
moves and misbehaves on request (``tests/fakes/fake_uci_engine.py``); the
last test plays ``fuseki uci`` against the real Stockfish.
"""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from fuseki.chess.match import ChessMatch, ChessMatchSettings, GameRecord, summarize
from fuseki.chess.openings import load_openings
from fuseki.cli import main
from fuseki.util.errors import InputError
from fuseki.util.runs import RunFolderBusy, RunMismatch
from fuseki.util.stats import elo_difference, elo_interval

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "fake_uci_engine.py"
RULES = {
    "checkmate",
    "stalemate",
    "insufficient_material",
    "threefold_repetition",
    "fifty_moves",
    "fivefold_repetition",
    "seventy_five_moves",
}


def fake(*args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), *args])


def replay(path: Path) -> chess.Board:
    game = chess.pgn.read_game(io.StringIO(path.read_text(encoding="utf-8")))
    assert game is not None
    return game.end().board()


def test_random_engines_alternate_colours_share_openings_and_end_by_the_rules(tmp_path: Path) -> None:
    settings = ChessMatchSettings(fake("--seed", "1", "--name", "one"), fake("--seed", "2", "--name", "two"), movetime=1.0, seed=3)
    match = ChessMatch(settings, tmp_path / "m")
    result = match.run(4)
    records = [GameRecord(**json.loads((tmp_path / "m" / f"game_{i:04d}.json").read_text())) for i in range(1, 5)]
    assert [r.white for r in records] == ["A", "B", "A", "B"]
    assert records[0].opening == records[1].opening != records[2].opening == records[3].opening
    assert result.games == 4 and result.forfeits == {"A": 0, "B": 0} and result.distinct_games == 4
    assert result.names == {"A": "one", "B": "two"}
    for r in records:
        assert r.termination in RULES, r
        board = replay(tmp_path / "m" / f"game_{r.index:04d}.pgn")
        assert board.is_game_over(claim_draw=True)
        assert board.outcome(claim_draw=True).result() == r.result
        assert " ".join(m.uci() for m in board.move_stack) == r.moves
        opening = next(o for o in load_openings() if o.name == r.opening)
        assert r.moves.startswith(" ".join(opening.moves))
    pgn = (tmp_path / "m" / "games.pgn").read_text()
    assert pgn.count("[Event ") == 4 and '[White "one"]' in pgn and '[Black "one"]' in pgn


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("illegal", "illegal move"),
        ("junk", "protocol error"),
        ("none", "no move"),
        ("crash", "crashed"),
        ("hang", "no answer within its time"),
    ],
)
def test_a_misbehaving_engine_forfeits_and_is_restarted(tmp_path: Path, mode: str, words: str) -> None:
    settings = ChessMatchSettings(fake("--mode", mode, "--after", "2"), fake("--seed", "5"), movetime=0.2, grace=0.5)
    result = ChessMatch(settings, tmp_path / "m").run(2)
    assert result.forfeits == {"A": 2, "B": 0} and result.b_wins == 2
    for i in (1, 2):
        record = json.loads((tmp_path / "m" / f"game_{i:04d}.json").read_text())
        assert record["termination"] == "forfeit" and record["forfeit_by"] == "A"
        assert words in record["reason"], record["reason"]
        assert record["result"] == ("0-1" if record["white"] == "A" else "1-0")
        pgn = (tmp_path / "m" / f"game_{i:04d}.pgn").read_text()
        assert words in pgn and '[Termination "rules infraction"]' in pgn


def test_an_engine_over_its_clock_loses_on_time(tmp_path: Path) -> None:
    settings = ChessMatchSettings(fake("--mode", "slow=0.6", "--after", "2"), fake(), tc="0.5+0", grace=1.0)
    result = ChessMatch(settings, tmp_path / "m").run(1)
    record = json.loads((tmp_path / "m" / "game_0001.json").read_text())
    assert result.forfeits["A"] == 1 and "lost on time" in record["reason"]
    assert '[TimeControl "0.5+0"]' in (tmp_path / "m" / "game_0001.pgn").read_text()


def test_resume_extends_and_other_settings_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "m"
    settings = ChessMatchSettings(fake("--seed", "1"), fake("--seed", "2"), movetime=1.0)
    ChessMatch(settings, out).run(2)
    first = (out / "game_0001.pgn").read_text()
    result = ChessMatch(settings, out).run(3)
    assert result.games == 3 and (out / "game_0001.pgn").read_text() == first and (out / "game_0003.pgn").exists()
    with pytest.raises(RunMismatch, match="seed: 0 there, 9 now"):
        ChessMatch(ChessMatchSettings(fake("--seed", "1"), fake("--seed", "2"), movetime=1.0, seed=9), out).run(3)
    match = ChessMatch(settings, out)
    with match.run_folder.locked(), pytest.raises(RunFolderBusy):
        ChessMatch(settings, out).run(4)


def test_summary_elo_and_intervals() -> None:
    def rec(i: int, white: str, result: str) -> GameRecord:
        return GameRecord(i, white, result, "checkmate", "", 10, "x", None, str(i))

    results = ["1-0", "0-1", "1-0", "1/2-1/2", "1-0", "1/2-1/2", "0-1", "1-0"]  # A White in odd games: W W W D W D L L
    records = [rec(i, "A" if i % 2 else "B", r) for i, r in enumerate(results, 1)]
    s = summarize(records, {"A": "a", "B": "b"})
    assert (s.a_wins, s.draws, s.b_wins) == (4, 2, 2)
    assert s.score == pytest.approx(5 / 8) and s.elo == pytest.approx(elo_difference(5 / 8))
    assert s.elo_interval == pytest.approx(elo_interval(5, 8))
    zero = summarize([rec(1, "A", "0-1")], {"A": "a", "B": "b"})
    assert zero.score == 0.0 and "Elo <= " in zero.lines()[1]


def test_bad_settings_and_engines() -> None:
    with pytest.raises(ValueError, match="no limit"):
        ChessMatchSettings("a", "b")
    with pytest.raises(ValueError, match="not both"):
        ChessMatchSettings("a", "b", movetime=1.0, tc="1+0")
    with pytest.raises(ValueError, match="BASE"):
        ChessMatchSettings("a", "b", tc="fast")
    with pytest.raises(InputError, match="not a program"):
        ChessMatch(ChessMatchSettings("no-such-engine-here", fake(), movetime=1.0), "/tmp/unused").run(1)


def test_an_unknown_option_is_an_input_error(tmp_path: Path) -> None:
    settings = ChessMatchSettings(fake(), fake(), options_a={"Nope": "1"}, movetime=1.0)
    with pytest.raises(InputError, match="Nope"):
        ChessMatch(settings, tmp_path / "m").run(1)


def test_the_command_prints_the_result_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["chess-match", fake("--seed", "1"), fake("--seed", "2"), "--games", "2", "--movetime", "1", "--out", str(tmp_path / "c")]
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("fake vs fake") or " vs " in out[0]
    assert json.loads(out[-1])["games"] == 2
    assert main(["chess-match", "a", "b", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "no limit" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as e:
        main(["chess-match", "a", "b", "--out", "x", "--movetime", "1", "--option-a", "novalue"])
    assert e.value.code == 2


def test_fuseki_uci_against_stockfish_without_a_protocol_error(tmp_path: Path, stockfish: str, torch) -> None:
    """The issue's check, short: the UCI engine against Stockfish at skill 0, tiny move times, every game to its end."""
    from fuseki.agents.zero_agent import build_zero_network, save_zero_network
    from fuseki.games.chess import ChessGame

    torch.manual_seed(0)
    model = tmp_path / "tiny.safetensors"
    save_zero_network(model, build_zero_network(ChessGame(), 1, 8), game="chess", game_options={}, blocks=1, channels=8, value_hidden=64)
    ours = shlex.join([sys.executable, "-m", "fuseki", "uci", "--model", str(model)])
    settings = ChessMatchSettings(ours, stockfish, options_b={"Skill Level": "0", "Threads": "1"}, movetime=0.05, grace=3.0)
    result = ChessMatch(settings, tmp_path / "m").run(4)
    assert result.games == 4 and result.forfeits == {"A": 0, "B": 0}, result
    assert set(result.terminations) <= RULES
    assert result.names["A"].startswith("fuseki") and result.names["B"].startswith("Stockfish")
    for i in range(1, 5):
        board = replay(tmp_path / "m" / f"game_{i:04d}.pgn")
        assert board.is_game_over(claim_draw=True)


# ---- concurrency ----------------------------------------------------------------------------------

#: Starts with a few pieces, so that random games end within 100 plies (a capture leaves too little material, or the
#: 50-move rule): the concurrency tests play several matches of 4 games.
SHORT_OPENINGS = [
    "4k3/8/8/3n4/8/3N4/8/4K3 w - - 0 1",
    "8/8/3k4/2n5/8/2N5/3K4/8 w - - 0 1",
    "4k3/8/8/2b5/8/2N5/8/4K3 w - - 0 1",
]


def short_settings(tmp_path: Path) -> ChessMatchSettings:
    """Two fake engines whose moves depend only on the game (``--reseed``), from the short openings."""
    openings = tmp_path / "short.epd"
    openings.write_text("\n".join(SHORT_OPENINGS) + "\n")
    return ChessMatchSettings(
        fake("--seed", "1", "--name", "one", "--reseed"),
        fake("--seed", "2", "--name", "two", "--reseed"),
        movetime=1.0,
        openings=str(openings),
        seed=3,
    )


def game_files(out: Path) -> dict[int, tuple[dict[str, object], str]]:
    return {int(p.stem[5:]): (json.loads(p.read_text()), p.with_suffix(".pgn").read_text()) for p in sorted(out.glob("game_*.json"))}


@pytest.fixture(scope="module")
def one_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> tuple[ChessMatchSettings, dict[int, tuple[dict[str, object], str]], object]:
    """The 4-game match played one game at a time: what every concurrent run must reproduce."""
    tmp = tmp_path_factory.mktemp("serial")
    settings = short_settings(tmp)
    result = ChessMatch(settings, tmp / "m").run(4)
    return settings, game_files(tmp / "m"), result


def test_concurrent_games_are_the_games_played_one_at_a_time(one_at_a_time, tmp_path: Path) -> None:
    settings, serial, serial_result = one_at_a_time
    assert len(serial) == 4 and len({r["moves"] for r, _ in serial.values()}) == 4
    out = tmp_path / "m"
    heard: list[tuple[int, int]] = []
    result = ChessMatch(settings, out).run(4, on_game=lambda r, so_far: heard.append((r.index, so_far.games)), concurrency=2)
    assert game_files(out) == serial  # the same opening, colours, moves and result for every index, and the same PGN
    assert result == serial_result and (out / "games.pgn").read_text() == "".join(pgn for _, pgn in serial.values())
    assert sorted(i for i, _ in heard) == [1, 2, 3, 4] and [n for _, n in heard] == [1, 2, 3, 4]
    # each slot had its own engines, with its own stderr log
    pids = {}
    for name in ("engine-A.stderr.log", "engine-A.2.stderr.log", "engine-B.stderr.log", "engine-B.2.stderr.log"):
        lines = (out / name).read_text().splitlines()
        assert lines and all(" pid " in line for line in lines), name
        pids[name] = {line.split()[-1] for line in lines}
    assert not pids["engine-A.stderr.log"] & pids["engine-A.2.stderr.log"]
    assert not pids["engine-B.stderr.log"] & pids["engine-B.2.stderr.log"]


def test_a_match_resumes_at_another_concurrency(one_at_a_time, tmp_path: Path) -> None:
    settings, serial, _ = one_at_a_time
    out = tmp_path / "m"
    ChessMatch(settings, out).run(1)  # started one at a time
    ChessMatch(settings, out).run(3, concurrency=3)  # two more, at once: the settings check does not mind
    result = ChessMatch(settings, out).run(4, concurrency=1)
    assert result.games == 4 and game_files(out) == serial
    assert "concurrency" not in json.loads((out / "match.json").read_text())["settings"]


def test_an_aborted_concurrent_match_writes_no_cut_game_and_resumes(one_at_a_time, tmp_path: Path) -> None:
    settings, serial, _ = one_at_a_time
    out = tmp_path / "m"

    class Stop(Exception):
        pass

    def stop(record: GameRecord, so_far: object) -> None:
        raise Stop  # as a Ctrl-C would, after the first game

    with pytest.raises(Stop):
        ChessMatch(settings, out).run(4, on_game=stop, concurrency=2)
    written = game_files(out)
    assert 1 <= len(written) < 4  # the games in flight were killed and not written as forfeits
    assert all(written[i] == serial[i] for i in written)
    assert ChessMatch(settings, out).run(4, concurrency=2).games == 4 and game_files(out) == serial


def test_concurrency_below_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="concurrency must be at least 1, got 0"):
        ChessMatch(ChessMatchSettings(fake(), fake(), movetime=1.0), tmp_path / "m").run(2, concurrency=0)
    with pytest.raises(SystemExit) as e:
        main(["chess-match", fake(), fake(), "--movetime", "1", "--out", str(tmp_path / "c"), "--concurrency", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--concurrency: must be at least 1, got 0" in err and "Traceback" not in err
    assert not (tmp_path / "c").exists() and not (tmp_path / "m").exists()


def test_ctrl_c_stops_a_concurrent_match_without_false_forfeits(tmp_path: Path) -> None:
    """A Ctrl-C reaches the terminal's whole process group; the engines are in their own, so none dies first and forfeits."""
    import os
    import signal
    import subprocess
    import time

    openings = tmp_path / "short.epd"
    openings.write_text("\n".join(SHORT_OPENINGS) + "\n")
    out = tmp_path / "m"
    slow = fake("--mode", "slow=0.3", "--seed", "1")  # a game lasts seconds, so the signal finds both slots mid-game
    args = ["chess-match", slow, fake("--seed", "2"), "--games", "4", "--movetime", "1", "--openings", str(openings), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    child = subprocess.Popen(
        [sys.executable, "-m", "fuseki", *args, "--concurrency", "2"],
        env=env,
        start_new_session=True,  # its own group, which the test signals as a terminal would
        # A job started in the background by a shell (CI's runner, nohup) inherits SIGINT ignored, and Python then
        # installs no KeyboardInterrupt handler: give the match the disposition a terminal's program has.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("engine-A.2.stderr.log")) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # both slots are in a game
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    written = [json.loads(p.read_text()) for p in out.glob("game_*.json")]
    assert len(written) < 4 and all(r["termination"] != "forfeit" for r in written), written
    for log in out.glob("engine-*.stderr.log"):  # the signal never reached an engine: the match killed them
        assert "KeyboardInterrupt" not in log.read_text(), log.read_text()
    assert main([*args, "--quiet"]) == 0  # resumed one at a time
    records = [json.loads(p.read_text()) for p in sorted(out.glob("game_*.json"))]
    assert len(records) == 4 and all(r["termination"] in RULES for r in records), records
