"""The shipped policy bot: time a move on one thread vs torch's pool, and the clip's junk share.

Two figures of docs/training.md, measured side by side in one process:

1. **Move time.** The network's forward pass for one position, timed in
   rounds that alternate ``fuseki.nets.inference.inference`` (one CPU thread,
   what the bots use) with plain ``torch.inference_mode()`` on torch's
   default thread pool. The ratio depends on what else runs on the machine:
   the pool's threads spin while they wait, and lose badly when other
   processes want the cores. So the timing is repeated with ``--busy`` extra
   processes spinning on the CPU (as a training run or GNU Go would); the
   load average is recorded with the result.
2. **Junk share.** The book's agent cubes the probabilities and clips them
   at 1e-6 before normalising. For a few positions this reports how much of
   the draw goes to points whose raw probability is below 0.1 %.

    .venv/bin/python benchmarks/policy_bot.py --busy 0,2,4 --out benchmarks/results/policy_bot_9.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shlex
import statistics
import sys
import time

#: Positions of the junk-share table: the moves played from the empty 9x9 board (point indices).
OPENINGS = {"empty board": [], "after 1. E5": [40], "after 1. E5 2. C3 3. G7 4. C7": [40, 60, 20, 24]}


def _time_moves(bot, states, rounds: int) -> dict[str, float]:
    import numpy as np
    import torch

    from fuseki.nets.inference import inference

    x = torch.from_numpy(np.stack([bot.encoder.encode(s) for s in states])).float()
    single, pool = [], []
    for _ in range(rounds):
        for i in range(len(states)):
            t = time.perf_counter()
            with inference("cpu", 1):
                bot.model(x[i : i + 1])
            single.append(time.perf_counter() - t)
            t = time.perf_counter()
            with torch.inference_mode():
                bot.model(x[i : i + 1])
            pool.append(time.perf_counter() - t)
    return {
        "torch_threads": torch.get_num_threads(),
        "one_thread_median_s": statistics.median(single),
        "pool_median_s": statistics.median(pool),
        "pool_over_one_thread": statistics.median(pool) / statistics.median(single),
    }


def _spin() -> None:
    while True:
        pass


def _time_under_load(bot, states, rounds: int, busy: int) -> dict[str, float]:
    """:func:`_time_moves` while ``busy`` other processes keep CPUs busy."""
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
    for proc in spinners:
        proc.start()
    try:
        time.sleep(0.5 if busy else 0)
        return {"busy_processes": busy, **_time_moves(bot, states, rounds), "load_average_1min": os.getloadavg()[0]}
    finally:
        for proc in spinners:
            proc.terminate()
            proc.join()


def _junk_share(bot) -> dict[str, dict[str, float]]:
    from fuseki.go.state import GameState

    out = {}
    for name, moves in OPENINGS.items():
        state = GameState.new(9)
        for move in moves:
            state = state.play(move)
        raw = bot.predict([state])[0]
        drawn = bot.move_probabilities([state])[0]
        cands = bot.candidates(state)
        weights = drawn[cands] / drawn[cands].sum()
        junk = raw[cands] < 1e-3
        out[name] = {"junk_points": int(junk.sum()), "junk_share": float(weights[junk].sum())}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="policy-9x9", help="agent file or model name (default the shipped one)")
    p.add_argument("--rounds", type=int, default=20, help="timing rounds over the positions (default 20)")
    p.add_argument("--busy", default="0,2", help="extra spinning processes for each timing, comma-separated (default 0,2)")
    p.add_argument("--out", default=None, help="write the result here as JSON")
    args = p.parse_args()

    from fuseki.agents import make_agent
    from fuseki.go.state import GameState

    bot = make_agent("policy", model=args.model, seed=0)
    opponent = make_agent("random", seed=0)
    states, state = [], GameState.new(9)
    while not state.is_over() and len(states) < 30:  # positions of one game, bot against random
        states.append(state)
        state = state.play((bot if len(states) % 2 else opponent).select_move(state))
    result = {
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
        "model": args.model,
        "positions": len(states),
        "rounds": args.rounds,
        "move_time": [_time_under_load(bot, states, args.rounds, int(n)) for n in args.busy.split(",")],
        "junk_share": _junk_share(bot),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
