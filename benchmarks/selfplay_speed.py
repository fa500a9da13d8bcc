"""Self-play throughput with 1 and 2 workers, side by side in one run (issue 9).

Plays ``--games`` self-play games of one agent file with ``fuseki.train.selfplay``
(the code behind ``fuseki selfplay``) once with 1 worker and once with 2, into
fresh temporary folders, and reports games and positions per second of wall
time for each, and their ratio. Start-up (spawning workers, importing torch,
loading the Numba caches) is part of the wall time, as it is for a user; run
enough games that it does not dominate.

    .venv/bin/python benchmarks/selfplay_speed.py --agent AGENT.safetensors --games 200 \\
        --out benchmarks/results/selfplay_9.json

Without ``--agent``, an untrained book actor-critic agent (``ac`` network,
``simple`` encoder, 9×9: ``fuseki train ac --init``) is made first: an
untrained network costs the same per move as a trained one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path


def _agent(path: str | None, tmp: Path, size: int) -> str:
    if path:
        return path
    from fuseki.cli import main

    out = tmp / "ac_v1.safetensors"
    code = main(["train", "ac", "--init", "--network", "ac", "--encoder", "simple", "--size", str(size), "--out", str(out)])
    if code != 0:
        raise SystemExit("could not make the untrained agent")
    return str(out)


def measure(agent: str, games: int, workers: int, seed: int, folder: Path) -> dict[str, object]:
    """One self-play run; wall and CPU seconds (this process and its workers) and the rates."""
    from fuseki.train.selfplay import SelfPlaySettings, selfplay

    t0 = time.perf_counter()
    c0 = os.times()
    summary = selfplay(SelfPlaySettings(agent=agent, seed=seed), folder, games, workers=workers)
    wall = time.perf_counter() - t0
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
        c1.children_system - c0.children_system
    )
    return {
        "workers": workers,
        "games": summary.played,
        "positions": summary.positions,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "games_per_second": round(summary.played / wall, 3),
        "positions_per_second": round(summary.positions / wall, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default=None, help="agent file (default: an untrained book ac agent)")
    parser.add_argument("--size", type=int, default=9, help="board size for the default agent (default 9)")
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None, help="write the JSON result here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        agent = _agent(args.agent, tmp, args.size)
        runs = [measure(agent, args.games, w, args.seed, tmp / f"w{w}") for w in (1, 2)]
    one, two = runs
    result = {
        "benchmark": "self-play throughput, 1 vs 2 workers",
        "command": "python benchmarks/selfplay_speed.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])),
        "agent": args.agent or f"untrained book ac agent (ac network, simple encoder, {args.size}x{args.size})",
        "runs": runs,
        "speedup_2_vs_1": round(float(two["games_per_second"]) / float(one["games_per_second"]), 3),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
