"""What each part of the MCTS is worth: one match per variant against GNU Go.

Every variant searches a fixed number of playouts per move (so that the
result does not depend on how busy the machine is) and plays ``--games``
games against ``gnugo --mode gtp --level L`` on 9×9, komi 7.5, colours
alternating. Each variant switches one part off (``fuseki gtp --set``), so the
drop in win rate against the full engine is what that part is worth at this
budget.

    .venv/bin/python benchmarks/mcts_ablation.py --games 20 --playouts 2000 --level 1

Matches are resumable (one ``--sgf-dir`` per variant under ``--out``); the
summary, with Wilson 95 % intervals, is written to ``--out``/summary.json and
printed as a table.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from fuseki.util.stats import wilson_interval

#: name -> (agent, --set options, what it tests)
VARIANTS: dict[str, tuple[str, list[str], str]] = {
    "full": ("mcts", [], "heavy playouts, priors, RAVE"),
    "no-patterns": ("mcts", ["p_pat3=0"], "heavy playouts without the 3x3 patterns"),
    "no-captures": ("mcts", ["p_capture=0"], "heavy playouts without the capture/atari heuristic"),
    "light-playouts": ("mcts", ["policy=light"], "the book's playout, with priors and RAVE"),
    "no-priors": ("mcts", ["priors=false"], "heavy playouts and RAVE, no priors"),
    "no-rave": ("mcts", ["rave=false"], "heavy playouts and priors, no RAVE"),
    "book": ("mcts-book", [], "the book's UCT: light playouts, c = 1.5, no priors, no RAVE"),
}


def run_variant(name: str, args: argparse.Namespace, out: Path) -> dict:
    agent, settings, about = VARIANTS[name]
    engine = [sys.executable, "-m", "fuseki", "gtp", "--bot", agent, "--playouts", str(args.playouts)]
    for s in settings:
        engine += ["--set", s]
    cmd = [
        sys.executable,
        "-m",
        "fuseki",
        "match",
        shlex.join(engine),
        f"gnugo --mode gtp --level {args.level}",
        "--size",
        "9",
        "--komi",
        "7.5",
        "--games",
        str(args.games),
        "--sgf-dir",
        str(out / name),
        "--json",
    ]
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: match failed:\n{proc.stderr[-2000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    wins = data["a_wins"] + 0.5 * data["draws"]
    lo, hi = wilson_interval(wins, data["games"])
    return {
        "variant": name,
        "about": about,
        "agent": agent,
        "settings": settings,
        "games": data["games"],
        "wins": data["a_wins"],
        "draws": data["draws"],
        "forfeits": data["forfeits"],
        "win_rate": round(wins / data["games"], 4) if data["games"] else None,
        "ci95": [round(lo, 4), round(hi, 4)],
        "seconds": round(time.time() - t0, 1),
        "command": shlex.join(cmd),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=2000)
    parser.add_argument("--level", type=int, default=1, help="GNU Go level (default 1)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated subset")
    parser.add_argument("--out", default="benchmarks/results/mcts_ablation_9x9")
    args = parser.parse_args()
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        row = run_variant(name, args, out)
        rows.append(row)
        print(
            f"{name:15s} {row['wins']:3d}/{row['games']:<3d} win rate {row['win_rate']:.2f} "
            f"(95 % {row['ci95'][0]:.2f}-{row['ci95'][1]:.2f})  {row['seconds']:.0f} s",
            flush=True,
        )
    # The commit of the fuseki that ran (PYTHONPATH may point at a worktree of another commit).
    import fuseki

    where = str(Path(fuseki.__file__).resolve().parent)
    commit = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    summary = {
        "command": shlex.join([sys.executable, *sys.argv]),
        "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "commit": commit,
        "playouts": args.playouts,
        "opponent": f"gnugo --mode gtp --level {args.level}",
        "size": 9,
        "komi": 7.5,
        "variants": rows,
    }
    tmp = out / "summary.json.tmp"
    tmp.write_text(json.dumps(summary, indent=2) + "\n")
    os.replace(tmp, out / "summary.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
