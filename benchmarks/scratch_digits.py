"""The digits figures of docs/scratch.md: `fuseki scratch-demo` for seeds 0-19 (scaled init) and 0-2 (book init).

Each run is ``fuseki scratch-demo --seed S [--init book] --json`` in-process
(64-32-10, 30 epochs, batches of 10, rate 3.0); the result file keeps every
run's test accuracy and the range over seeds.

    .venv/bin/python benchmarks/scratch_digits.py --out benchmarks/results/scratch_digits.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from fuseki.bench.common import commit_of, finish_record
from fuseki.cli import main as fuseki


def run(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = fuseki(["scratch-demo", *argv, "--json"])
    if code != 0:
        raise SystemExit(f"fuseki scratch-demo {' '.join(argv)} exited with {code}")
    result: dict[str, Any] = json.loads(out.getvalue().strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    runs = []
    for init, seeds in (("scaled", range(args.seeds)), ("book", range(3))):
        for seed in seeds:
            r = run(["--seed", str(seed), "--init", init])
            runs.append({"init": init, "seed": seed, "result": r})
            print(init, seed, r["test_accuracy"], file=sys.stderr)
    result = {
        "commit": commit_of(Path(__file__).parent),
        "runs": runs,
    }
    return finish_record(result, "benchmarks/scratch_digits.py", argv, args.out, indent=2)


if __name__ == "__main__":
    raise SystemExit(main())
