"""GNU Go's level with and without a clock: why matches and corpora send no ``time_settings``.

GNU Go self-plays the first ``--moves`` moves of a 9x9 game from a few
openings, in four set-ups, each ``--repeats`` times in fresh processes, with a
fixed ``--seed``:

- ``--level 1`` and ``--level 10``, with no time command;
- the same after ``time_settings 0 60 1`` (what ``fuseki match``, ``fuseki
  eval`` and ``fuseki data generate`` sent before ``--clock`` became opt-in).

It reports, per opening, whether the repeats agree with each other (is the
set-up repeatable?), whether each set-up plays level 10's moves, and the
seconds per move. The finding it was written for: with a clock, GNU Go plays
its level-10 moves whatever ``--level`` says.

    .venv/bin/python benchmarks/gnugo_clock.py --out benchmarks/results/gnugo_clock_9.json
"""

from __future__ import annotations

import argparse
import platform
import shlex
import shutil
import statistics
import sys
import time

#: Openings (GTP vertices, Black first) that each self-play continues from.
OPENINGS = {"empty board": [], "1. E5": ["E5"], "1. E5 2. C5 3. G7": ["E5", "C5", "G7"]}
SETUPS = {
    "level 1": (1, False),
    "level 1 + clock": (1, True),
    "level 10": (10, False),
    "level 10 + clock": (10, True),
}


def self_play(gnugo: str, level: int, clock: bool, opening: list[str], moves: int, seed: int) -> tuple[list[str], float]:
    """GNU Go's next ``moves`` moves after ``opening``, and the seconds they took."""
    from fuseki.engines.gtp_client import GtpClient

    with GtpClient([gnugo, "--mode", "gtp", "--chinese-rules", "--level", str(level), "--seed", str(seed)]) as gtp:
        for command in ("boardsize 9", "clear_board", "komi 7.5"):
            gtp.send(command)
        if clock:
            gtp.send("time_settings 0 60 1")
        colors = ["black", "white"]
        for i, vertex in enumerate(opening):
            gtp.play(colors[i % 2], vertex)
        played: list[str] = []
        start = time.perf_counter()
        for i in range(len(opening), len(opening) + moves):
            played.append(gtp.genmove(colors[i % 2], timeout=120).upper())
        return played, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12, help="moves GNU Go plays from each opening (default 12)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh runs of each set-up (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="GNU Go's --seed (default 1)")
    parser.add_argument("--gnugo", default=shutil.which("gnugo") or "/usr/games/gnugo")
    parser.add_argument("--out", default=None, help="write the result here as JSON")
    args = parser.parse_args()

    rows = []
    for name, opening in OPENINGS.items():
        runs = {
            setup: [self_play(args.gnugo, level, clock, opening, args.moves, args.seed) for _ in range(args.repeats)]
            for setup, (level, clock) in SETUPS.items()
        }
        reference = runs["level 10"][0][0]
        for setup, results in runs.items():
            games = [moves for moves, _ in results]
            row = {
                "opening": name,
                "setup": setup,
                "repeatable": all(g == games[0] for g in games),
                "plays_level_10_moves": sum(g == reference for g in games),
                "runs": len(games),
                "seconds_per_move": round(statistics.median(s for _, s in results) / args.moves, 4),
                "first_run": " ".join(games[0]),
            }
            rows.append(row)
            print(
                f"{name:>18} | {setup:<16} | repeatable {str(row['repeatable']):<5} | "
                f"level-10 moves in {row['plays_level_10_moves']}/{row['runs']} runs | "
                f"{row['seconds_per_move']:.3f} s/move",
                flush=True,
            )
    if args.out:
        from fuseki.util.atomic import write_json_atomic

        result = {
            "command": shlex.join([sys.executable.rsplit("/", 1)[-1], *sys.argv]),
            "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "machine": platform.machine(),
            "moves": args.moves,
            "seed": args.seed,
            "rows": rows,
        }
        write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
