"""``fuseki sgf check`` on a collection, lenient and strict, as one small result file for docs/sgf.md.

The counts of both readings, the refused games of the lenient one with their
reasons, and an example message for each kind of warning (a collection of
18,081 games has too many reports to keep them all; ``fuseki sgf check
SOURCES --json`` prints them).

    python benchmarks/sgf_check_report.py /work/shared/data/fox-9d/games.tar.xz \\
        --out benchmarks/results/sgf_check_fox9d.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fuseki.data.sgf_check import check_games

ROOT = Path(__file__).resolve().parent.parent


def _head() -> str:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True).stdout
    return head + ("+changes" if dirty.strip() else "")


def _summary(report: dict[str, Any], keep_refused: bool) -> dict[str, Any]:
    out = {k: report[k] for k in ("files", "loaded", "repaired", "refused", "by_kind", "refused_by_kind")}
    examples: dict[str, str] = {}
    for r in report["reports"]:
        for w in r["warnings"]:
            examples.setdefault(w["kind"], w["message"])
    out["example_warnings"] = examples
    if keep_refused:
        out["refused_games"] = [
            {"game": r["game"], "error": r["error"], "kind": r["error_kind"]} for r in report["reports"] if r["status"] == "refused"
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "command": "python " + " ".join([os.path.relpath(__file__, ROOT), *(argv or sys.argv[1:])]),
        "reader": f"src/fuseki/go/sgf.py at {_head()}",
        "sources": args.sources,
    }
    for mode in ("lenient", "strict"):
        t0 = time.perf_counter()
        report = check_games(args.sources, strict=mode == "strict", max_bytes=None)
        result[mode] = {**_summary(report, keep_refused=mode == "lenient"), "seconds": round(time.perf_counter() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({mode: {k: result[mode][k] for k in ("files", "loaded", "repaired", "refused")} for mode in ("lenient", "strict")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
