"""Processing speed and size of `fuseki data process`, several encoders and corpora side by side.

Runs the real command (a subprocess, as a user runs it) once per case into a
fresh folder under ``--work`` and keeps its ``--json`` summary: games per
second, positions, bytes per position. The cases run one after the other in
one call, so their ratios are measured under the same load; the load average
before and after is recorded, since on a shared machine the wall-clock rates
depend on it. The CPU seconds the command and its workers used (user + system,
from ``getrusage(RUSAGE_CHILDREN)``) are recorded too: games per CPU-second
is what one idle core would do, and depends far less on the other jobs.

    python benchmarks/process_speed.py --out benchmarks/results/fox9d_process.json \\
        --case fox19-oneplane=/work/shared/data/fox-9d/games.tar.xz:oneplane:19:2000 \\
        --case gnugo9-oneplane=$HOME/.cache/fuseki/corpus/gnugo9:oneplane:9:1000

A case is ``NAME=SOURCE:ENCODER:SIZE:GAMES`` (GAMES ``all`` for every game).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _case(text: str) -> dict[str, object]:
    name, sep, rest = text.partition("=")
    parts = rest.split(":")
    if not sep or len(parts) != 4:
        raise argparse.ArgumentTypeError(f"expected NAME=SOURCE:ENCODER:SIZE:GAMES, got {text!r}")
    source, encoder, size, games = parts
    return {"name": name, "source": source, "encoder": encoder, "size": int(size), "games": None if games == "all" else int(games)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", type=_case, required=True)
    parser.add_argument("--work", default=str(Path.home() / ".cache" / "fuseki" / "process-speed"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the shard folders")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    work = Path(args.work)
    results = []
    for case in args.case:
        out = work / str(case["name"])
        if out.exists():
            shutil.rmtree(out)
        cmd = [
            sys.executable,
            "-m",
            "fuseki",
            "data",
            "process",
            str(case["source"]),
            "--encoder",
            str(case["encoder"]),
            "--size",
            str(case["size"]),
            "--out",
            str(out),
            "--workers",
            str(args.workers),
            "--quiet",
            "--json",
        ]
        if case["games"] is not None:
            cmd += ["--games", str(case["games"])]
        load_before = os.getloadavg()
        t0 = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter() - t0
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
        summary.pop("skipped", None)
        row = {
            **case,
            "command": "fuseki " + " ".join(cmd[3:]),
            "wall_seconds_with_startup": round(wall, 1),
            "cpu_seconds_with_startup": round(cpu, 2),
            "games_per_cpu_second": round(summary["games_this_run"] / cpu, 1) if cpu > 0 else None,
            "cpu_ms_per_position": round(1000 * cpu / summary["positions"], 3) if summary.get("positions") else None,
            "load_before": [round(v, 2) for v in load_before],
            "load_after": [round(v, 2) for v in os.getloadavg()],
            "summary": summary,
        }
        results.append(row)
        print(
            f"{case['name']}: {summary.get('games_per_second')} games/s wall, {row['games_per_cpu_second']} games/CPU-s, "
            f"{summary.get('bytes_per_position')} bytes/position",
            file=sys.stderr,
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(out)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    record = {
        "command": "python benchmarks/process_speed.py " + " ".join(sys.argv[1:]),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "cases": results,
    }
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
