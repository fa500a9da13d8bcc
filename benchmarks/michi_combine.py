"""One figure from several halves of a `benchmarks/michi.py` match, with each game's playouts.

A long match against michi-c is played as halves (another ``--seed`` each, one
core each) so that it finishes in fewer sessions; the issue's figure is the
whole. This reads each half's result file and its match folder (the SGF
files and the ``fuseki_moves.jsonl`` log that ``fuseki gtp --log`` wrote) and
writes one result:

- fuseki's wins, losses and draws over all games, the Wilson 95 % interval,
  the two-sided binomial p-value against an even match, wins as Black and as
  White, forfeits (from the halves' files);
- **distinct games** over all halves: two games are the same when their move
  sequences are (a replay would mean the per-game seeds failed);
- **fuseki's playouts in each game**: the log has one line per fuseki move
  and no game number, so its lines are split into games where the move
  number starts again and each piece is matched to the SGF whose fuseki
  moves it played (a game cut by a kill leaves a piece that matches none;
  it is counted and left out). Each game gets the median playouts of
  fuseki's first ``--opening`` moves. A time budget is only as good as the
  CPU the engine got: games whose median is below ``--contended`` times the
  median over all games are reported apart, as played beside other work,
  with the figure for the rest (michi-c's budget is a number of
  simulations, so only fuseki loses strength to contention).

Usage::

    python benchmarks/michi_combine.py benchmarks/results/michi_9x9/7cb9bc1-sec5-seed0.json \\
        benchmarks/results/michi_9x9/7cb9bc1-sec5-seed1.json --out benchmarks/results/michi_9x9/7cb9bc1-sec5.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from fuseki.go.sgf import load_sgf  # noqa: E402
from fuseki.util.stats import binomial_test, wilson_interval  # noqa: E402

FUSEKI = "fuseki"


def game_records(folder: Path) -> list[dict[str, Any]]:
    """Each SGF of a match folder: its number, fuseki's colour, whether fuseki won, its moves as GTP vertices."""
    out = []
    for path in sorted(folder.glob("game_*.sgf")):
        record = load_sgf(path)
        if record.black.startswith(FUSEKI):
            colour = "B"
        elif record.white.startswith(FUSEKI):
            colour = "W"
        else:
            raise SystemExit(f"michi_combine: {path}: neither player is fuseki ({record.black!r}, {record.white!r})")
        moves = [(m.color.letter, m.move.gtp(record.size)) for m in record.moves]
        winner = record.result[:1].upper()
        out.append(
            {
                "file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
                "colour": colour,
                "result": record.result,
                "won": winner == colour,
                "lost": winner in ("B", "W") and winner != colour,
                "moves": moves,
                "fuseki_moves": [v for c, v in moves if c == colour],
            }
        )
    return out


def log_pieces(path: Path) -> list[list[dict[str, Any]]]:
    """The moves log split into games: a new piece wherever the move number does not grow."""
    pieces: list[list[dict[str, Any]]] = []
    last = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        number = int(entry["move_number"])
        if last is None or number <= last:
            pieces.append([])
        pieces[-1].append(entry)
        last = number
    return pieces


def attach_playouts(games: list[dict[str, Any]], pieces: list[list[dict[str, Any]]], opening: int) -> int:
    """Give each game the playouts of the log piece that played its fuseki moves; the unmatched pieces' count."""
    by_moves: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for game in games:
        by_moves.setdefault(tuple(v.upper() for v in game["fuseki_moves"]), []).append(game)
    unmatched = 0
    for piece in pieces:
        # A resignation is a line of the log and no move of the SGF.
        key = tuple(str(e["move"]).upper() for e in piece if str(e["move"]).lower() != "resign")
        candidates = [g for g in by_moves.get(key, []) if "playouts" not in g]
        if not candidates:
            unmatched += 1
            continue
        game = candidates[0]
        game["playouts"] = [int(e["playouts"]) for e in piece]
        game["opening_median"] = statistics.median(game["playouts"][:opening])
    return unmatched


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins, the interval and the p-value of a list of games."""
    n = len(games)
    wins = sum(g["won"] for g in games)
    losses = sum(g["lost"] for g in games)
    low, high = wilson_interval(wins, n) if n else (0.0, 0.0)
    return {
        "games": n,
        "wins": wins,
        "losses": losses,
        "draws": n - wins - losses,
        "win_rate": wins / n if n else None,
        "ci95": [low, high],
        "p_even": binomial_test(wins, n) if n else None,
        "wins_as_black": sum(g["won"] and g["colour"] == "B" for g in games),
        "wins_as_white": sum(g["won"] and g["colour"] == "W" for g in games),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, nargs="+", help="the halves' result files (benchmarks/michi.py --out)")
    parser.add_argument("--out", type=Path, required=True, help="the combined result file")
    parser.add_argument("--opening", type=int, default=15, help="fuseki moves whose playouts' median rates a game")
    parser.add_argument(
        "--contended", type=float, default=0.75, help="a game below this share of the overall median is contended"
    )
    args = parser.parse_args(argv)
    halves = []
    games: list[dict[str, Any]] = []
    unmatched = 0
    for path in args.results:
        try:
            half = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            parser.error(f"{path}: {e}")
        folder = Path(half["sgf_dir"])
        folder = folder if folder.is_absolute() else ROOT / folder
        mine = game_records(folder)
        if len(mine) != half["games"]:
            parser.error(f"{path}: says {half['games']} games, its folder {folder} holds {len(mine)}")
        if sum(g["won"] for g in mine) != half["wins"]:
            parser.error(f"{path}: says {half['wins']} wins, its SGF files {sum(g['won'] for g in mine)}")
        log = folder / "fuseki_moves.jsonl"
        if log.exists():
            unmatched += attach_playouts(mine, log_pieces(log), args.opening)
        for g in mine:
            g["half"] = str(path)
        games += mine
        halves.append({k: half.get(k) for k in ("seed", "games", "wins", "ci95", "forfeits", "commit", "command")})
        halves[-1]["file"] = str(path)
    distinct = len({tuple(g["moves"]) for g in games})
    rated = [g for g in games if "opening_median" in g]
    overall = statistics.median(g["opening_median"] for g in rated) if rated else None
    cut = args.contended * overall if overall else None
    contended = [g for g in rated if cut is not None and g["opening_median"] < cut]
    clean = [g for g in rated if cut is not None and g["opening_median"] >= cut]
    first = json.loads(args.results[0].read_text(encoding="utf-8"))
    result = {
        "what": "fuseki mcts against michi-c, halves of one match combined (benchmarks/michi_combine.py)",
        "mode": first.get("mode"),
        "seconds": first.get("seconds"),
        "michi_sims": first.get("michi_sims"),
        "size": first.get("size"),
        "komi": first.get("komi"),
        "rules": first.get("rules"),
        **summary(games),
        "distinct_games": distinct,
        "forfeits": [h.get("forfeits") for h in halves],
        "fuseki_playouts": {
            "opening_moves": args.opening,
            "games_with_playouts": len(rated),
            "log_pieces_without_a_game": unmatched,
            "median_of_game_medians": overall,
            "game_medians_quartiles": statistics.quantiles([g["opening_median"] for g in rated], n=4) if len(rated) > 1 else None,
            "contended_below": cut,
        },
        "contended": summary(contended),
        "uncontended": summary(clean),
        "per_game": [
            {k: g.get(k) for k in ("file", "colour", "result", "won", "opening_median")} for g in games
        ],
        "halves": halves,
        "command": "python benchmarks/michi_combine.py " + " ".join(map(str, sys.argv[1:] if argv is None else argv)),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    tmp = args.out.with_suffix(args.out.suffix + ".tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    s = result
    print(
        f"{s['games']} games, fuseki won {s['wins']} ({s['win_rate']:.1%}, 95 % {s['ci95'][0]:.1%}-{s['ci95'][1]:.1%}), "
        f"{distinct} distinct; uncontended {s['uncontended']['wins']}/{s['uncontended']['games']}, "
        f"contended {s['contended']['wins']}/{s['contended']['games']} -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
