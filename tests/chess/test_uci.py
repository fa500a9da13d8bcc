"""``fuseki uci``: the protocol through python-chess's ``chess.engine`` (as GUIs and match runners drive it), and by hand.

The network is a tiny random one (1 block of 8 filters): these tests check
the protocol, not the play.
"""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from fuseki.chess.uci import GoLimits, UciEngine, UciError, parse_go, parse_position, time_budget


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    from fuseki.agents.zero_agent import build_zero_network, save_zero_network
    from fuseki.games.chess import ChessGame

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("uci") / "tiny.safetensors"
    net = build_zero_network(ChessGame(), 1, 8, value_hidden=16)
    save_zero_network(path, net, game="chess", game_options={}, blocks=1, channels=8, value_hidden=16)
    return path


def uci_argv(model: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "fuseki", "uci", "--model", str(model), *extra]


@pytest.fixture(scope="module")
def engine(model: Path):
    eng = chess.engine.SimpleEngine.popen_uci(uci_argv(model), timeout=60)
    yield eng
    eng.quit()


# ---- through python-chess ---------------------------------------------------------------------


def test_identifies_itself_and_its_options(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("fuseki")
    for name in ("Threads", "Simulations", "Batch", "CPuct", "Move Overhead"):
        assert name in engine.options
    assert engine.options["Threads"].type == "spin"


def test_plays_legal_moves_with_every_kind_of_limit(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    for limit in (
        chess.engine.Limit(nodes=24),
        chess.engine.Limit(depth=2),
        chess.engine.Limit(time=0.2),
        chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0.1, black_inc=0.1),
        chess.engine.Limit(white_clock=2, black_clock=2, remaining_moves=5),
    ):
        started = time.perf_counter()
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        elapsed = time.perf_counter() - started
        assert result.move in board.legal_moves, limit
        info = result.info
        assert info["nodes"] >= 1 and "score" in info and info["pv"][0] == result.move, (limit, info)
        if limit.nodes:
            assert info["nodes"] >= 24
        if limit.depth:
            assert info["depth"] >= 2 or len(info["pv"]) >= 2
        if limit.time:
            assert 0.15 <= elapsed < 3.0
        board.push(result.move)


def test_stop_during_go_infinite_is_answered_at_once(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    analysis = engine.analysis(board)  # go infinite
    nodes = 0
    started = time.perf_counter()
    for info in analysis:
        nodes = info.get("nodes", 0)
        if nodes > 0 or time.perf_counter() - started > 30:
            break
    time.sleep(0.3)  # still searching: nothing may come before stop
    stopped = time.perf_counter()
    analysis.stop()
    best = analysis.wait()
    latency = time.perf_counter() - stopped
    assert best.move in board.legal_moves
    assert latency < 1.0, latency
    assert nodes > 0


def test_infinite_search_waits_for_stop(model: Path) -> None:
    proc = subprocess.Popen(uci_argv(model), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[str] = []
        ready, done = threading.Event(), threading.Event()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line.strip())
                if line.startswith("readyok"):
                    ready.set()
                if line.startswith("bestmove"):
                    done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert proc.stdin is not None
        # one legal move only, and a tiny tree: an infinite search still waits for stop
        proc.stdin.write("uci\nisready\n")
        proc.stdin.flush()
        assert ready.wait(60), lines
        proc.stdin.write("position fen 7k/8/8/8/8/8/1q6/K7 w - - 0 1\ngo infinite\n")
        proc.stdin.flush()
        assert not done.wait(2.0), lines
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        assert done.wait(2.0), lines
        assert lines[-1] == "bestmove a1b2"
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_game_against_itself_to_the_end(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    engine.configure({"Batch": 4})
    while not board.is_game_over(claim_draw=True) and board.ply() < 60:
        result = engine.play(board, chess.engine.Limit(nodes=4))
        assert result.move in board.legal_moves
        board.push(result.move)
    assert board.ply() == 60 or board.is_game_over(claim_draw=True)


def test_a_finished_game_gets_bestmove_none(engine: chess.engine.SimpleEngine) -> None:
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert engine.play(mated, chess.engine.Limit(nodes=8)).move is None


# ---- by hand: errors are info strings, never tracebacks ------------------------------------------


def talk(model: Path, text: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(uci_argv(model, *extra), input=text, capture_output=True, text=True, timeout=120)


def test_bad_commands_are_answered_with_info_strings(model: Path) -> None:
    commands = [
        "uci",
        "isready",
        "flip",
        "position startpos moves e2e5",
        "go nodes 8",
        "position fen not a fen",
        "position",
        "position startpos moves e2e4 zz",
        "go nodes -3",
        "go wibble 3",
        "go movetime x",
        "setoption name Nonsense value 1",
        "setoption name Threads value 0",
        "setoption name CPuct value -1",
        "setoption Threads",
        "position startpos moves f2f3 e7e5 g2g4 d8h4",
        "go nodes 8",
        "setoption name Simulations value 16",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves g1f3",
        "go",
        "isready",
        "quit",
    ]
    proc = talk(model, "\n".join(commands) + "\n")
    out = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout and "Traceback" not in proc.stderr
    errors = [line for line in out if line.startswith("info string error:")]
    assert len(errors) == 13, "\n".join(out)
    assert "unknown command 'flip'" in errors[0]
    assert "move 1 e2e5 is illegal" in errors[1]
    assert "no valid position" in errors[2]
    bestmoves = [line for line in out if line.startswith("bestmove")]
    # go after a failed position, three malformed gos, go after mate, then a real search for Black
    assert bestmoves[:5] == ["bestmove (none)"] * 5, out
    last = chess.Board()
    last.push_uci("g1f3")
    assert chess.Move.from_uci(bestmoves[5].split()[1]) in last.legal_moves
    assert any("the game is over (checkmate)" in line for line in out)
    assert out.count("readyok") == 2  # the second one during the last search: isready never waits for a search


def test_a_wrong_model_is_refused_at_once_with_one_line(tmp_path: Path, model: Path) -> None:
    missing = subprocess.run(uci_argv(tmp_path / "none.safetensors"), input="uci\n", capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stdout == ""
    assert "no such Zero network file" in missing.stderr and "Traceback" not in missing.stderr
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"not a network at all")
    proc = subprocess.run(uci_argv(junk), input="uci\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not a Zero network file" in proc.stderr
    pytest.importorskip("torch")
    from fuseki.agents.zero_agent import build_zero_network, save_zero_network
    from fuseki.games import make_game

    ttt = tmp_path / "ttt.safetensors"
    save_zero_network(
        ttt, build_zero_network(make_game("tictactoe"), 1, 4), game="tictactoe", game_options={}, blocks=1, channels=4, value_hidden=64
    )
    proc = subprocess.run(uci_argv(ttt), input="uci\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not chess" in proc.stderr


# ---- in process: the parsers and the clock ----------------------------------------------------------


def test_parse_go() -> None:
    assert parse_go([]) == GoLimits()
    assert parse_go("movetime 1500".split()).movetime == 1.5
    g = parse_go("wtime 1000 btime 2000 winc 10 binc 20 movestogo 3 nodes 5 depth 4 infinite".split())
    assert (g.wtime, g.btime, g.winc, g.binc, g.movestogo, g.nodes, g.depth, g.infinite) == (1.0, 2.0, 0.01, 0.02, 3, 5, 4, True)
    for bad in ("nodes", "nodes 0", "depth x", "movetime 0", "searchmoves e2e4", "mate 3", "speed 3"):
        with pytest.raises(UciError):
            parse_go(bad.split())


def test_parse_position_keeps_the_history() -> None:
    state = parse_position("startpos moves g1f3 g8f6 f3g1 f6g8".split())
    assert state.repetitions() == 1 and len(state.ancestors()) == 5
    fen = parse_position("fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1".split())
    assert fen.board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    for bad in ("", "startpos moves e2e5", "fen", "middlegame", "fen 8/8/8/8/8/8/8/8 w - - 0 1"):
        with pytest.raises(UciError):
            parse_position(bad.split())


def test_time_budget() -> None:
    assert time_budget(GoLimits(), chess.WHITE, 0.03) is None
    assert time_budget(GoLimits(movetime=1.0), chess.WHITE, 0.03) == pytest.approx(0.97)
    clock = GoLimits(wtime=60.0, btime=30.0, winc=1.0, binc=0.0)
    assert time_budget(clock, chess.WHITE, 0.0) == pytest.approx(60 / 30 + 0.75)
    assert time_budget(clock, chess.BLACK, 0.0) == pytest.approx(1.0)
    assert time_budget(GoLimits(wtime=1.0, btime=1.0, movestogo=1), chess.WHITE, 0.1) == pytest.approx(0.8)
    assert time_budget(GoLimits(wtime=0.01, btime=1.0), chess.WHITE, 0.05) == pytest.approx(0.001)


def test_a_network_that_fails_to_load_is_reported_on_the_protocol() -> None:
    out = io.StringIO()

    def broken():  # type: ignore[no-untyped-def]
        raise ValueError("the weights do not fit")

    engine = UciEngine(broken, out)
    status = engine.serve(["uci", "isready", "go nodes 5", "quit"])
    text = out.getvalue().splitlines()
    assert status == 2
    assert "info string error: the network could not be loaded: the weights do not fit" in text
    assert "bestmove (none)" in text and "uciok" in text
