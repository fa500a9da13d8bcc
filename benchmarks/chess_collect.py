"""A chess match folder (``fuseki chess-match --out DIR``) into a result file and a PGN under benchmarks/results/.

    python benchmarks/chess_collect.py .chess/matches/skill1-mt0.1 chess_match_warm4x64_sf_skill1_mt0.1 \
        --command "PY=.venv/bin/python bash benchmarks/chess_strength.sh skills" --network "..."

The result holds the match's summary (the last JSON line of its log, as ``chess-match --json`` printed it),
the settings from ``match.json``, the mean length, and the protocol check: forfeits, illegal moves and
what each engine wrote on stderr. The folder itself lives in an ignored state folder (``.chess``) that
a new machine does not have; the result file and the PGN are what the docs cite.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the match folder (chess-match --out)")
    parser.add_argument("name", help="the result's name under benchmarks/results/ (NAME.json, NAME.pgn)")
    parser.add_argument("--command", required=True, help="the command that played the match")
    parser.add_argument("--network", required=True, help="which network played, in words")
    parser.add_argument("--machine", default="the project's 2-core machine; both engines 1 thread")
    args = parser.parse_args()
    folder: Path = args.folder
    log = folder.parent / f"{folder.name}.log"
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("{")] if log.exists() else []
    if not lines:
        parser.error(f"{log}: no summary line (has the match finished?)")
    summary = json.loads(lines[-1])
    settings = json.loads((folder / "match.json").read_text(encoding="utf-8")).get("settings", {})
    games = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("game_*.json"))]
    forfeits = sum(1 for g in games if g.get("forfeit_by"))
    illegal = sum(1 for g in games if "illegal" in str(g.get("reason", "")))
    stderr = {p.name: p.stat().st_size for p in sorted(folder.glob("engine-*.stderr.log"))}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = {
        "command": args.command,
        "date": datetime.datetime.fromtimestamp(log.stat().st_mtime, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "network": args.network,
        "machine": args.machine,
        "settings": settings,
        "pgn": f"{args.name}.pgn",
        "mean_plies": round(sum(g["plies"] for g in games) / max(len(games), 1), 2),
        "protocol_errors": f"{forfeits} forfeits, {illegal} illegal moves; stderr bytes {stderr}",
        **summary,
    }
    (RESULTS / f"{args.name}.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    (RESULTS / f"{args.name}.pgn").write_text((folder / "games.pgn").read_text(encoding="utf-8"), encoding="utf-8")
    print(f"{args.name}: {summary.get('a_wins')} wins, {summary.get('draws')} draws, {summary.get('b_wins')} losses")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
