"""How fast one worker of ``fuseki chess-warmstart label`` labels positions: wall time and CPU time, Stockfish's and ours.

::

    PYTHONPATH=src nice -n 19 python benchmarks/chess_label_speed.py --games 10 --depth 8 --json

One worker is one Python process and one Stockfish (Threads 1) taking turns:
Stockfish searches a position, then Python encodes it and plays the move. So
a worker keeps about one core busy, and positions per CPU-second (Stockfish's
CPU time, counted when it exits, plus this process's) is what one core gives,
whatever else the machine runs; the wall time on a loaded machine is the
load's. ``--workers N`` on N free cores should label about N times as fast
(benchmarks/device/chess_gpu.sh sizes its labelling by this figure).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def _commit() -> str:
    """The checkout's commit, with ``+`` when it has changes; ``?`` outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+" if dirty else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games to label (default 10)")
    parser.add_argument("--depth", type=int, default=8, help="Stockfish's depth (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="the JSON file to write (default: none)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line")
    args = parser.parse_args()

    from fuseki.chess.warmstart import LabelSettings, label_games

    settings = LabelSettings(depth=args.depth, games_per_chunk=args.games, seed=args.seed)
    with tempfile.TemporaryDirectory() as folder:
        own0, children0, t0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        totals = label_games(folder, settings, args.games)  # one chunk: one Stockfish, quit (and counted) at its end
        wall = time.perf_counter() - t0
        own1, children1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    ours = own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime
    stockfish = children1.ru_utime + children1.ru_stime - children0.ru_utime - children0.ru_stime
    n = totals["positions"]
    result = {
        "command": " ".join(["python", *sys.argv]),
        "games": args.games,
        "depth": args.depth,
        "positions": n,
        "wall_seconds": round(wall, 1),
        "stockfish_cpu_seconds": round(stockfish, 2),
        "python_cpu_seconds": round(ours, 2),
        "positions_per_wall_second": round(n / wall, 1),
        "positions_per_cpu_second": round(n / (stockfish + ours), 1),
        "positions_per_stockfish_cpu_second": round(n / stockfish, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "nice": os.nice(0),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": _commit(),
    }
    print(
        f"{n} positions of {args.games} games at depth {args.depth}: {wall:.1f} s wall, Stockfish {stockfish:.2f} s CPU, "
        f"Python {ours:.2f} s CPU: {result['positions_per_cpu_second']} positions a CPU-second of one worker "
        f"(load average {result['load_average'][0]})",
        file=sys.stderr,
    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
