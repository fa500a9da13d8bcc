"""The 19x19 allocator figure of docs/benchmarks.md: the API loop in a fresh process, with and without the malloc tuning.

Each case is a new Python process (so the allocator starts clean) that plays
uniform-random 19x19 games through the Python API (``legal_points()``, pick,
let go of the list, ``play``) for ``--seconds`` after one warm-up game, and
reports plies per second and minor page faults per ply. ``tuned`` is the
default (``fuseki.go`` raises glibc's trim threshold at import);
``FUSEKI_KEEP_MALLOC=1`` leaves glibc's defaults.

    .venv/bin/python benchmarks/malloc_19.py --out benchmarks/results/malloc_19.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from fuseki.bench.common import commit_of, finish_record

CHILD = r"""
import json, random, resource, sys, time
from fuseki.go.state import GameState
size, seconds = int(sys.argv[1]), float(sys.argv[2])
rand = random.Random(0).random
cap = 2 * size * size

def game():
    s, n = GameState.new(size), 0
    while not s.is_over() and n < cap:
        pts = s.legal_points()
        i = int(rand() * (len(pts) + 1))
        m = int(pts[i]) if i < len(pts) else size * size
        pts = None
        s = s.play(m)
        n += 1
    return n

game()
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
t0, plies = time.perf_counter(), 0
while time.perf_counter() - t0 < seconds:
    plies += game()
wall = time.perf_counter() - t0
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
print(json.dumps({"plies": plies, "seconds": round(wall, 3), "plies_per_s": round(plies / wall),
                  "minor_faults_per_ply": round(faults / plies, 4)}))
"""


def case(keep: bool, seconds: float) -> dict:
    env = dict(os.environ)
    env.pop("FUSEKI_KEEP_MALLOC", None)
    if keep:
        env["FUSEKI_KEEP_MALLOC"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, "19", str(seconds)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    rounds = []
    for _ in range(args.repeats):
        rounds.append({"tuned": case(False, args.seconds), "glibc_defaults": case(True, args.seconds)})
        print(rounds[-1], file=sys.stderr)
    result = {
        "commit": commit_of(Path(__file__).parent),
        "load_average": os.getloadavg(),
        "rounds": rounds,
    }
    return finish_record(result, "benchmarks/malloc_19.py", argv, args.out, indent=2)


if __name__ == "__main__":
    raise SystemExit(main())
