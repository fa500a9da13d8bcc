"""Would a lower learning rate, or a larger window, help a Zero run that has levelled off? One generation held out.

A run's generation ``H`` self-play was played by generation ``H - 1``'s network and no network has trained
on it yet. This script takes generation ``H - 1``'s network and optimiser state, trains it one more
generation's worth (one pass over the window the run used for ``H - 1``, the run's batch size, momentum and
weight decay) at each learning rate asked for, and measures each result's loss on generation ``H``'s samples,
beside the loss of ``H - 1``'s network as it is. Only the learning rate differs between the rows, and every
row trains on the same samples in the same order (the same seed), so the differences between rows are the
learning rate's.

    python benchmarks/zero_lr_probe.py runs/go9 --held-out 99 --lr 0.02,0.006,0.002 \\
        --out benchmarks/results/zero_go9/lr_probe_99.json
    python benchmarks/zero_lr_probe.py runs/go9 --held-out 99 --lr 0.02,0.002 --window 20 --samples 67328 \
        --out benchmarks/results/zero_go9/lr_probe_99_w20.json

It reads the run and writes only ``--out``: it can run beside the run itself.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import torch

from fuseki.agents.zero_agent import load_zero_network
from fuseki.bench.common import machine_info
from fuseki.nets.denormals import flush_denormals_in_this_process
from fuseki.util.atomic import write_json_atomic
from fuseki.zero.learner import LearnerConfig, evaluate_loss, make_optimizer, optimizer_from_bytes, train_network
from fuseki.zero.loop import learner_path, load_state, network_path, window_samples, window_sizes


def _rounded(losses: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in losses.items()}


def probe(
    run: Path,
    held_out: int,
    rates: list[float],
    seed: int,
    window: int | None = None,
    samples: int | None = None,
    networks: list[int] | None = None,
) -> dict[str, Any]:
    """The held-out losses of generation ``held_out - 1``'s network, as it is and trained once more at each rate.

    ``networks``: other generations' networks to measure as they are. ``window``: train on the last
    ``window`` generations instead of the run's window; ``samples``: a uniform
    draw of that many of the window's samples (seeded), so that a larger window can be tried at the run's
    number of training steps.
    """
    settings = json.loads((run / "zero.json").read_text(encoding="utf-8"))["settings"]
    state = load_state(run)
    base = held_out - 1
    if base < 1 or base > int(state["generation"]) or not (run / f"selfplay-{held_out:04d}.npz").exists():
        raise SystemExit(f"zero_lr_probe: generation {held_out} must be after the first and have its self-play in {run}")
    window = range(max(1, base - int(window or settings["window"]) + 1), base + 1)
    planes, pi, z = window_samples(run, window, samples, seed)
    test = window_samples(run, range(held_out, held_out + 1), None, seed)
    network, _, _ = load_zero_network(network_path(run, base))
    rows: list[dict[str, Any]] = [{"lr": None, "note": f"generation {base} as it is", **_rounded(evaluate_loss(network, *test))}]
    for g in networks or []:
        if g >= held_out:
            raise SystemExit(f"zero_lr_probe: generation {g}'s network trained on the held-out samples of {held_out}")
        if g != base:
            other, _, _ = load_zero_network(network_path(run, g))
            rows.append({"lr": None, "note": f"generation {g} as it is", **_rounded(evaluate_loss(other, *test))})
    for lr in rates:
        network, game, _ = load_zero_network(network_path(run, base))
        config = LearnerConfig(
            epochs=1,
            batch_size=int(settings["batch_size"]),
            optimizer=str(settings["optimizer"]),
            lr=lr,
            momentum=float(settings["momentum"]),
            weight_decay=float(settings["weight_decay"]),
            augment=bool(settings["augment"]),
        )
        optimizer = make_optimizer(network, config)
        optimizer_from_bytes(optimizer, learner_path(run, base).read_bytes())  # its state, this row's rate
        started = time.perf_counter()
        history = train_network(network, game, planes, pi, z, config, seed=seed, optimizer=optimizer)
        seconds = time.perf_counter() - started
        rows.append(
            {
                "lr": lr,
                "train": _rounded({k: v for k, v in history[-1].items() if k != "epoch" and k != "samples"}),
                "train_seconds": round(seconds, 1),
                **_rounded(evaluate_loss(network, *test)),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return {
        "run": str(run),
        "base_generation": base,
        "window": [window.start, window.stop - 1],
        "window_samples": sum(window_sizes(run, window)),
        "train_samples": len(z),
        "held_out_generation": held_out,
        "held_out_samples": len(test[2]),
        "run_lr": settings["lr"],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a `fuseki zero train` run folder")
    parser.add_argument("--held-out", type=int, required=True, help="the generation whose samples are the test set")
    parser.add_argument("--lr", default="0.02,0.006,0.002", help="comma-separated learning rates ('' for none)")
    parser.add_argument("--networks", default="", help="comma-separated generations whose networks, as they are, to measure too")
    parser.add_argument("--window", type=int, default=None, help="generations to train on (default the run's window)")
    parser.add_argument("--samples", type=int, default=None, help="train on a uniform draw of this many of the window's samples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        rates = [float(x) for x in args.lr.split(",") if x.strip()]
        networks = [int(x) for x in args.networks.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--lr and --networks take comma-separated numbers, got {args.lr!r} and {args.networks!r}")
    flush_denormals_in_this_process()
    torch.set_num_threads(1)  # as the run trains: one thread (two fight each other on a shared 2-core machine)
    result = probe(args.run, args.held_out, rates, args.seed, args.window, args.samples, networks)
    result["command"] = "python benchmarks/zero_lr_probe.py " + shlex.join(sys.argv[1:])
    result["machine"] = machine_info()
    write_json_atomic(args.out, result)
    print(json.dumps(result["rows"]))


if __name__ == "__main__":
    main()
