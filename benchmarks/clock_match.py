"""fuseki under a real clock against GNU Go: no loss on time, and the time it spends per move (issue 21).

    .venv/bin/python benchmarks/clock_match.py run [--games 50] [--time-control "0 5 1"] [--size 9]
    .venv/bin/python benchmarks/clock_match.py report

``run`` plays ``fuseki match`` with ``--time-control`` (GTP ``time_settings
0 5 1``: 5 seconds a move, Canadian overtime of one stone from the first
move): A = ``fuseki gtp --bot mcts --seed {seed}`` (its time manager decides
how long to think; no playout or seconds limit), B = ``gnugo --mode gtp
--positional-superko`` (with a clock GNU Go picks its own level). The match
runner keeps the clocks as a server does: ``time_left`` for both players
before every ``genmove``, each ``genmove`` timed from the command's write to
the reply's read (pipes and process scheduling included), and a move that
ends after the flag fell loses the game on time (``B+T``/``W+T``).

The engine runs from a copy of the commit's ``src`` (``git archive``) in a
temporary folder, so that editing the worktree during a run of hours cannot
change the engine mid-match; its Numba kernels are warmed there first. The
SGF folder (``benchmarks/results/clock_match_9x9/games/<commit>/``) makes the
run resumable: run the same command again to finish it.

``report`` reads the SGF files (each move's comment holds ``time used: S s``,
its node the clock left, ``BL``/``WL``) and writes
``benchmarks/results/clock_match_9x9/summary_<commit>.json`` (the result with
its Wilson 95 % interval, losses on time by side, fuseki's time per move:
mean, percentiles, maximum, by phase of the game, and the closest any move
came to its flag) and the plot ``docs/clock/time-per-move-9x9.png``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from fuseki.bench.common import warm_kernels

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "clock_match_9x9"
PLOT = ROOT / "docs" / "clock" / "time-per-move-9x9.png"
TIME_USED = re.compile(r"time used: ([0-9.]+) s")


def commit() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=7", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def snapshot(rev: str) -> Path:
    """The commit's ``src`` in a temporary folder (made once), its kernels warmed."""
    dest = Path(tempfile.gettempdir()) / f"fuseki-clock-{rev}"
    if not (dest / "src" / "fuseki").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    warm_kernels({"PYTHONPATH": str(dest / "src"), "PATH": "/usr/bin:/bin"})
    return dest / "src"


def run(args: argparse.Namespace) -> int:
    rev = commit()
    src = snapshot(rev)
    games = OUT / "games" / rev
    games.mkdir(parents=True, exist_ok=True)
    # --log: the engine's own record of each move (its search's seconds), to tell a late search
    # from a late reply if a move is ever over the clock.
    engine = (
        f"env PYTHONPATH={src} {sys.executable} -m fuseki gtp --bot mcts --seed {{seed}} "
        f"--log {games / 'fuseki_moves.jsonl'}"
    )
    command = [
        sys.executable, "-m", "fuseki", "match", engine, "gnugo --mode gtp --positional-superko",
        "--size", str(args.size), "--komi", "7.5", "--games", str(args.games),
        "--time-control", args.time_control, "--sgf-dir", str(games), "--seed", "21", "--json",
    ]
    with open(games / "runs.txt", "a") as log:
        log.write(shlex.join(command) + "\n")
    proc = subprocess.run(command, env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin:/usr/games"},
                          stdout=subprocess.PIPE, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode == 0:
        (games / "result.json").write_text(proc.stdout.strip().splitlines()[-1] + "\n")
    return proc.returncode


def _won(entry: dict) -> bool:
    return entry["result"].upper().startswith(entry["fuseki"] + "+")


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def report(args: argparse.Namespace) -> int:
    from fuseki.go.sgf import load_sgf, parse_result
    from fuseki.util.stats import wilson_interval

    rev = args.commit or commit()
    games = OUT / "games" / rev
    files = sorted(games.glob("game_*.sgf"))
    if not files:
        print(f"no games in {games}", file=sys.stderr)
        return 1
    wins = time_losses_fuseki = time_losses_gnugo = finished = 0
    per_move: list[tuple[int, int, float]] = []  # (game, move number, seconds) of fuseki's moves
    gnugo_times: list[float] = []
    results = []
    for path in files:
        number = int(path.stem.split("_")[1])
        record = load_sgf(path)
        winner, kind = parse_result(record.result)
        fuseki_color = "B" if number % 2 == 1 else "W"  # A (fuseki) is Black in odd games
        won = winner is not None and winner.letter == fuseki_color
        wins += won
        finished += 1
        if kind == "time":
            time_losses_fuseki += not won
            time_losses_gnugo += won
        for n, (color, _move) in enumerate(record.moves, start=1):
            m = TIME_USED.fullmatch(record.comments.get(n, ""))
            if m is None:
                continue
            if color.letter == fuseki_color:
                per_move.append((number, n, float(m.group(1))))
            else:
                gnugo_times.append(float(m.group(1)))
        entry = {"game": number, "fuseki": fuseki_color, "result": record.result, "moves": len(record.moves)}
        if kind == "time":  # the late move is not in the record; its time is in the reason
            entry["time_loss"] = next(x[6:] for x in record.comment.splitlines() if x.startswith("time: "))
        results.append(entry)
    times = [s for _, _, s in per_move]
    lo, hi = wilson_interval(wins, finished)
    settings = json.loads((games / "match.json").read_text())["settings"]
    period = float(settings["time_control"].split()[2])
    phases = {}
    for name, a, b in (("moves 1-20", 1, 20), ("moves 21-40", 21, 40), ("moves 41-60", 41, 60), ("moves 61+", 61, 10**6)):
        xs = [s for _, n, s in per_move if a <= n <= b]
        if xs:
            phases[name] = {"moves": len(xs), "mean": round(statistics.fmean(xs), 3), "max": round(max(xs), 3)}
    summary = {
        "benchmark": "fuseki mcts under a real clock against GNU Go 3.8 (issue 21)",
        "command": f".venv/bin/python benchmarks/clock_match.py run --games {args.games} "
                   f"--time-control {shlex.quote(args.time_control)} --size {args.size}",
        "match": {k: settings[k] for k in ("engine_a", "engine_b", "size", "komi", "rules", "time_control", "seed")},
        "commit": rev,
        "note": args.note,
        "games": finished,
        "fuseki_wins": wins,
        "fuseki_win_rate": round(wins / finished, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "fuseki_time_losses": time_losses_fuseki,
        "gnugo_time_losses": time_losses_gnugo,
        "fuseki_time_loss_moves": [r["time_loss"] for r in results if "time_loss" in r and not _won(r)],
        "fuseki_moves": len(times),
        "fuseki_seconds_per_move": {
            "mean": round(statistics.fmean(times), 3),
            "median": round(statistics.median(times), 3),
            "p99": round(_percentile(times, 0.99), 3),
            "max": round(max(times), 3),
            "closest_to_flag": round(period - max(times), 3),
            "by_phase": phases,
        },
        "gnugo_seconds_per_move": {"mean": round(statistics.fmean(gnugo_times), 3), "max": round(max(gnugo_times), 3)},
        "distinct_games": len({tuple(load_sgf(p).moves) for p in files}),
        "results": results,
        "fuseki_times": [[g, n, s] for g, n, s in per_move],
    }
    out = OUT / f"summary_{rev}.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k not in ("results", "fuseki_times")}, indent=1))
    plot(per_move, period, summary, Path(args.plot))
    return 0


def plot(per_move: list[tuple[int, int, float]], period: float, summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, hist) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    ax.scatter([n for _, n, _ in per_move], [s for _, _, s in per_move], s=6, alpha=0.35, label="one move")
    by_move: dict[int, list[float]] = {}
    for _, n, s in per_move:
        by_move.setdefault(n, []).append(s)
    xs = sorted(n for n, v in by_move.items() if len(v) >= 5)
    ax.plot(xs, [statistics.median(by_move[n]) for n in xs], color="black", lw=1.5, label="median")
    ax.axhline(period, color="red", ls="--", lw=1, label=f"byo-yomi period ({period:g} s)")
    ax.set_xlabel("move number")
    ax.set_ylabel("seconds (genmove to reply, as the clock counts)")
    ax.set_ylim(0, period * 1.1)
    ax.set_title(f"fuseki mcts ({summary['commit']}), {summary['games']} games vs GNU Go, 9x9, time_settings 0 {period:g} 1",
                 fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    times = [s for _, _, s in per_move]
    hist.hist(times, bins=40, range=(0, period), color="tab:blue")
    hist.axvline(period, color="red", ls="--", lw=1)
    hist.set_xlabel("seconds per move")
    hist.set_title(f"{len(times)} moves, max {max(times):.2f} s, {summary['fuseki_time_losses']} lost on time")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("run", "report"))
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--time-control", default="0 5 1")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--commit", default=None, help="report: the run's commit (default HEAD)")
    parser.add_argument("--plot", default=str(PLOT), help="report: where the plot goes")
    parser.add_argument("--note", default="", help="report: a remark stored in the summary")
    args = parser.parse_args()
    return run(args) if args.what == "run" else report(args)


if __name__ == "__main__":
    sys.exit(main())
