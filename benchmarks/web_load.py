"""Bounded load test of ``fuseki serve`` on 127.0.0.1 (issues 8 and 22).

Starts a real server (``python -m fuseki serve --port 0``, uvicorn, a fresh
SQLite file), then plays ``--games`` games at once against the random bot
over HTTP: each game is created, then the "human" plays ``--moves`` random
empty points (a refused point, 409, is tried again with another; that is not
an error). Every request's response time is recorded; the p50/p95/max and
the error count (any other non-2xx status, or a failed connection) go to
``--out`` with the command line.

With ``--analysis-clients K`` the same load runs twice in each of
``--rounds`` rounds, on the same server: once alone, once while K review
pages analyse positions the way the page does (each steps through a game,
analysing every position for 1 s; half the time it steps on before the
answer, which cancels the analysis on its channel) and one more client asks
for win-rate graphs. The bot replies' latency (a human move's request returns
with the bot's reply) is reported for both conditions side by side; analysis
answers 200 or 409 "cancelled", and anything else is an error.

With ``--probe-seconds S`` it then measures what the worker pool is for:
for each executor (``process``, ``thread``) a fresh server with one worker
starts a game against ``mcts`` thinking ``S`` seconds, and meanwhile
``GET /api/health`` is timed every 20 ms. With threads the Numba kernels hold
the GIL, so health checks wait; with processes they do not.

    .venv/bin/python benchmarks/web_load.py --games 50 --moves 10 --probe-seconds 3
    .venv/bin/python benchmarks/web_load.py --games 50 --moves 10 --analysis-clients 2 --rounds 2
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
    async def request(method: str, path: str, kind: str, **kw: object) -> httpx.Response | None:
        t0 = time.perf_counter()
        try:
            r = await client.request(method, path, **kw)  # type: ignore[arg-type]
        except httpx.HTTPError as e:
            stats["errors"].append(f"{method} {path}: {type(e).__name__}: {e}")
            return None
        elapsed = time.perf_counter() - t0
        stats["times"].append(elapsed)
        if r.status_code == 409:
            stats["refused"] += 1
        elif r.status_code >= 300:
            stats["errors"].append(f"{method} {path}: {r.status_code} {r.text[:200]}")
        elif kind == "move":
            stats["bot_replies"].append(elapsed)
        return r

    r = await request("POST", "/api/games", "create", json={"size": size, "bot": "random", "human": "black"})
    if r is None or r.status_code != 201:
        return
    game = r.json()
    gid = game["id"]
    for _ in range(moves):
        if game["over"] or game["status"] != "your_turn":
            break
        empties = [(i, j) for i, row in enumerate(game["board"]) for j, ch in enumerate(row) if ch == "."]
        rng.shuffle(empties)
        for i, j in empties[:5] or [None]:  # type: ignore[misc]
            vertex = "pass" if i is None else f"{COLUMNS[j]}{size - i}"
            r = await request("POST", f"/api/games/{gid}/moves", "move", json={"vertex": vertex})
            if r is None:
                return
            if r.status_code == 200:
                game = r.json()
                stats["moves"] += 1
                break
    await request("GET", f"/api/games/{gid}", "get")


#: The game the analysis clients step through: 40 moves on 9x9.
REVIEW_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]" + "".join(
    f";{'BW'[i % 2]}[{'abcdefghi'[(i * 4) % 9]}{'abcdefghi'[(i * 4) // 9 % 9]}]" for i in range(40)
) + ")"


async def analysis_client(client: httpx.AsyncClient, rid: str, channel: str, rng: random.Random, stop: asyncio.Event,
                          astats: dict) -> None:
    """Step through the review analysing each position for 1 s; half the time step on before the answer."""
    async def analyze(n: int) -> None:
        t0 = time.perf_counter()
        try:
            r = await client.post("/api/analyze", json={"review": rid, "n": n, "seconds": 1.0, "channel": channel})
        except httpx.HTTPError as e:
            astats["errors"].append(f"analyze {n}: {type(e).__name__}: {e}")
            return
        if r.status_code == 200:
            astats["answered"] += 1
            astats["times"].append(time.perf_counter() - t0)
        elif r.status_code == 409 and "cancelled" in r.text:
            astats["cancelled"] += 1
        else:
            astats["errors"].append(f"analyze {n}: {r.status_code} {r.text[:200]}")

    n = 0
    pending: list[asyncio.Task] = []
    while not stop.is_set():
        task = asyncio.create_task(analyze(n))
        pending.append(task)
        astats["requests"] += 1
        if rng.random() < 0.5:
            await asyncio.sleep(0.3)  # the player steps on: the next request cancels this one
        else:
            await task
        n = (n + 1) % 41
    await asyncio.gather(*pending)


async def graph_client(client: httpx.AsyncClient, rid: str, channel: str, stop: asyncio.Event, astats: dict) -> None:
    """Ask for the whole game's win-rate graph again and again (one position a step in the analysis pool)."""
    while not stop.is_set():
        astats["graph_requests"] += 1
        try:
            r = await client.post(f"/api/reviews/{rid}/winrates", json={"playouts": 300, "channel": channel})
        except httpx.HTTPError as e:
            astats["errors"].append(f"winrates: {type(e).__name__}: {e}")
            continue
        if r.status_code == 200:
            astats["graphs"] += 1
        else:
            astats["errors"].append(f"winrates: {r.status_code} {r.text[:200]}")


async def load_test(url: str, games: int, moves: int, size: int, seed: int, analysis_clients: int = 0) -> dict:
    stats: dict = {"times": [], "errors": [], "refused": 0, "moves": 0, "bot_replies": []}
    astats: dict = {"requests": 0, "answered": 0, "cancelled": 0, "errors": [], "times": [], "graph_requests": 0,
                    "graphs": 0}
    # Idle connections are dropped after 2 s, before uvicorn's 5 s keep-alive: reusing one that the server
    # is closing at that moment fails with a ReadError (a client-side race, not a server error).
    limits = httpx.Limits(max_connections=games + analysis_clients + 20, max_keepalive_connections=games + 20,
                          keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        stop = asyncio.Event()
        side: list[asyncio.Task] = []
        if analysis_clients:
            rid = (await client.post("/api/reviews", json={"sgf": REVIEW_SGF})).json()["id"]
            for k in range(analysis_clients):
                side.append(asyncio.create_task(
                    analysis_client(client, rid, f"load{seed}-{k}", random.Random(seed * 100 + k), stop, astats)))
            side.append(asyncio.create_task(graph_client(client, rid, f"load{seed}-graph", stop, astats)))
            await asyncio.sleep(1.0)  # the analyses are running before the first game starts
        t0 = time.perf_counter()
        await asyncio.gather(*(play_game(client, size, moves, random.Random(seed + k), stats) for k in range(games)))
        wall = time.perf_counter() - t0
        stop.set()
        await asyncio.gather(*side)
    out = {
        "games": games,
        "moves_per_game": moves,
        "size": size,
        "requests": len(stats["times"]) + len(stats["errors"]),
        "human_moves_played": stats["moves"],
        "refused_409": stats["refused"],
        "errors": len(stats["errors"]),
        "error_examples": stats["errors"][:5],
        **summary_ms(stats["times"]),
        "bot_replies": {"count": len(stats["bot_replies"]), **summary_ms(stats["bot_replies"])},
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(stats["times"]) / wall, 1),
    }
    if analysis_clients:
        out["analysis"] = {
            "clients": analysis_clients,
            "requests": astats["requests"],
            "answered": astats["answered"],
            "cancelled_409": astats["cancelled"],
            "answered_ms": summary_ms(astats["times"]) if astats["times"] else None,
            "graph_requests": astats["graph_requests"],
            "graphs_done": astats["graphs"],
            "errors": len(astats["errors"]),
            "error_examples": astats["errors"][:5],
        }
    return out


def pooled(runs: list[dict]) -> dict:
    """The bot replies of several runs of one condition, together."""
    return {
        "runs": len(runs),
        "games": sum(r["games"] for r in runs),
        "errors": sum(r["errors"] for r in runs) + sum((r.get("analysis") or {}).get("errors", 0) for r in runs),
        "bot_replies": sum(r["bot_replies"]["count"] for r in runs),
        "bot_reply_p50_ms": [r["bot_replies"]["p50_ms"] for r in runs],
        "bot_reply_p95_ms": [r["bot_replies"]["p95_ms"] for r in runs],
        "bot_reply_max_ms": [r["bot_replies"]["max_ms"] for r in runs],
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
    parser.add_argument("--analysis-clients", type=int, default=0,
                        help="also run the load beside this many analysing review pages (0: the load alone)")
    parser.add_argument("--rounds", type=int, default=1, help="with --analysis-clients: alone/with pairs to run")
    parser.add_argument("--probe-seconds", type=float, default=0.0, help="also run the blocking probe (0: skip)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "web_load.json"))
    args = parser.parse_args()

    load_avg = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "load.sqlite", args.workers, args.executor)
        try:
            t0 = time.perf_counter()
            httpx.post(f"{url}/api/games", json={"size": args.size}, timeout=120).raise_for_status()
            warm = time.perf_counter() - t0  # spawns and warms the worker processes
            rid = httpx.post(f"{url}/api/reviews", json={"sgf": REVIEW_SGF}, timeout=120).json()["id"]
            httpx.post(f"{url}/api/analyze", json={"review": rid, "n": 1, "seconds": 0.1}, timeout=120)
            result = asyncio.run(load_test(url, args.games, args.moves, args.size, args.seed))
            alone: list[dict] = [result]
            beside: list[dict] = []
            if args.analysis_clients:
                for k in range(args.rounds):
                    if k:
                        alone.append(asyncio.run(load_test(url, args.games, args.moves, args.size, args.seed + 1000 * k)))
                    beside.append(asyncio.run(load_test(url, args.games, args.moves, args.size, args.seed + 1000 * k + 500,
                                                        analysis_clients=args.analysis_clients)))
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

    out: dict = {
        "command": " ".join(shlex.quote(a) for a in [".venv/bin/python", "benchmarks/web_load.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_start": load_avg,
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "server": {"workers": args.workers, "analysis_workers": 1, "executor": args.executor,
                   "first_request_s": round(warm, 2)},
        "load": result,
        "blocking_probe": probes or None,
    }
    errors = result["errors"]
    if args.analysis_clients:
        a, b = pooled(alone), pooled(beside)
        out["with_analysis"] = {
            "runs_alone": alone,
            "runs_with_analysis": beside,
            "side_by_side": {
                "alone": a,
                "with_analysis": b,
                "p95_ratio_with_over_alone": [
                    round(y / x, 2) if x else None for x, y in zip(a["bot_reply_p95_ms"], b["bot_reply_p95_ms"])
                ],
            },
        }
        errors = a["errors"] + b["errors"]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out.get("with_analysis", {}).get("side_by_side", out["load"])))
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
