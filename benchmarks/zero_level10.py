"""How long a Zero run would take to reach GNU Go level 10, read off its Elo curve (issue 18).

    python benchmarks/zero_level10.py runs/go9 \\
        --pair benchmarks/results/zero_go9/anchor_mcts1000_vs_gnugo10.json \\
        --out benchmarks/results/zero_go9/level10.json

The run's rating (``fuseki zero rate``, ``RUN/rate/ratings.json``) places every rated generation against fixed
anchors; GNU Go level 10 is not one of them (each generation would have to play it too). Instead one more match
(``--pair``, the JSON of ``fuseki eval A B --json``, whose two agents are named with ``--pair-names``) ties level
10 to an anchor, and all the records are fitted together by Bradley-Terry as the rating does (one virtual draw
a pair, the first anchor 0, 95 % Fisher intervals).

Each generation's machine time is what its self-play and training steps recorded (``recorded_hours`` of the
run's ``state.json``, summed up to that generation). Two curves are fitted by least squares to the rated
generations from ``--from`` on:

* Elo against log2(hours): the usual shape of a learning run, a constant gain per doubling of compute;
* Elo against hours over the last ``--last`` rated generations: the local slope, optimistic once it flattens.

Each gives the hours at which the curve reaches level 10's Elo (``None`` when its slope is not positive), with
the range from the two ends of level 10's interval. It is an extrapolation of a curve measured at the rating's
search budget (200 simulations a move), at this run's settings (network size, games a generation): a bigger
network or another budget moves the curve.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.arena.ratings import fit_ratings
from fuseki.util.atomic import write_json_atomic
from fuseki.zero.loop import load_state, recorded_hours


def hours_by_generation(state: dict[str, Any]) -> dict[int, float]:
    """Recorded machine time (hours) at the end of each generation; generation 0, the random net, at 0."""
    hours = {0: 0.0}
    for k, entry in enumerate(state["history"]):
        hours[int(entry["generation"])] = recorded_hours({"history": state["history"][: k + 1]})
    return hours


def reach(slope: float, intercept: float, target: float, transform: str) -> float | None:
    """Hours at which ``intercept + slope * f(hours)`` reaches ``target`` (f = log2 or identity); None if never."""
    if not slope > 0:
        return None
    x = (target - intercept) / slope
    if transform == "log2":
        return float(2.0**x) if x < 1000 else math.inf
    return float(x)


def fit_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of y on x."""
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def estimate(
    ratings_doc: dict[str, Any], pair: tuple[str, str, float, float], state: dict[str, Any], start: int, last: int
) -> dict[str, Any]:
    """The refit with the extra pair, and the two curves' hours to the extra agent's Elo."""
    records = [(p["a"], p["b"], p["a_score"], p["b_score"]) for p in ratings_doc["pairs"]]
    anchor = ratings_doc["anchors"][0]["name"]
    known = {n for a, b, _, _ in records for n in (a, b)}
    tie, target_name = pair[0], pair[1]
    if tie not in known:
        raise ValueError(f"the pair's first agent {tie!r} is not in the rating (it has {', '.join(sorted(known))})")
    if target_name in known:
        raise ValueError(f"the pair's second agent {target_name!r} is already in the rating")
    ratings = fit_ratings([*records, pair], anchor=anchor)
    hours = hours_by_generation(state)
    rated = sorted(g["generation"] for g in ratings_doc["generations"])
    missing = [g for g in rated if g not in hours]
    if missing:
        raise ValueError(f"generations {missing} are rated but not in the run's state.json")
    points = [(g, hours[g], ratings.rating(f"gen {g}")) for g in rated if g >= start and hours[g] > 0]
    if len(points) < 3:
        raise ValueError(f"need at least 3 rated generations from generation {start} on, got {len(points)}")
    i = ratings.names.index(target_name)
    target = {"elo": float(ratings.elo[i]), "ci95": [float(ratings.lower[i]), float(ratings.upper[i])]}
    h = np.array([p[1] for p in points])
    e = np.array([p[2] for p in points])
    curves: dict[str, Any] = {}
    for name, x, transform in (
        ("log2_hours", np.log2(h), "log2"),
        ("hours_last", h[-last:], "identity"),
    ):
        y = e if transform == "log2" else e[-last:]
        slope, intercept = fit_line(x, y)
        curves[name] = {
            "generations": [p[0] for p in points] if transform == "log2" else [p[0] for p in points][-last:],
            "slope": slope,
            "slope_unit": "Elo per doubling of hours" if transform == "log2" else "Elo per hour",
            "intercept": intercept,
            "hours_to_target": reach(slope, intercept, target["elo"], transform),
            "hours_to_target_range": sorted(
                (v if v is not None else math.inf) for v in (reach(slope, intercept, t, transform) for t in target["ci95"])
            ),
        }
    last_g, last_h, last_e = points[-1]
    return {
        "anchor": anchor,
        "pair": {"a": pair[0], "b": pair[1], "a_score": pair[2], "b_score": pair[3]},
        "target": {"name": target_name, **target},
        "anchors": {n: float(ratings.elo[ratings.names.index(n)]) for n in ratings.names if not n.startswith("gen ")},
        "points": [{"generation": g, "hours": hh, "elo": ee} for g, hh, ee in points],
        "last": {"generation": last_g, "hours": last_h, "elo": last_e, "elo_below_target": target["elo"] - last_e},
        "curves": curves,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a rated run folder of `fuseki zero train go` (RUN/rate/ratings.json)")
    parser.add_argument("--pair", type=Path, required=True, help="`fuseki eval A B --json` output of a match tying the target to an anchor")
    parser.add_argument(
        "--pair-names", nargs=2, default=("mcts:1000", "gnugo:10"), metavar=("A", "B"), help="the rating's name of A, the target's name"
    )
    parser.add_argument("--from", dest="start", type=int, default=5, help="fit from this generation on (5)")
    parser.add_argument("--last", type=int, default=6, help="rated generations of the local linear fit (6)")
    parser.add_argument("--out", type=Path, help="write the estimate as JSON here")
    args = parser.parse_args()
    ratings_path = args.run / "rate" / "ratings.json"
    for path in (ratings_path, args.run / "state.json", args.pair):
        if not path.is_file():
            print(f"zero_level10.py: {path} is missing", file=sys.stderr)
            return 2
    if args.last < 2:
        print(f"zero_level10.py: --last must be at least 2, got {args.last}", file=sys.stderr)
        return 2
    try:
        lines = args.pair.read_text(encoding="utf-8").strip().splitlines()
        doc = json.loads(args.pair.read_text(encoding="utf-8")) if lines[0].startswith("{") else json.loads(lines[-1])
        pair = (args.pair_names[0], args.pair_names[1], doc["a_wins"] + doc["draws"] / 2, doc["b_wins"] + doc["draws"] / 2)
        result = estimate(json.loads(ratings_path.read_text(encoding="utf-8")), pair, load_state(args.run), args.start, args.last)
    except (ValueError, KeyError, IndexError) as e:
        print(f"zero_level10.py: {e}", file=sys.stderr)
        return 2
    result = {"command": " ".join(["python", *sys.argv]), "run": str(args.run), **result}
    text = json.dumps(result, indent=1)
    print(text)
    if args.out is not None:
        write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
