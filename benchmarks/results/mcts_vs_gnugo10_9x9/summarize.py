"""Add up the shards of the MCTS-vs-GNU Go strength benchmark (run.sh) into summary.json.

    .venv/bin/python benchmarks/results/mcts_vs_gnugo10_9x9/summarize.py [--commit SHORT]

Reads every ``games/<commit>-<shard>/match.json`` (the match runner's
resumable record) and ``mcts_moves.jsonl`` (our engine's playouts per move),
and writes ``summary.json`` next to this script: games, wins by colour, the
win rate with its Wilson 95 % interval, and playouts per move (median,
quartiles, minimum). Only finished games count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from fuseki.util.stats import wilson_interval

HERE = Path(__file__).resolve().parent


def _games(shard: Path) -> list[dict]:
    """Finished games of one shard, read from its SGF files as the match runner does on resume.

    A (our engine) is Black in games 1, 3, 5, ...; the winner comes from RE.
    """
    from fuseki.go.sgf import SgfError, load_sgf
    from fuseki.go.sgf import parse_result

    out = []
    for path in sorted(shard.glob("game_*.sgf")):
        number = int(path.stem.split("_")[1])
        try:
            record = load_sgf(path)
            winner, _kind = parse_result(record.result)
        except (OSError, SgfError, ValueError):
            continue  # unfinished: the runner plays it again
        a_color = "black" if (number - 1) % 2 == 0 else "white"
        if winner is None:
            side = None
        else:
            side = "A" if winner.name.lower() == a_color else "B"
        out.append({"game": number, "a_color": a_color, "result": record.result, "winner": side,
                    "moves": len(record.moves)})
    return out


def summarize(commit: str | None) -> dict:
    rows: list[dict] = []
    playouts: list[int] = []
    shards = []
    for shard in sorted((HERE / "games").glob("*-*")):
        if commit and not shard.name.startswith(commit):
            continue
        games = _games(shard)
        rows += games
        shards.append({"shard": shard.name, "games": len(games)})
        log = shard / "mcts_moves.jsonl"
        if log.exists():
            for line in log.read_text().splitlines():
                try:
                    playouts.append(int(json.loads(line)["playouts"]))
                except (ValueError, KeyError):
                    continue
    n = len(rows)
    wins = sum(1 for g in rows if g.get("winner") == "A")
    draws = sum(1 for g in rows if g.get("winner") is None)
    as_black = [g for g in rows if g.get("a_color") == "black"]
    as_white = [g for g in rows if g.get("a_color") == "white"]
    lo, hi = wilson_interval(wins + 0.5 * draws, n)
    q = statistics.quantiles(playouts, n=4) if len(playouts) >= 4 else [None, None, None]
    return {
        "engine": "fuseki gtp --bot mcts --seconds 5",
        "opponent": "gnugo --mode gtp --level 10 (GNU Go 3.8)",
        "board": "9x9, komi 7.5, chinese rules, colours alternating, GNU Go as referee",
        "commit": commit,
        "shards": shards,
        "games": n,
        "wins": wins,
        "draws": draws,
        "wins_as_black": sum(1 for g in as_black if g.get("winner") == "A"),
        "games_as_black": len(as_black),
        "wins_as_white": sum(1 for g in as_white if g.get("winner") == "A"),
        "games_as_white": len(as_white),
        "by_resignation": sum(1 for g in rows if str(g.get("result", "")).endswith("+R")),
        "win_rate": round((wins + 0.5 * draws) / n, 4) if n else None,
        "ci95": [round(lo, 4), round(hi, 4)],
        "playouts_per_move": {
            "moves": len(playouts),
            "median": statistics.median(playouts) if playouts else None,
            "quartiles": q,
            "min": min(playouts) if playouts else None,
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default=None, help="only shards of this commit (short hash prefix)")
    args = parser.parse_args()
    data = summarize(args.commit)
    tmp = HERE / "summary.json.tmp"
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, HERE / "summary.json")
    print(json.dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
