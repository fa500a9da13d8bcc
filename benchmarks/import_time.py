"""How long `import fuseki.agents` takes in a fresh process, and whether it loads Numba, the kernels or torch.

Listing the bots (``fuseki play --help``, the web UI's bot menu, a GTP
``list_commands``) must not pay for compiling or loading the rules engine's
Numba kernels or torch. This runs ``import fuseki.agents`` in fresh processes
for one or two source trees, taking turns, and reports the median wall time,
the time inside the import, and which heavy modules were loaded. With
``NUMBA_DEBUG_CACHE=1`` Numba prints a line for every cache load or save, so
an empty stderr also shows that nothing was compiled or loaded from the cache.

    python benchmarks/import_time.py --tree . --tree /tmp/fuseki-old --runs 7 --out FILE
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fuseki.bench.common import commit_of, finish_record

PROBE = (
    "import sys, time; t = time.perf_counter(); import fuseki.agents as a; t = time.perf_counter() - t; "
    "import json; print(json.dumps({'import_s': t, 'agents': sorted(a.available_agents()), "
    "'numba': 'numba' in sys.modules, 'kernels': 'fuseki.go.kernels' in sys.modules, 'torch': 'torch' in sys.modules, "
    "'modules': len(sys.modules)}))"
)


def probe(tree: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), NUMBA_DEBUG_CACHE="1")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=tree)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"import_time: the probe failed in {tree}:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    out["numba_cache_lines"] = len([line for line in done.stderr.splitlines() if line.strip()])
    return out



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, action="append", required=True, help="a source tree (repeatable)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in args.tree]
    runs: dict[Path, list[dict[str, Any]]] = {t: [] for t in trees}
    for t in trees:
        probe(t)  # the first run writes .pyc files; not timed
    for _ in range(args.runs):
        for t in trees:
            runs[t].append(probe(t))
    rows = []
    for t in trees:
        r = runs[t]
        row = {
            "tree": str(t),
            "commit": commit_of(t),
            "process_s_median": round(statistics.median(x["process_s"] for x in r), 4),
            "import_s_median": round(statistics.median(x["import_s"] for x in r), 4),
            "numba_loaded": any(x["numba"] for x in r),
            "kernels_loaded": any(x["kernels"] for x in r),
            "torch_loaded": any(x["torch"] for x in r),
            "numba_cache_lines": max(x["numba_cache_lines"] for x in r),
            "modules": r[-1]["modules"],
            "agents": r[-1]["agents"],
        }
        rows.append(row)
        print(f"{row['commit']}: process {row['process_s_median']:.3f} s, import {row['import_s_median']:.3f} s, "
              f"numba {row['numba_loaded']}, kernels {row['kernels_loaded']}, torch {row['torch_loaded']}, "
              f"Numba cache lines {row['numba_cache_lines']}")
    result = {
        "rows": rows,
        "runs": args.runs,
    }
    return finish_record(result, "benchmarks/import_time.py", argv, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
