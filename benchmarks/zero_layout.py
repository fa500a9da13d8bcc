"""Channels-last against the default layout for a Zero network on the CPU, side by side (docs/zero.md).

    nice -n 5 .venv/bin/python benchmarks/zero_layout.py --model runs/go9/gen-0079.safetensors \\
        --out benchmarks/results/zero_layout_9.json

Three measurements (``--parts``), each a ratio of the two layouts taken in the same run, interleaved round by round so that
the shared machine's load falls on both alike (the median of ``--rounds`` rounds):

* **forward passes** of the network at batch sizes 1 to 256 (planes of zeros and ones drawn at random; the
  weights decide the cost, not the values), positions a second;
* **self-play** at the settings of the 9×9 run (``play_games`` on the Numba search: Gumbel root at 32
  simulations, 32 games × 4 leaves), moves a CPU second, with the batcher's layout forced each way
  (``Batcher.channels_last``; ``None``, the shipped rule, takes channels-last for these batches);
* **training steps** of the learner at batch 256 (``zero_loss``, SGD with momentum, train mode), samples a
  second: the input in NCHW, the input in channels-last (what ``fuseki.zero.learner`` does on the CPU), and
  the weights converted as well (not done: the network file and the optimiser state keep their layout).

One torch thread, float32 (channels-last is used for fp32 only: see ``fuseki.nets.batcher``). Without
``--model`` a 4×64 network of random weights is measured (the cost is the same).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def forward_rates(net: Any, shape: tuple[int, int, int], batches: list[int], rounds: int) -> list[dict[str, Any]]:
    import torch

    out = []
    for b in batches:
        x = (torch.rand(b, *shape) < 0.3).float()
        xc = x.contiguous(memory_format=torch.channels_last)
        reps = max(3, 1024 // b)
        times: dict[str, list[float]] = {"contiguous": [], "channels_last": []}
        with torch.inference_mode():
            for _ in range(2):
                net(x), net(xc)
            for _ in range(rounds):
                for name, planes in (("contiguous", x), ("channels_last", xc)):
                    t = time.perf_counter()
                    for _ in range(reps):
                        net(planes)
                    times[name].append((time.perf_counter() - t) / reps)
        c, n = statistics.median(times["contiguous"]), statistics.median(times["channels_last"])
        out.append({"batch": b, "contiguous_per_s": round(b / c, 1), "channels_last_per_s": round(b / n, 1), "ratio": round(c / n, 3)})
        print(f"batch {b:4d}: {b / c:8.0f} against {b / n:8.0f} positions/s, channels-last x{c / n:.2f}", flush=True)
    return out


def selfplay_rates(net: Any, moves: int, rounds: int) -> dict[str, Any]:
    from fuseki.games.go import GoGame
    from fuseki.search.evaluators import NetworkEvaluator
    from fuseki.zero.selfplay import SelfPlayConfig, play_games

    game = GoGame(size=9, komi=7.5)
    config = SelfPlayConfig(simulations=32, parallel=32, leaves_per_game=4, max_moves=moves, root="gumbel", gumbel_m=16)
    evaluators = {
        "contiguous": NetworkEvaluator(game, net, device="cpu", max_batch=4096),
        "channels_last": NetworkEvaluator(game, net, device="cpu", max_batch=4096),
    }
    evaluators["contiguous"].batcher.channels_last = False
    evaluators["channels_last"].batcher.channels_last = True
    rates: dict[str, list[float]] = {name: [] for name in evaluators}
    warm = SelfPlayConfig(simulations=8, parallel=2, leaves_per_game=4, max_moves=2, root="gumbel", gumbel_m=4)
    play_games(game, evaluators["contiguous"], 2, warm, seed=1)  # JIT compilation out of the timing
    for r in range(rounds):
        for name, evaluator in evaluators.items():
            cpu = time.process_time()
            _, stats = play_games(game, evaluator, 32, config, seed=100 + r)
            rates[name].append(stats.moves / (time.process_time() - cpu))
    c, n = statistics.median(rates["contiguous"]), statistics.median(rates["channels_last"])
    print(f"self-play: {c:.1f} against {n:.1f} moves a CPU second, channels-last x{n / c:.2f}", flush=True)
    return {
        "settings": "gumbel 32 simulations, 32 games x 4 leaves, fp32, one thread",
        "moves_per_game": moves,
        "contiguous_moves_per_cpu_s": [round(x, 2) for x in rates["contiguous"]],
        "channels_last_moves_per_cpu_s": [round(x, 2) for x in rates["channels_last"]],
        "ratio": round(n / c, 3),
    }


def train_rates(net: Any, shape: tuple[int, int, int], batch: int, rounds: int) -> dict[str, Any]:
    import copy

    import torch

    from fuseki.zero.learner import zero_loss

    variants = {
        "contiguous": copy.deepcopy(net),
        "input_channels_last": copy.deepcopy(net),
        "weights_channels_last": copy.deepcopy(net).to(memory_format=torch.channels_last),
    }
    optimizers = {k: torch.optim.SGD(n.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4) for k, n in variants.items()}
    x = (torch.rand(batch, *shape) < 0.3).float()
    xc = x.contiguous(memory_format=torch.channels_last)
    pi = torch.softmax(torch.randn(batch, net(x[:1])[0].shape[1]), dim=1)
    z = torch.rand(batch) * 2 - 1
    steps = 4
    times: dict[str, list[float]] = {k: [] for k in variants}
    for r in range(rounds + 1):  # round 0 warms up
        for name, model in variants.items():
            model.train()
            planes = x if name == "contiguous" else xc
            t = time.perf_counter()
            for _ in range(steps):
                total, _, _ = zero_loss(model, planes, pi, z)
                optimizers[name].zero_grad()
                total.backward()
                optimizers[name].step()
            if r:
                times[name].append((time.perf_counter() - t) / steps)
    base = statistics.median(times["contiguous"])
    out: dict[str, Any] = {"batch": batch}
    for name, ts in times.items():
        m = statistics.median(ts)
        out[name] = {"samples_per_s": round(batch / m, 1), "ratio": round(base / m, 3)}
        print(f"training, {name}: {batch / m:.0f} samples/s, x{base / m:.2f}", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a Zero network file for 9x9 Go (default: a random 4x64 network)")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each measurement (the median is reported)")
    parser.add_argument("--moves", type=int, default=12, help="moves of each self-play game in a round")
    parser.add_argument("--parts", default="forward,selfplay,train", help="which measurements to make")
    parser.add_argument("--train-batch", type=int, default=256, help="the batch of the training steps (the 9x9 run's)")
    parser.add_argument("--batches", default="1,4,8,16,32,64,128,256", help="batch sizes of the forward passes")
    args = parser.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # a bad --out fails before the measurement, not after

    import torch

    from fuseki.agents.zero_agent import build_zero_network, load_zero_network
    from fuseki.bench.common import machine_info
    from fuseki.util.atomic import write_json_atomic
    from fuseki.games.go import GoGame

    torch.set_num_threads(1)
    if args.model:
        net, game, _ = load_zero_network(args.model)
        if not game.name.startswith("go") or game.planes_shape[1:] != (9, 9):
            print(f"zero_layout.py: {args.model} is not a 9x9 Go network", file=sys.stderr)
            return 2
    else:
        game = GoGame(size=9, komi=7.5)
        torch.manual_seed(0)
        net = build_zero_network(game, 4, 64)
    net.eval()
    result: dict[str, Any] = {
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine_info(),
        "torch": torch.__version__,
        "model": args.model or "random 4x64",
    }
    parts = set(args.parts.split(","))
    if parts - {"forward", "selfplay", "train"}:
        print(f"zero_layout.py: unknown parts {sorted(parts - {'forward', 'selfplay', 'train'})}", file=sys.stderr)
        return 2
    if "forward" in parts:
        result["forward"] = forward_rates(net, game.planes_shape, [int(b) for b in args.batches.split(",")], args.rounds)
    if "selfplay" in parts:
        result["selfplay"] = selfplay_rates(net, args.moves, args.rounds)
    if "train" in parts:
        result["train"] = train_rates(net, game.planes_shape, args.train_batch, args.rounds)
    write_json_atomic(args.out, result)
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
