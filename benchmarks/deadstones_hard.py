"""The thesis's dead-stone experiment on harder data: games stopped by two passes before they were settled.

On the GNU Go self-play endgames of docs/deadstones.md one feature alone separates 99 % of the blocks, so
the thesis's table measures only that every network learns. The scoring sets of issue 21
(benchmarks/data/scoring*, games between a strong and a weak player stopped by two passes, labelled by
GNU Go's final_status_list) leave weak groups, open borders and races on the board. This script:

    python benchmarks/deadstones_hard.py export benchmarks/data/scoring9 benchmarks/data/scoring9tp --out runs/dead-hard9
    fuseki deadstones make-data runs/dead-hard9 --labeller marks --out runs/dead-hard9/blocks.npz
    python benchmarks/deadstones_hard.py separate runs/dead-hard9/blocks.npz [--out FILE.json]

``export`` writes each two-pass game's SGF (with GNU Go's dead stones as ``DD`` marks) into a folder;
``separate`` reports, for each feature of set A, the best accuracy a single threshold on it reaches (either
direction), the best feature, and the share of blocks that are dead: the number docs/deadstones.md quotes
(99.2 % on the easy data).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from fuseki.bench.scoring_set import read_set
from fuseki.deadstones.dataset import load_block_dataset
from fuseki.deadstones.features import feature_names


def best_threshold_accuracy(x: np.ndarray, dead: np.ndarray) -> float:
    """The best accuracy of ``dead == (x > t)`` or ``dead == (x <= t)`` over every threshold ``t``.

    >>> best_threshold_accuracy(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 1]))
    1.0
    >>> best_threshold_accuracy(np.array([1.0, 1.0, 1.0, 1.0]), np.array([0, 0, 0, 1]))
    0.75
    """
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], dead[order].astype(np.int64)
    n = len(xs)
    # Cut after position i (i = 0..n): the first i predicted one way, the rest the other; only between distinct values.
    dead_before = np.concatenate([[0], np.cumsum(ys)])
    alive_before = np.arange(n + 1) - dead_before
    dead_after = dead_before[-1] - dead_before
    cuts = np.concatenate([[True], xs[1:] != xs[:-1], [True]])
    alive_low = (alive_before + dead_after)[cuts]  # low values alive, high values dead
    dead_low = (dead_before + (n - np.arange(n + 1) - dead_after))[cuts]
    return float(max(alive_low.max(), dead_low.max()) / n)


def export(sets: list[str], out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for folder in sets:
        for game in read_set(folder):
            if game.ending != "two-passes":
                continue
            (out / f"{Path(folder).name}-{game.game:04d}.sgf").write_text(game.sgf, encoding="utf-8")
            written += 1
    print(f"{written} two-pass games written to {out}")
    return 0


def separate(blocks: Path, out: Path | None) -> int:
    data = load_block_dataset(blocks)
    x, dead = data.features("A"), np.asarray(data.dead)
    names = feature_names("A")
    scores = sorted(((best_threshold_accuracy(x[:, i], dead), names[i]) for i in range(x.shape[1])), reverse=True)
    result = {
        "blocks": len(data),
        "games": data.num_games,
        "dead_share": round(float(dead.mean()), 4),
        "best_single_feature": {"name": scores[0][1], "accuracy": round(scores[0][0], 4)},
        "top5": [{"name": n, "accuracy": round(a, 4)} for a, n in scores[:5]],
        "source": str(blocks),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    e = sub.add_parser("export", help="the two-pass games of scoring sets as SGF files with GNU Go's DD marks")
    e.add_argument("sets", nargs="+")
    e.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("separate", help="the best accuracy of one feature with one threshold")
    s.add_argument("blocks", type=Path)
    s.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.action == "export":
        return export(args.sets, args.out)
    return separate(args.blocks, args.out)


if __name__ == "__main__":
    sys.exit(main())
