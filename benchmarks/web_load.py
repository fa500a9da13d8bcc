"""Bounded load test of ``fuseki serve`` on 127.0.0.1 (issue 8).

Starts a real server (``python -m fuseki serve --port 0``, uvicorn, a fresh
SQLite file), then plays ``--games`` games at once against the random bot
over HTTP: each game is created, then the "human" plays ``--moves`` random
empty points (a refused point, 409, is tried again with another; that is not
an error). Every request's response time is recorded; the p50/p95/max and
the error count (any other non-2xx status, or a failed connection) go to
``--out`` with the command line.

With ``--probe-seconds S`` it then measures what the worker pool is for:
for each executor (``process``, ``thread``) a fresh server with one worker
starts a game against ``mcts`` thinking ``S`` seconds, and meanwhile
``GET /api/health`` is timed every 20 ms. With threads the Numba kernels hold
the GIL, so health checks wait; with processes they do not.

    .venv/bin/python benchmarks/web_load.py --games 50 --moves 10 --probe-seconds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def start_server(db: Path, workers: int, executor: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "fuseki", "serve", "--port", "0", "--db", str(db),
         "--workers", str(workers), "--executor", executor],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    line: list[str] = []
    t = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    t.start()
    t.join(120)
    if not line or "listening on http://" not in line[0]:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, line[0].split("listening on ", 1)[1].split()[0].rstrip("/")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def summary_ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(values, 50) * 1000, 1),
        "p95_ms": round(percentile(values, 95) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1) if values else float("nan"),
    }


async def play_game(client: httpx.AsyncClient, size: int, moves: int, rng: random.Random, stats: dict) -> None:
    async def request(method: str, path: str, **kw: object) -> httpx.Response | None:
        t0 = time.perf_counter()
        try:
            r = await client.request(method, path, **kw)  # type: ignore[arg-type]
        except httpx.HTTPError as e:
            stats["errors"].append(f"{method} {path}: {type(e).__name__}: {e}")
            return None
        stats["times"].append(time.perf_counter() - t0)
        if r.status_code == 409:
            stats["refused"] += 1
        elif r.status_code >= 300:
            stats["errors"].append(f"{method} {path}: {r.status_code} {r.text[:200]}")
        return r

    r = await request("POST", "/api/games", json={"size": size, "bot": "random", "human": "black"})
    if r is None or r.status_code != 201:
        return
    game = r.json()
    gid = game["id"]
    for _ in range(moves):
        if game["over"]:
            break
        empties = [(i, j) for i, row in enumerate(game["board"]) for j, ch in enumerate(row) if ch == "."]
        rng.shuffle(empties)
        for i, j in empties[:5] or [None]:  # type: ignore[misc]
            vertex = "pass" if i is None else f"{COLUMNS[j]}{size - i}"
            r = await request("POST", f"/api/games/{gid}/moves", json={"vertex": vertex})
            if r is None:
                return
            if r.status_code == 200:
                game = r.json()
                stats["moves"] += 1
                break
    await request("GET", f"/api/games/{gid}")


async def load_test(url: str, games: int, moves: int, size: int, seed: int) -> dict:
    stats: dict = {"times": [], "errors": [], "refused": 0, "moves": 0}
    limits = httpx.Limits(max_connections=games + 10, max_keepalive_connections=games + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        t0 = time.perf_counter()
        await asyncio.gather(*(play_game(client, size, moves, random.Random(seed + k), stats) for k in range(games)))
        wall = time.perf_counter() - t0
    return {
        "games": games,
        "moves_per_game": moves,
        "size": size,
        "requests": len(stats["times"]) + len(stats["errors"]),
        "human_moves_played": stats["moves"],
        "refused_409": stats["refused"],
        "errors": len(stats["errors"]),
        "error_examples": stats["errors"][:5],
        **summary_ms(stats["times"]),
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(stats["times"]) / wall, 1),
    }


async def probe(url: str, seconds: float) -> dict:
    """Health-check latency while one MCTS bot thinks for ``seconds``."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        await client.post("/api/games", json={"size": 9, "bot": "random", "human": "white"})  # start the worker
        body = {"size": 9, "bot": "mcts", "human": "white", "bot_options": {"seconds": seconds}}
        think = asyncio.create_task(client.post("/api/games", json=body))
        times: list[float] = []
        await asyncio.sleep(0.2)
        while not think.done():
            t0 = time.perf_counter()
            await client.get("/api/health")
            times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.02)
        r = await think
        assert r.status_code == 201, r.text
    return {"bot_seconds": seconds, "health_checks": len(times), **summary_ms(times)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=10, help="human moves per game (default 10)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--executor", choices=("process", "thread"), default="process")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--probe-seconds", type=float, default=0.0, help="also run the blocking probe (0: skip)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "web_load.json"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "load.sqlite", args.workers, args.executor)
        try:
            t0 = time.perf_counter()
            httpx.post(f"{url}/api/games", json={"size": args.size}, timeout=120).raise_for_status()
            warm = time.perf_counter() - t0  # spawns and warms the worker processes
            result = asyncio.run(load_test(url, args.games, args.moves, args.size, args.seed))
        finally:
            stop_server(proc)
        probes = {}
        if args.probe_seconds > 0:
            for executor in ("process", "thread"):
                proc, url = start_server(Path(tmp) / f"probe-{executor}.sqlite", 1, executor)
                try:
                    probes[executor] = asyncio.run(probe(url, args.probe_seconds))
                finally:
                    stop_server(proc)

    out = {
        "command": " ".join(shlex.quote(a) for a in [".venv/bin/python", "benchmarks/web_load.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "server": {"workers": args.workers, "executor": args.executor, "first_request_s": round(warm, 2)},
        "load": result,
        "blocking_probe": probes or None,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
