"""What a collection of game records holds: ``fuseki data stats SOURCES``.

Before training on a corpus (downloaded, your own, or made by ``fuseki data
generate``) one wants to know what is in it: how many games can be read,
on which boards, how long they are, who wins and how, who played, how many
are the same game filed twice (:func:`fuseki.data.processor.game_fingerprint`),
and, for a generated corpus, how long it took to make. This is what
docs/corpus.md reports for the 9×9 GNU Go corpus.

>>> import tempfile, pathlib
>>> from fuseki.go import GameState, game_to_sgf
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.sgf").write_bytes(game_to_sgf(GameState.new(9).apply_moves([(4, 4), (2, 2)])))
>>> _ = (d / "b.sgf").write_bytes(b"(;SZ[9];B[zz])")
>>> s = corpus_stats([d])
>>> s["games"], s["readable"], s["bad"], s["moves"]["mean"]
(2, 1, 1, 2.0)
"""

from __future__ import annotations

import json
import os
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from fuseki.data.processor import SkipGame, game_fingerprint, read_game
from fuseki.data.sources import DEFAULT_MAX_BYTES, iter_games
from fuseki.go.sgf import parse_result

__all__ = ["corpus_stats", "recipe_time"]


def _how(result: str) -> tuple[str, str]:
    """``(winner, how)``: winner ``B``, ``W`` or ``-``; how as :func:`fuseki.go.sgf.parse_result`
    says (``score``, ``resign``, ``time``, ``forfeit``, ``draw``), else ``none`` or ``other``."""
    try:
        winner, how = parse_result(result)
    except ValueError:
        return "-", "none" if not result else "other"
    return (winner.letter if winner is not None else "-"), how


#: The file in which ``fuseki data generate`` records how a corpus was made (read here, written by
#: :mod:`fuseki.arena.generate`, which plays the games and so sits above this layer).
RECIPE_FILE = "recipe.json"


def recipe_time(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The runs a ``fuseki data generate`` folder records in its ``recipe.json`` (None if it has none)."""
    path = Path(folder) / RECIPE_FILE
    try:
        recipe = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    runs = [r for r in recipe.get("runs", []) if isinstance(r, dict)]
    return {
        "command": recipe.get("command"),
        "runs": len(runs),
        "unfinished_runs": sum(1 for r in runs if not r.get("finished")),
        "played": sum(int(r.get("played") or 0) for r in runs),
        "seconds": round(sum(float(r.get("seconds") or 0.0) for r in runs), 1),
    }


def corpus_stats(
    sources: list[str | os.PathLike[str]], *, max_bytes: int | None = DEFAULT_MAX_BYTES, top: int = 12
) -> dict[str, Any]:
    """Counts over every game in ``sources`` (folders, SGF files, zip and tar archives).

    ``top`` limits the lists of player names (the most frequent, each with
    its games, wins and win rate) and of bad-file reasons.
    """
    games = readable = 0
    total_bytes = 0
    bad: Counter[str] = Counter()
    sizes: Counter[int] = Counter()
    moves: list[int] = []
    winners: Counter[str] = Counter()
    hows: Counter[str] = Counter()
    players: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    handicap = 0
    seen: Counter[str] = Counter()
    for _game_id, data in iter_games(sources, max_bytes=max_bytes):
        games += 1
        total_bytes += len(data)
        try:
            record = read_game(data)
        except SkipGame as e:
            bad[e.reason.split(":")[0]] += 1
            continue
        readable += 1
        sizes[record.size] += 1
        moves.append(len(record.moves))
        winner, how = _how(record.result)
        winners[winner] += 1
        hows[how] += 1
        players.update(p for p in (record.black, record.white) if p)
        if winner in "BW" and (name := record.black if winner == "B" else record.white):
            wins[name] += 1
        handicap += record.handicap > 0 or bool(record.setup_black)
        seen[game_fingerprint(record)] += 1
    out: dict[str, Any] = {
        "sources": [str(s) for s in sources],
        "games": games,
        "readable": readable,
        "bad": games - readable,
        "bad_reasons": dict(bad.most_common(top)),
        "board_sizes": {str(k): v for k, v in sorted(sizes.items())},
        "moves": {
            "mean": round(statistics.fmean(moves), 1) if moves else None,
            "median": statistics.median(moves) if moves else None,
            "min": min(moves, default=None),
            "max": max(moves, default=None),
        },
        "winners": {k: winners[k] for k in ("B", "W", "-") if winners[k]},
        "decided_by": dict(hows.most_common()),
        "handicap_games": handicap,
        "distinct_games": len(seen),
        "repeats": sum(n - 1 for n in seen.values()),
        "players": {
            name: {"games": n, "wins": wins[name], "win_rate": round(wins[name] / n, 3)}
            for name, n in players.most_common(top)
        },
        "bytes": total_bytes,
        "bytes_per_game": round(total_bytes / games, 1) if games else None,
    }
    made = [recipe_time(s) for s in sources if Path(s).is_dir()]
    if any(made):
        out["generated"] = [m for m in made if m]
    return out
