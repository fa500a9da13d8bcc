"""Side by side: one `fuseki bench` of two source trees (an old commit and the new), taking turns.

A refactoring that moves modules must not slow the engine down, and this
machine is shared and noisy, so the two trees are measured in one run,
alternating round by round (old, new, old, new, ...), and compared by the
ratio of their medians. Each tree runs in its own process with
``PYTHONPATH=TREE/src`` and its own Numba cache (warmed up before the first
timed round), so the figures are those of the code, not of a compile.

Usage (a worktree of the old commit made with ``git worktree add``)::

    git worktree add /tmp/fuseki-old 26d6f1d
    python benchmarks/compare_commits.py --old /tmp/fuseki-old --new . \\
        --bench rules --rounds 5 --out benchmarks/results/layers_rules_9.json

The figures compared are ``cpu_*_per_s`` (plies or playouts per second of
CPU time, less sensitive to other processes than wall time) and the wall
figures beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from fuseki.bench.common import commit_of, finish_record

#: The figures of each bench that are compared: (JSON path, label).
FIGURES: dict[str, list[tuple[tuple[str, ...], str]]] = {
    "rules": [
        (("api_plies_per_s",), "API plies/s (wall)"),
        (("kernel_plies_per_s",), "kernel plies/s (wall)"),
        (("cpu_plies_per_s", "api"), "API plies/s (CPU)"),
        (("cpu_plies_per_s", "api_held"), "API, held list, plies/s (CPU)"),
        (("cpu_plies_per_s", "api_superko"), "API, superko, plies/s (CPU)"),
        (("cpu_plies_per_s", "kernel"), "kernel plies/s (CPU)"),
    ],
    "mcts": [
        (("playouts_per_s",), "MCTS playouts/s (wall)"),
        (("cpu_playouts_per_s",), "MCTS playouts/s (CPU)"),
    ],
}



def run_bench(tree: Path, bench: str, size: int, seconds: float, seed: int) -> dict[str, Any]:
    """One `fuseki bench` of ``tree``: its JSON result."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    argv = [sys.executable, "-m", "fuseki", "bench", bench, "--size", str(size), "--seconds", str(seconds),
            "--seed", str(seed), "--no-peers", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"compare_commits: {' '.join(argv)} in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def pick(result: dict[str, Any], path: tuple[str, ...]) -> float:
    value: Any = result
    for key in path:
        value = value[key]
    return float(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="source tree of the old commit")
    parser.add_argument("--new", type=Path, required=True, help="source tree of the new commit")
    parser.add_argument("--bench", choices=sorted(FIGURES), required=True)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=3.0, help="per contender and round (default 3)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, trees alternating (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the result as JSON here")
    args = parser.parse_args(argv)
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, tree in trees.items():
        if not (tree / "src" / "fuseki").is_dir():
            parser.error(f"--{name} {tree}: no src/fuseki there")
        run_bench(tree, args.bench, args.size, 0.2, args.seed)  # warm-up: compile or load the Numba cache
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            runs[name].append(run_bench(trees[name], args.bench, args.size, args.seconds, args.seed))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    figures = []
    for path, label in FIGURES[args.bench]:
        old = [pick(x, path) for x in runs["old"]]
        new = [pick(x, path) for x in runs["new"]]
        mo, mn = statistics.median(old), statistics.median(new)
        figures.append({"figure": label, "old_median": mo, "new_median": mn, "ratio_new_old": round(mn / mo, 3),
                        "old_runs": old, "new_runs": new})
        print(f"{label:34s} old {mo:12.1f}  new {mn:12.1f}  new/old {mn / mo:.3f}")
    load = os.getloadavg()
    result = {
        "bench": args.bench,
        "size": args.size,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "old": {"tree": str(trees["old"]), "commit": commit_of(trees["old"])},
        "new": {"tree": str(trees["new"]), "commit": commit_of(trees["new"])},
        "figures": figures,
        "load_average_at_end": [round(x, 2) for x in load],
    }
    return finish_record(result, "benchmarks/compare_commits.py", argv, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
