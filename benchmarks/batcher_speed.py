"""Positions per second of the batched network evaluator, by batch size, on the CPU and (when present) the GPU.

Why: a Zero or AlphaGo search evaluates its leaves in batches
(:mod:`fuseki.nets.batcher`); how much batching buys depends on the device.
On a CPU a forward pass of 8 positions costs nearly 8 times one; on a GPU a
pass of 256 costs about the same as one. This measures it for the dual
residual network at the book's demo size (9×9, 4 blocks × 64) and at a
19×19 size (10 blocks × 128), so that the self-play engine can pick a batch
size per device.

    python benchmarks/batcher_speed.py --out benchmarks/results/batcher_speed_cpu.json
    python benchmarks/batcher_speed.py --devices cuda --out ...   # on a machine with a GPU
    python benchmarks/batcher_speed.py --devices cpu --precisions fp32,bf16 --batches 128 --threads 1 \
        --out benchmarks/results/batcher_precision_cpu.json       # bf16 against fp32 on this CPU, side by side

bf16 pays only where the hardware computes it (``native_bf16`` in the
record: AVX-512 BF16 or AMX on a CPU); elsewhere torch emulates it.

Each figure is the median of ``--repeats`` timed calls after two warm-up
calls, in positions (not batches) per second, masks and softmax included.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fuseki.bench.common import finish_record, machine_info
from fuseki.nets.batcher import PRECISIONS, Batcher, native_bf16
from fuseki.nets.residual import dual_residual_network

#: (label, board size, input planes, blocks, channels).
NETWORKS = [
    ("9x9, 17 planes, 4x64 (the book's demo)", 9, 17, 4, 64),
    ("19x19, 17 planes, 10x128", 19, 17, 10, 128),
]


def time_batches(batcher: Batcher, size: int, planes: int, batch: int, repeats: int, device: str) -> float:
    """Median positions/s of ``repeats`` calls on random planes with a random legal mask."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(batch, planes, size, size)).astype(np.float32)
    mask = rng.random((batch, size * size + 1)) < 0.7
    for _ in range(2):
        batcher(x, mask)
    times = []
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        batcher(x, mask)  # returns NumPy arrays, so the GPU has finished when it returns
        times.append(time.perf_counter() - start)
    return batch / statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", default="cpu,cuda", help="comma-separated; a missing GPU is skipped and said")
    parser.add_argument("--batches", default="1,8,32,128,512")
    parser.add_argument("--precisions", default="fp32", help=f"comma-separated, of {', '.join(PRECISIONS)}")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    batches = [int(b) for b in args.batches.split(",")]
    precisions = args.precisions.split(",")
    if any(p not in PRECISIONS for p in precisions):
        parser.error(f"--precisions: each of {', '.join(PRECISIONS)}, got {args.precisions!r}")
    rows: list[dict[str, Any]] = []
    notes = []
    for device in args.devices.split(","):
        if device == "cuda" and not torch.cuda.is_available():
            notes.append("cuda: torch sees no GPU on this machine; not measured")
            continue
        for label, size, planes, blocks, channels in NETWORKS:
            torch.manual_seed(0)
            net = dual_residual_network(in_planes=planes, size=size, num_moves=size * size + 1,
                                        blocks=blocks, channels=channels)
            batchers = {p: Batcher(net, device=device, max_batch=max(batches), precision=p) for p in precisions}
            for batch in batches:
                for precision, batcher in batchers.items():  # side by side: the same load for each precision
                    rate = time_batches(batcher, size, planes, batch, args.repeats, device)
                    rows.append({"device": device, "network": label, "batch": batch, "precision": precision,
                                 "positions_per_s": round(rate, 1)})
                    print(f"{device:5s} {label:40s} {precision} batch {batch:4d}: {rate:12.1f} positions/s", flush=True)
    result = {
        "rows": rows,
        "notes": notes,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cpu_threads": torch.get_num_threads(),
            "cpu": machine_info()["cpu"],
            "cpu_native_bf16": native_bf16(torch.device("cpu")),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        },
    }
    return finish_record(result, "benchmarks/batcher_speed.py", argv, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
