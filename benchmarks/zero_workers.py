"""Zero self-play speed by the number of local workers (`fuseki zero train --workers N`), issue 18's "workers on many cores".

For each worker count N this starts the loop's own runner
(:class:`fuseki.zero.workers.LocalRunner`: N spawned processes, one torch
thread each, the generation's games split into N contiguous slices), warms
every worker up (each process imports torch and loads the Numba kernels from
the cache), then times one generation's self-play of ``--games-per-worker``
× N games: the work grows with the workers (weak scaling), so each worker
plays the same batch of games at once as one worker alone, and ideal scaling
is N times the games per second of one. The network is a random 9×9 Zero
network (``--blocks`` × ``--channels``; an untrained network costs what a
trained one does); the search settings are the 12-hour run's (Gumbel root,
32 simulations, m 16, 4 leaves a game) with games stopped after
``--moves`` moves so that a measurement is short.

Results go to ``--out`` as they come (one entry per worker count); a count
already there is not measured again, so a killed run goes on where it stopped.

    python benchmarks/zero_workers.py --workers 1,4,8,16 --out zero_workers.json
    python benchmarks/zero_workers.py --workers 1,2 --games-per-worker 2 --moves 2 --simulations 4 --blocks 1 --channels 8 --out /tmp/w.json
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--workers", default="1,4,8,16", help="comma-separated worker counts (default 1,4,8,16)")
    p.add_argument("--games-per-worker", type=int, default=32, help="games each worker plays, all at once (default 32)")
    p.add_argument("--moves", type=int, default=20, help="moves a game from the empty board (default 20)")
    p.add_argument("--simulations", type=int, default=32)
    p.add_argument("--root", default="gumbel", choices=("puct", "gumbel"))
    p.add_argument("--gumbel-m", type=int, default=16)
    p.add_argument("--leaves", type=int, default=4)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--precision", default="fp32", choices=("fp32", "bf16"))
    p.add_argument("--device", default="cpu", help="where the workers' networks run (default cpu: the cores are the point)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="the JSON file (resumable)")
    args = p.parse_args(argv)
    try:
        args.counts = [int(w) for w in args.workers.split(",") if w.strip()]
    except ValueError:
        p.error(f"--workers must be comma-separated integers, got {args.workers!r}")
    if not args.counts or min(args.counts) < 1:
        p.error("--workers needs counts of at least 1")
    for name in ("games_per_worker", "moves", "simulations", "leaves", "channels"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def network_bytes(size: int, blocks: int, channels: int, seed: int) -> bytes:
    """A random Zero network for 9×9 Go as a network file's bytes (what the loop sends its workers)."""
    import tempfile

    import torch

    from fuseki.agents.zero_agent import build_zero_network, save_zero_network
    from fuseki.games.go import GoGame

    torch.manual_seed(seed)
    net = build_zero_network(GoGame(size=size, komi=7.5), blocks, channels)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "net.safetensors"
        save_zero_network(path, net, game="go", game_options={"size": size}, blocks=blocks, channels=channels, value_hidden=64)
        return path.read_bytes()


def measure(args: argparse.Namespace, workers: int, net: bytes) -> dict[str, Any]:
    from fuseki.zero.selfplay import SelfPlayConfig
    from fuseki.zero.workers import LocalRunner

    config = SelfPlayConfig(
        simulations=args.simulations,
        root=args.root,
        gumbel_m=args.gumbel_m,
        leaves_per_game=args.leaves,
        parallel=args.games_per_worker,
        max_moves=args.moves,
        temperature_moves=8,
    )
    warm = SelfPlayConfig(simulations=4, root=args.root, gumbel_m=4, leaves_per_game=2, parallel=1, max_moves=2)
    started = time.perf_counter()
    runner = LocalRunner(workers, device=args.device, threads=1, precision=args.precision)
    try:
        runner.selfplay(net, workers, warm, seed=args.seed + 1)  # one game a worker: every process started and compiled
        ready = time.perf_counter() - started
        games = args.games_per_worker * workers
        _, stats = runner.selfplay(net, games, config, seed=args.seed)
    finally:
        runner.close()
    return {
        "workers": workers,
        "games": stats.games,
        "moves": stats.moves,
        "evaluations": stats.evaluations,
        "network_calls": stats.network_calls,
        "seconds": stats.seconds,
        "start_seconds": ready,
        "games_per_s": stats.games / stats.seconds,
        "moves_per_s": stats.moves / stats.seconds,
        "evals_per_s": stats.evaluations / stats.seconds,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(1)
    out = Path(args.out)
    result: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {}
    settings = {
        k: getattr(args, k)
        for k in (
            "games_per_worker",
            "moves",
            "simulations",
            "root",
            "gumbel_m",
            "leaves",
            "blocks",
            "channels",
            "size",
            "precision",
            "device",
            "seed",
        )
    }
    if result and result.get("settings") != settings:
        print(f"{out} holds a measurement with other settings; use another --out", file=sys.stderr)
        return 2
    result.setdefault("settings", settings)
    result.setdefault("runs", {})
    result["command"] = shlex.join(["python", "benchmarks/zero_workers.py", *(sys.argv[1:] if argv is None else argv)])
    result["cpus"] = os.cpu_count()
    net = network_bytes(args.size, args.blocks, args.channels, args.seed)
    for workers in args.counts:
        if str(workers) in result["runs"]:
            continue
        entry = measure(args, workers, net)
        entry["date"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        result["runs"][str(workers)] = entry
        base = result["runs"].get("1")
        if base:
            for e in result["runs"].values():
                e["speedup"] = e["games_per_s"] / base["games_per_s"]
                e["efficiency"] = e["speedup"] / e["workers"]
        buf = io.StringIO()
        json.dump(result, buf, indent=2)
        tmp = out.with_suffix(out.suffix + ".tmp")
        tmp.write_text(buf.getvalue() + "\n")
        os.replace(tmp, out)
        print(
            f"workers {workers:3d}: {entry['games']} games, {entry['moves']} moves in {entry['seconds']:.1f} s: "
            f"{entry['games_per_s']:.2f} games/s, {entry['moves_per_s']:.1f} moves/s, {entry['evals_per_s']:.0f} evals/s"
            f" (start {entry['start_seconds']:.1f} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
