"""Zero self-play speed on 9×9 at candidate settings for a long run from zero (docs/zero.md).

Each candidate plays ``--games`` self-play games of ``--moves`` moves from the
empty board at once (``play_games`` on the Numba Go search, the loop's
self-play), with a network of random weights (an untrained network costs
what a trained one does), one torch thread, and reports moves and network
evaluations per second of wall time and of CPU time (the machine is shared:
the CPU-time rate is the one to compare). The learner's speed (training
samples per second, 8 symmetries, batch 256) is measured for each network
size too, since a generation is self-play plus training.

Results go to ``--out`` as they come (one entry per candidate); a candidate
already there is not run again, so a killed run goes on where it stopped.

    nice -n 5 .venv/bin/python benchmarks/zero_settings.py --out benchmarks/results/zero_settings_9.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

#: name -> (blocks, channels, root, simulations, parallel, leaves, precision[, engine])
CANDIDATES: dict[str, tuple[Any, ...]] = {
    "4x64 puct 100 p64 fp32": (4, 64, "puct", 100, 64, 8, "fp32"),
    "4x64 puct 100 p64 bf16": (4, 64, "puct", 100, 64, 8, "bf16"),
    "4x64 puct 100 p32 bf16": (4, 64, "puct", 100, 32, 8, "bf16"),
    "4x64 puct 100 p128 bf16": (4, 64, "puct", 100, 128, 8, "bf16"),
    "4x64 puct 200 p64 bf16": (4, 64, "puct", 200, 64, 8, "bf16"),
    "6x64 puct 100 p64 bf16": (6, 64, "puct", 100, 64, 8, "bf16"),
    "4x64 gumbel 16 p128 bf16": (4, 64, "gumbel", 16, 128, 4, "bf16"),
    "4x64 gumbel 32 p128 bf16": (4, 64, "gumbel", 32, 128, 4, "bf16"),
    "6x64 gumbel 32 p128 bf16": (6, 64, "gumbel", 32, 128, 4, "bf16"),
    "4x64 gumbel 32 p128 fp32": (4, 64, "gumbel", 32, 128, 4, "fp32"),
    "4x64 gumbel 32 p32 bf16": (4, 64, "gumbel", 32, 32, 4, "bf16"),
    "4x64 gumbel 16 p32 bf16": (4, 64, "gumbel", 16, 32, 4, "bf16"),
    "4x64 puct 100 p16 bf16": (4, 64, "puct", 100, 16, 8, "bf16"),
    # The two engines side by side: the loop's old Go self-play (the Python PUCT) and the Numba trees,
    # with the network of the runs (network-bound) and with a tiny one (search-bound).
    "4x64 puct 32 p16 fp32 python": (4, 64, "puct", 32, 16, 8, "fp32", "python"),
    "4x64 puct 32 p16 fp32 numba": (4, 64, "puct", 32, 16, 8, "fp32", "numba"),
    "1x8 puct 32 p16 fp32 python": (1, 8, "puct", 32, 16, 8, "fp32", "python"),
    "1x8 puct 32 p16 fp32 numba": (1, 8, "puct", 32, 16, 8, "fp32", "numba"),
}


def measure_selfplay(
    blocks: int,
    channels: int,
    root: str,
    simulations: int,
    parallel: int,
    leaves: int,
    precision: str,
    moves: int,
    seed: int,
    engine: str = "numba",
) -> dict[str, Any]:
    import torch

    from fuseki.agents.zero_agent import build_zero_network
    from fuseki.games.go import GoGame
    from fuseki.search.evaluators import NetworkEvaluator
    from fuseki.zero.selfplay import SelfPlayConfig, play_games

    torch.set_num_threads(1)
    game = GoGame(size=9, komi=7.5)
    torch.manual_seed(seed)
    net = build_zero_network(game, blocks, channels).eval()
    evaluator = NetworkEvaluator(game, net, device="cpu", max_batch=4096, precision=precision)
    config = SelfPlayConfig(
        simulations=simulations, parallel=parallel, leaves_per_game=leaves, max_moves=moves, root=root, gumbel_m=16, engine=engine
    )
    play_games(game, evaluator, 2, dataclasses.replace(config, parallel=2, max_moves=2, simulations=8), seed=seed + 1)
    cpu = time.process_time()
    _, stats = play_games(game, evaluator, parallel, config, seed=seed)
    cpu = time.process_time() - cpu
    return {
        "moves": stats.moves,
        "evaluations": stats.evaluations,
        "network_calls": stats.network_calls,
        "seconds": round(stats.seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "moves_per_s": stats.moves / stats.seconds,
        "evals_per_s": stats.evaluations / stats.seconds,
        "cpu_moves_per_s": stats.moves / cpu,
        "cpu_evals_per_s": stats.evaluations / cpu,
    }


def measure_training(blocks: int, channels: int, samples: int, seed: int) -> dict[str, Any]:
    import numpy as np
    import torch

    from fuseki.agents.zero_agent import build_zero_network
    from fuseki.games.go import GoGame
    from fuseki.zero.learner import LearnerConfig, train_network

    torch.set_num_threads(1)
    game = GoGame(size=9, komi=7.5)
    torch.manual_seed(seed)
    net = build_zero_network(game, blocks, channels)
    rng = np.random.default_rng(seed)
    planes = (rng.random((samples, *game.planes_shape)) < 0.3).astype(np.float32)
    pi = rng.dirichlet(np.ones(game.num_actions), size=samples).astype(np.float32)
    z = rng.choice([-1.0, 1.0], size=samples).astype(np.float32)
    cpu = time.process_time()
    t = time.perf_counter()
    train_network(net, game, planes, pi, z, LearnerConfig(epochs=1, batch_size=256), seed=seed)
    wall = time.perf_counter() - t
    cpu = time.process_time() - cpu
    return {
        "samples": samples,
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "samples_per_s": samples / wall,
        "cpu_samples_per_s": samples / cpu,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--moves", type=int, default=8, help="moves of each game (default 8)")
    p.add_argument("--train-samples", type=int, default=2048, help="samples of the learner's timing (0: skip it)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", default=None, help="comma-separated candidate names")
    args = p.parse_args()
    out = Path(args.out)
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    # Every run that added to the file, in order (a resumed or extended file has several).
    command = shlex.join(["python", "benchmarks/zero_settings.py", *sys.argv[1:]])
    result["commands"] = [*result.get("commands", []), command]
    result.setdefault("selfplay", {})
    result.setdefault("training", {})
    names = list(CANDIDATES) if not args.only else [n.strip() for n in args.only.split(",")]
    for name in names:
        if name in result["selfplay"]:
            continue
        b, c, root, sims, par, leaves, prec, *rest = CANDIDATES[name]
        engine = rest[0] if rest else "numba"
        entry = measure_selfplay(b, c, root, sims, par, leaves, prec, args.moves, args.seed, engine)
        entry["settings"] = {
            "blocks": b,
            "channels": c,
            "root": root,
            "simulations": sims,
            "parallel": par,
            "leaves": leaves,
            "precision": prec,
            "moves_per_game": args.moves,
            "engine": engine,
        }
        result["selfplay"][name] = entry
        print(
            f"{name}: {entry['cpu_moves_per_s']:.2f} moves/CPU-s, {entry['cpu_evals_per_s']:.0f} evals/CPU-s "
            f"({entry['moves_per_s']:.2f} moves/s wall)",
            flush=True,
        )
        out.write_text(json.dumps(result, indent=2) + "\n")
    for b, c in ((4, 64), (6, 64)) if args.train_samples > 0 else ():
        key = f"{b}x{c}"
        if key in result["training"]:
            continue
        result["training"][key] = measure_training(b, c, args.train_samples, args.seed)
        print(f"training {key}: {result['training'][key]['cpu_samples_per_s']:.0f} samples/CPU-s", flush=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
