"""``fuseki data stats SOURCES``: what a collection of SGF games holds.

::

    fuseki data stats corpus/gnugo9            # a generated corpus: also how long it took
    fuseki data stats kgs/ my_games.zip --json # any folders, SGF files and archives

Games, readable and bad files, board sizes, moves per game, winners and how
games ended, players, games filed twice, bytes. See :mod:`fuseki.data.stats`.
"""

from __future__ import annotations

import argparse
import json
import sys

from fuseki.cli import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="folders, SGF files, zip or tar archives")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")


def _minutes(seconds: float) -> str:
    h, rest = divmod(int(round(seconds)), 3600)
    return f"{h} h {rest // 60} min" if h else f"{rest // 60} min {rest % 60} s"


def run(args: argparse.Namespace) -> int:
    from fuseki.data.sources import SourceError
    from fuseki.data.stats import corpus_stats

    try:
        s = corpus_stats(args.sources)
    except SourceError as e:
        raise UserError(str(e)) from None
    if s["games"] == 0:
        raise UserError(f"no SGF games in {', '.join(args.sources)}")
    m = s["moves"]
    lines = [f"games       {s['games']} ({s['readable']} readable, {s['bad']} bad)"]
    lines += [f"  bad: {n} {reason}" for reason, n in s["bad_reasons"].items()]
    if s["readable"]:
        sizes = ", ".join(f"{k}×{k}: {v}" for k, v in s["board_sizes"].items())
        lines += [
            f"boards      {sizes}",
            f"moves       {m['mean']} a game on average, median {m['median']}, {m['min']}–{m['max']}",
            "winners     " + ", ".join(f"{k if k != '-' else 'none'} {v}" for k, v in s["winners"].items()),
            "ended by    " + ", ".join(f"{k} {v}" for k, v in s["decided_by"].items()),
            f"handicap    {s['handicap_games']} games",
            f"distinct    {s['distinct_games']}; repeats of an earlier game's moves: {s['repeats']}",
        ]
        if s["players"]:
            lines.append("players     games   wins  win rate")
            lines += [
                f"{v['games']:>17} {v['wins']:>6} {100 * v['win_rate']:7.1f} %  {k}" for k, v in s["players"].items()
            ]
    lines.append(f"bytes       {s['bytes']:,} ({s['bytes_per_game']} a game)")
    for g in s.get("generated", []):
        rate = f", {60 * g['played'] / g['seconds']:.1f} games a minute" if g["seconds"] else ""
        lines.append(
            f"made in     {_minutes(g['seconds'])} over {g['runs']} recorded runs ({g['unfinished_runs']} killed "
            f"or running), {g['played']} games played{rate}"
        )
    print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(s))
    return 0
