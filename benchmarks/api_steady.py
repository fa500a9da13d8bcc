"""The Python-API loop against OpenSpiel's, timed the steady way: best of N timings of one fixed workload.

``fuseki bench rules`` reports the median of a few timed stints, which a noisy
shared machine can move by a third. Here each contender plays the same 30
seeded random 9x9 games again and again, and the best (shortest) of
``--repeats`` timings counts: interference only ever adds time, so the
minimum is the steadiest estimate. Contenders:

- ``api``: ``legal_points()``, pick, let go of the list, ``play`` (the
  benchmark's loop: the child takes the buffer over);
- ``api_held``: the same, holding the list across ``play`` (a copy each move);
- ``openspiel``: ``legal_actions()`` / ``apply_action()``.

The loops are written here, against the public API only, so the script also
measures an older commit: ``git worktree add /tmp/old COMMIT`` and run it with
``PYTHONPATH=/tmp/old/src``.

    .venv/bin/python benchmarks/api_steady.py --out benchmarks/results/api_steady_9.json
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
import sys
import time
from pathlib import Path


def fuseki_loop(size: int, seed: int, games: int, hold: bool):
    from fuseki.go.state import GameState

    cap = 2 * size * size

    def run() -> int:
        rand = random.Random(seed).random
        plies = 0
        for _ in range(games):
            s = GameState.new(size, "gnugo")
            for _ in range(cap):
                if s.is_over():
                    break
                pts = s.legal_points()
                p = pts.item(int(rand() * len(pts)))
                if not hold:
                    pts = None  # nothing else holds the buffer now
                s = s.play(p)
                plies += 1
        return plies

    return run


def openspiel_loop(size: int, seed: int, games: int):
    import pyspiel

    cap = 2 * size * size
    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5, "max_game_length": cap})

    def run() -> int:
        rand = random.Random(seed).random
        plies = 0
        for _ in range(games):
            s = game.new_initial_state()
            for _ in range(cap):
                if s.is_terminal():
                    break
                actions = s.legal_actions()
                s.apply_action(actions[int(rand() * len(actions))])
                plies += 1
        return plies

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--games", type=int, default=30, help="games in the fixed workload (default 30)")
    parser.add_argument("--repeats", type=int, default=20, help="timings per contender (default 20)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=None, help="write the result here as JSON")
    args = parser.parse_args()

    loops = {
        "api": fuseki_loop(args.size, args.seed, args.games, hold=False),
        "api_held": fuseki_loop(args.size, args.seed, args.games, hold=True),
    }
    try:
        loops["openspiel"] = openspiel_loop(args.size, args.seed, args.games)
    except ImportError:
        print("OpenSpiel is not installed (bash scripts/setup.sh --bench); timing fuseki alone", file=sys.stderr)
    for run in loops.values():
        run()  # warm-up: JIT, caches
    best: dict[str, tuple[float, int]] = {}
    for _ in range(args.repeats):
        for name, run in loops.items():  # interleaved, so a noisy spell hits every contender
            start = time.perf_counter()
            plies = run()
            seconds = time.perf_counter() - start
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, plies)
    rates = {name: plies / seconds for name, (seconds, plies) in best.items()}
    peer = rates.get("openspiel")
    import fuseki

    where = Path(fuseki.__file__).resolve().parent
    commit = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    result = {
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "commit": commit,
        "size": args.size,
        "games": args.games,
        "repeats": args.repeats,
        "best_plies_per_s": {k: round(v) for k, v in rates.items()},
        "vs_openspiel": {k: round(v / peer, 3) for k, v in rates.items()} if peer else None,
    }
    print(json.dumps(result))
    if args.out:
        from fuseki.util.atomic import write_json_atomic

        write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
