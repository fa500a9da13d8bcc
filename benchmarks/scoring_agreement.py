"""Scoring players trust: our end-of-game count against GNU Go's on games stopped before settled.

Two steps, each one command (docs/scoring.md):

    # the test set (resumable; game i depends only on size, seed and i)
    python benchmarks/scoring_agreement.py make --size 9 --games 200 --out benchmarks/data/scoring9
    # the agreement, before and after, with 95 % Wilson intervals
    python benchmarks/scoring_agreement.py measure benchmarks/data/scoring9 --out benchmarks/results/scoring_9.json

``measure`` counts every game of the set with each estimator of
``fuseki.bench.scoring.ESTIMATORS`` and compares the result string with GNU
Go's ``final_score`` (same winner; exact result) and the dead strings with
GNU Go's ``final_status_list dead`` (blocks and whole games).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from fuseki.bench.scoring import ESTIMATORS, set_agreement
from fuseki.bench.scoring_set import ENDINGS, SetSettings, make_set, read_set
from fuseki.util.atomic import write_json_atomic
from fuseki.util.errors import FusekiError, InputError


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="make or resume a test set")
    mk.add_argument("--size", type=int, required=True)
    mk.add_argument("--games", type=int, default=200)
    mk.add_argument("--seed", type=int, default=0)
    mk.add_argument("--out", required=True, help="the set's folder")
    mk.add_argument(
        "--endings", choices=ENDINGS, default="both",
        help="how games stop: both (drawn per game), or every game by two passes / at the first pass",
    )
    ms = sub.add_parser("measure", help="agreement of each estimator with GNU Go on a set")
    ms.add_argument("sets", nargs="+", help="set folders made by 'make' (their games are pooled)")
    ms.add_argument("--estimators", default=",".join(ESTIMATORS), help=f"comma list of {', '.join(ESTIMATORS)}")
    ms.add_argument("--games", type=int, default=None, help="only the first N games")
    ms.add_argument("--out", default=None, help="JSON result file")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "make":
            t0 = time.perf_counter()
            for g in make_set(a.out, SetSettings(size=a.size, seed=a.seed, endings=a.endings), a.games):
                print(
                    f"game {g.game}: {g.moves} moves, {g.ending}, GNU Go {g.gnugo_score}, "
                    f"{len(g.gnugo_dead)} dead, {g.seconds} s",
                    flush=True,
                )
            print(f"done in {time.perf_counter() - t0:.0f} s")
            return 0
        tagged = [(g, folder) for folder in a.sets for g in read_set(folder)]
        if a.games is not None:
            tagged = tagged[: a.games]
        games = [g for g, _ in tagged]
        if not games:
            raise InputError(f"{', '.join(a.sets)}: no games yet")
        names = [e for e in a.estimators.split(",") if e]
        t0 = time.perf_counter()
        # With several sets each one's figures are reported too ("set <folder>" in each estimator's parts).
        result = set_agreement(games, names, [folder for _, folder in tagged] if len(a.sets) > 1 else None)
        doc = {
            "command": "python " + " ".join(shlex.quote(x) for x in [sys.argv[0], *(argv or sys.argv[1:])]),
            "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "commit": _commit(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores shared (load average {os.getloadavg()[0]:.1f})",
            "wall_seconds": round(time.perf_counter() - t0, 1),
            "result": result,
        }
        text = json.dumps(doc, indent=2)
        if a.out:
            write_json_atomic(Path(a.out), doc)
        print(text)
        return 0
    except FusekiError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
