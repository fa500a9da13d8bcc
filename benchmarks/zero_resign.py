"""The false resignations of a Zero run, and the threshold AlphaGo Zero's rule would have chosen (issue 18).

    python benchmarks/zero_resign.py runs/go9 --target 0.05 --out benchmarks/results/zero_go9/resign.json

Reads the run's ``state.json``: every generation's counts of would-be and false resignations in its no-resign
games (at the threshold it played with), and, for the generations that kept them, the no-resign games' resign
records (``fuseki.zero.selfplay.resign_record``). From the records it counts, for each threshold of a few,
how many of those games would have resigned and how many falsely, and gives ``calibrate_resign``'s choice
for the target: what ``--resign-target`` would have played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fuseki.util.atomic import write_json_atomic
from fuseki.zero.loop import load_state, recorded_hours
from fuseki.zero.selfplay import calibrate_resign, resign_counts

#: The thresholds the table shows (the calibration itself tries every hundredth from -1 to -0.5).
SHOWN = (-0.99, -0.98, -0.97, -0.95, -0.9, -0.85, -0.8, -0.7, -0.6, -0.5)


def at(records: list[list[list[Any]]], v: float) -> dict[str, Any]:
    """Would-be and false resignations of the recorded games at threshold ``v``."""
    would, false = resign_counts(records, v)
    return {"threshold": v, "would_resign": would, "false": false, "rate": false / would if would else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder of `fuseki zero train`")
    parser.add_argument("--target", type=float, default=0.05, help="the false-resignation share to keep under (0.05)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    if not (args.run / "state.json").is_file():
        print(f"zero_resign.py: {args.run} has no state.json", file=sys.stderr)
        return 2
    if not 0.0 <= args.target < 1.0:
        print(f"zero_resign.py: --target must be in [0, 1), got {args.target}", file=sys.stderr)
        return 2
    history = load_state(args.run)["history"]
    if not history:
        print(f"zero_resign.py: {args.run} has no finished generation", file=sys.stderr)
        return 2
    recorded = [e for e in history if "resign_records" in e["selfplay"]]
    records = [r for e in recorded for _, r in e["selfplay"]["resign_records"]]
    played = sorted({e["selfplay"].get("resign_threshold") for e in history} - {None})
    result: dict[str, Any] = {
        "command": " ".join(["python", *sys.argv]),
        "run": str(args.run),
        "generations": len(history),
        "hours": recorded_hours({"history": history}),
        "thresholds_played": played,
        "no_resign_games": sum(e["selfplay"]["no_resign_games"] for e in history),
        "would_resign": sum(e["selfplay"]["would_resign"] for e in history),
        "false_resignations": sum(e["selfplay"]["false_resignations"] for e in history),
        "recorded_generations": [recorded[0]["generation"], recorded[-1]["generation"]] if recorded else None,
        "recorded_games": len(records),
        "table": [at(records, v) for v in SHOWN],
        "target": args.target,
        "calibrated": calibrate_resign(records, args.target) if records else None,
    }
    print(json.dumps(result))
    if args.out is not None:
        write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
