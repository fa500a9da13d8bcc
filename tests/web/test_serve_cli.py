"""``fuseki serve`` in a real process: it listens, answers, plays a bot move in a worker, and stops."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from fuseki.cli import main


def start_server(db: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "fuseki", "serve", "--port", "0", "--db", str(db), "--workers", "1", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(60)
    if not lines or "listening on http://" not in lines[0]:
        proc.kill()
        raise AssertionError(f"no start line: {lines!r} {proc.stderr.read()!r}")  # type: ignore[union-attr]
    url = lines[0].split("listening on ", 1)[1].split()[0].rstrip("/")
    return proc, url


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGINT) -> tuple[int, str]:
    code, err, _ = stop_timed(proc, sig)
    return code, err


def stop_timed(proc: subprocess.Popen[str], sig: int = signal.SIGINT) -> tuple[int, str, float]:
    """``sig``, then the exit status, stderr, and the seconds until the server printed its "stopped" line."""
    lines: list[str] = []
    stopped_at: list[float] = []

    def read() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if "fuseki serve: stopped" in line and not stopped_at:
                stopped_at.append(time.monotonic())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    reader.join(10)
    took = (stopped_at[0] if stopped_at else time.monotonic()) - started
    return proc.returncode, "".join(lines), took


def test_serve_answers_and_stops(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path / "web.sqlite")
    try:
        assert url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=url, timeout=60) as client:
            assert client.get("/api/health").json() == {"ok": True}
            game = client.post("/api/games", json={"size": 9, "human": "white", "bot": "random"})
            assert game.status_code == 201 and len(game.json()["moves"]) == 1  # played in a worker process
            assert client.get("/").status_code == 200
    finally:
        code, err = stop(proc)
    assert code == 0, err
    assert "Traceback" not in err and "stopped" in err


def test_serve_stops_at_once_while_a_bot_is_thinking(tmp_path: Path) -> None:
    """Ctrl-C during a 10-second bot move: the worker is terminated, not waited for, and exit is clean.

    The clock stops at the server's "stopped" line (the worker pool is closed by then), not at the
    process's exit: the interpreter's own exit (freeing torch and Numba) took up to 8 s under a load
    average of 5, which said nothing about the bot's move.
    """
    proc, url = start_server(tmp_path / "web.sqlite")
    answers: list[object] = []

    def ask() -> None:
        try:
            with httpx.Client(base_url=url, timeout=60) as client:
                answers.append(client.post("/api/games", json={
                    "size": 9, "human": "white", "bot": "mcts",
                    "bot_options": {"seconds": 10, "playouts": 200_000}}).status_code)
        except httpx.HTTPError as e:
            answers.append(e)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    time.sleep(3)  # the worker is warm and thinking
    code, err, took = stop_timed(proc)
    asker.join(30)
    assert code == 0, err
    assert "Traceback" not in err and "stopped" in err, err
    assert took < 6, f"stopping took {took:.1f} s: it waited for the bot's move"
    assert answers and answers[0] != 201  # the move was abandoned, not answered


def test_serve_stops_on_sigterm_and_keeps_the_game(tmp_path: Path) -> None:
    db = tmp_path / "web.sqlite"
    proc, url = start_server(db)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            gid = client.post("/api/games", json={"size": 9, "human": "white", "bot": "random"}).json()["id"]
            client.post(f"/api/games/{gid}/moves", json={"vertex": "E5"})
    finally:
        code, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    proc, url = start_server(db)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            assert len(client.get(f"/api/games/{gid}").json()["moves"]) == 3
    finally:
        stop(proc)


def test_serve_refuses_a_port_in_use(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err


def test_serve_rejects_bad_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be at most 65535" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--workers", "0"])
