"""CPU speed of AlphaGo's rollout policy (whole rollouts a CPU second) on two source trees, taking turns.

``fuseki bench alphago`` times the rollout policy for a few seconds beside five
other contenders; a change to the rollout kernels wants a closer look. Each
turn is a fresh process with ``PYTHONPATH`` on one tree's ``src``: the same
300 rollouts from the same 9x9 opening position, seeded (the value must be
equal on both trees), best of ``--reps`` timings by process CPU time; the
report is the median over ``--rounds`` turns per tree and the ratio of medians.

    .venv/bin/python benchmarks/rollout_policy_speed.py --before /work/main --after . --rounds 8 \\
        --out benchmarks/results/dedup_kernels_rollout_speed.json
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

MODEL = "/root/.cache/fuseki/ag/run9/rollout.safetensors"

CHILD = """
import json, sys, time
from fuseki.go import GameState
from fuseki.go import kernels as K
from fuseki.search.go.rollout_policy import RolloutPolicy
pol = RolloutPolicy.load(sys.argv[1])
s = GameState.new(9, komi=7.5)
for p in (40, 30, 50, 20, 60):
    s = s.play(p)
pol.rollout_value(s, rollouts=5)  # compile or load the kernels
times = []
for _ in range(int(sys.argv[2])):
    K.seed_kernels(1)
    t = time.process_time()
    v = pol.rollout_value(s, rollouts=300)
    times.append(time.process_time() - t)
print(json.dumps({"rollouts_per_cpu_s": 300 / min(times), "value": v}))
"""


def run_once(tree: Path, model: str, reps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    proc = subprocess.run([sys.executable, "-c", CHILD, model, str(reps)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"error: the rollout timing in {tree} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--model", default=MODEL, help="a rollout.safetensors file")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if not Path(args.model).is_file():
        parser.error(f"no rollout policy file at {args.model}")
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for side in ("before", "after"):
            runs[side].append(run_once(getattr(args, side).resolve(), args.model, args.reps))
    values = {side: {r["value"] for r in rs} for side, rs in runs.items()}
    if values["before"] != values["after"]:
        raise SystemExit(f"error: the trees' rollouts differ: {values}")
    result: dict = {"rounds": args.rounds, "reps": args.reps, "model": args.model}
    for side in ("before", "after"):
        rates = [r["rollouts_per_cpu_s"] for r in runs[side]]
        result[side] = {"tree": str(getattr(args, side).resolve()), "median": statistics.median(rates), "runs": rates}
    result["ratio_after_over_before"] = round(result["after"]["median"] / result["before"]["median"], 3)
    result["command"] = shlex.join([sys.executable, *sys.argv])
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=1) + "\n")
        tmp.replace(args.out)
    print(json.dumps({"ratio_after_over_before": result["ratio_after_over_before"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
