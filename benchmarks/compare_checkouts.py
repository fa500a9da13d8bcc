"""One ``fuseki bench`` measured on two source trees in turn, with their ratio (before and after a change).

A change that makes the search smarter may make it slower; the issue that made it asks for both figures.
On a shared machine a speed measured now and one measured last week cannot be compared, so the two
checkouts take turns in one run (A, B, A, B, ...) and the median of each is reported with the ratio of
the medians. Each run is the real command line (``python -m fuseki bench NAME ... --json``) with
``PYTHONPATH`` pointing at one tree's ``src``, so nothing of the other tree is imported.

    .venv/bin/python benchmarks/compare_checkouts.py --before /work/wt/base25 --after . --rounds 3 \\
        --out benchmarks/results/mcts_speed_before_after.json -- mcts --no-peers --seconds 3 --no-jit
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from fuseki.bench.common import commit_of

#: The figures compared, per benchmark: the key of the bench's last JSON line (dots go into nested objects).
KEYS = {
    "mcts": ("playouts_per_s", "cpu_playouts_per_s"),
    "rules": ("api_plies_per_s", "kernel_plies_per_s"),
    "zero": ("moves_per_s", "evals_per_s"),
    "alphago": (
        "results.alphago.simulations_per_second",
        "results.heavy.simulations_per_second",
        "results.rollout-policy.simulations_per_second",
        "results.rollout-policy.simulations_per_cpu_second",
    ),
}


def figure(result: dict, key: str) -> float | None:
    """The figure at ``key`` (``a.b.c`` for nested objects) of one bench result, or None where it has none."""
    value: object = result
    for part in key.split("."):
        if not isinstance(value, dict) or value.get(part) is None:
            return None
        value = value[part]
    return float(value)  # type: ignore[arg-type]


def run_once(tree: Path, bench_args: list[str]) -> dict:
    """One ``fuseki bench`` from ``tree``'s sources; its last JSON line."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    cmd = [sys.executable, "-m", "fuseki", "bench", *bench_args, "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"error: {shlex.join(cmd)} in {tree} failed: {proc.stderr.strip().splitlines()[-1:]}")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"error: {shlex.join(cmd)} in {tree} printed no JSON line")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before the change")
    parser.add_argument("--after", type=Path, required=True, help="the checkout after the change")
    parser.add_argument("--rounds", type=int, default=3, help="turns each (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="write the result here (JSON)")
    parser.add_argument("bench", nargs=argparse.REMAINDER, help="-- NAME [options of fuseki bench]")
    args = parser.parse_args(argv)
    bench = [a for a in args.bench if a != "--"] if args.bench else []
    if not bench or bench[0] not in KEYS:
        parser.error(f"give the benchmark after --: one of {', '.join(KEYS)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    for tree in (args.before, args.after):
        if not (tree / "src" / "fuseki").is_dir():
            parser.error(f"{tree} has no src/fuseki")
    keys = KEYS[bench[0]]
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for side, tree in (("before", args.before), ("after", args.after)):
            runs[side].append(run_once(tree.resolve(), bench))
    result: dict = {"bench": shlex.join(["fuseki", "bench", *bench]), "rounds": args.rounds}
    for side, tree in (("before", args.before), ("after", args.after)):
        result[side] = {"tree": str(tree.resolve()), "commit": commit_of(tree)}
        for key in keys:
            values = [v for v in (figure(r, key) for r in runs[side]) if v is not None]
            result[side][key] = {"median": statistics.median(values), "runs": values}
    result["ratio_after_over_before"] = {key: round(result["after"][key]["median"] / result["before"][key]["median"], 3) for key in keys}
    result["command"] = shlex.join([sys.executable, *sys.argv])
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        tmp.replace(args.out)
    print(json.dumps({"ratio_after_over_before": result["ratio_after_over_before"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
