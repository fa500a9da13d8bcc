"""The encode-speed table of docs/encoders.md: positions per second of each encoder, 9x9 and 19x19.

200 mid-game positions from uniform random play (9x9 after 40 moves, 19x19
after 150; seeded), default rules; each encoder encodes all of them, one
``encode`` call per position, best of ``--passes`` passes (interference only
adds time). The first call of each encoder is left out (Numba compiles or
loads its kernels then).

    .venv/bin/python benchmarks/encode_speed.py --out benchmarks/results/encode_speed.json
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

from fuseki.bench.common import commit_of, finish_record
from fuseki.encoders import get_encoder
from fuseki.go.state import GameState

ENCODERS = ("oneplane", "sevenplane", "simple", "zero", "alphago")
MOVES = {9: 40, 19: 150}


def positions(size: int, count: int, seed: int) -> list[GameState]:
    rand = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        s = GameState.new(size)
        for _ in range(MOVES[size]):
            if s.is_over():
                break
            pts = s.legal_points()
            m = int(pts[int(rand.random() * len(pts))]) if len(pts) else size * size
            pts = None
            s = s.play(m)
        if not s.is_over():
            out.append(s)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    table: dict[str, dict[str, float]] = {}
    for size in (9, 19):
        states = positions(size, args.positions, seed=size)
        for name in ENCODERS:
            enc = get_encoder(name, size)
            enc.encode(states[0])
            best = float("inf")
            for _ in range(args.passes):
                t = time.perf_counter()
                for s in states:
                    enc.encode(s)
                best = min(best, time.perf_counter() - t)
            row = table.setdefault(name, {})
            row[f"{size}x{size}_pos_per_s"] = round(len(states) / best)
            row[f"{size}x{size}_us"] = round(1e6 * best / len(states), 1)
            print(name, size, row[f"{size}x{size}_pos_per_s"], file=sys.stderr)
    result = {
        "commit": commit_of(Path(__file__).parent),
        "load_average": os.getloadavg(),
        "positions": args.positions,
        "passes": args.passes,
        "encoders": table,
    }
    return finish_record(result, "benchmarks/encode_speed.py", argv, args.out, indent=2)


if __name__ == "__main__":
    raise SystemExit(main())
