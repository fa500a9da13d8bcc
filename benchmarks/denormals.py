"""What subnormal weights cost a shipped network on the CPU, side by side (``fuseki.nets.denormals``).

    nice -n 5 .venv/bin/python benchmarks/denormals.py --model src/fuseki/models/alphago-9x9/sl_policy.safetensors \\
        --out benchmarks/results/denormals_9.json

The agent file is read as it was stored (``safetensors`` straight into the rebuilt network, bypassing the
loader's flush) and measured against a copy whose subnormal weights are zeroed (what ``load_agent_file``
now gives), interleaved round by round on one torch thread, the median of ``--rounds`` rounds:

* **forward passes** at batch 1 and 16, positions a second, and whether the outputs are bit-identical;
* **training steps** (cross-entropy on random targets, SGD with momentum and weight decay, batch 64),
  samples a second: the stored weights, the zeroed weights, and the stored weights with the CPU's
  flush-to-zero mode on (what the ``fuseki`` training commands set), measured last because the mode
  cannot be taken back for torch's threads.
"""

from __future__ import annotations

import argparse
import copy
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def stored_network(path: str) -> tuple[Any, Any]:
    """The network with the file's weights exactly as stored (subnormals kept)."""
    import safetensors.torch

    from fuseki.agents.agent_file import read_agent_info
    from fuseki.nets.registry import build_network

    info = read_agent_info(path)
    net = build_network(info.network, in_planes=info.in_planes, size=info.board_size, num_moves=info.num_moves, **info.network_options)
    net.load_state_dict(safetensors.torch.load_file(path, device="cpu"), strict=True)
    return net.eval(), info


def timed(fn: Any, reps: int) -> float:
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t) / reps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="an agent file (policy network)")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # a bad --out fails before the measurement, not after

    import torch
    import torch.nn.functional as F

    from fuseki.bench.common import machine_info
    from fuseki.nets.denormals import flush_subnormal_weights
    from fuseki.util.atomic import write_json_atomic

    torch.set_num_threads(1)
    stored, info = stored_network(args.model)
    zeroed = copy.deepcopy(stored)
    count = flush_subnormal_weights(zeroed)
    total = sum(p.numel() for p in stored.parameters())
    print(f"{args.model}: {count} of {total} weights subnormal ({100 * count / total:.1f} %)", flush=True)
    shape = (info.in_planes, info.board_size, info.board_size)
    gen = torch.Generator().manual_seed(0)
    result: dict[str, Any] = {
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine_info(),
        "torch": torch.__version__,
        "model": args.model,
        "subnormal_weights": count,
        "weights": total,
        "forward": [],
    }
    for batch in (1, 16):
        x = (torch.rand(batch, *shape, generator=gen) < 0.3).float()
        with torch.inference_mode():
            same = bool(torch.equal(stored(x), zeroed(x)))
            reps = max(2, 32 // batch)
            times: dict[str, list[float]] = {"stored": [], "zeroed": []}
            for _ in range(args.rounds):
                times["stored"].append(timed(lambda x=x: stored(x), reps))
                times["zeroed"].append(timed(lambda x=x: zeroed(x), reps))
        s, z = statistics.median(times["stored"]), statistics.median(times["zeroed"])
        row = {
            "batch": batch,
            "stored_per_s": round(batch / s, 1),
            "zeroed_per_s": round(batch / z, 1),
            "ratio": round(s / z, 2),
            "same_outputs": same,
        }
        result["forward"].append(row)
        print(f"forward, batch {batch}: {row}", flush=True)

    batch = 64
    x = (torch.rand(batch, *shape, generator=gen) < 0.3).float()
    y = torch.randint(0, info.num_moves, (batch,), generator=gen)

    def trainer(net: Any) -> Any:
        model = copy.deepcopy(net).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

        def step() -> None:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        return step

    steps = {"stored": trainer(stored), "zeroed": trainer(zeroed)}
    train_times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            train_times[name].append(timed(step, 2))
    torch.set_flush_denormal(True)
    ftz = trainer(stored)
    train_times["stored_flush_to_zero"] = [timed(ftz, 2) for _ in range(args.rounds)]
    torch.set_flush_denormal(False)
    result["train"] = {"batch": batch}
    for name, ts in train_times.items():
        rate = batch / statistics.median(ts)
        ratio = statistics.median(train_times["stored"]) / statistics.median(ts)
        result["train"][name] = {"samples_per_s": round(rate, 1), "ratio": round(ratio, 2)}
        print(f"training, {name}: {rate:.1f} samples/s", flush=True)
    write_json_atomic(args.out, result)
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
