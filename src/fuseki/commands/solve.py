"""Solve a small game exactly with each search and compare their effort.

::

    fuseki solve tictactoe            # the book's ch. 4: a draw
    fuseki solve hexapawn --json      # Klein's ch. 5: a win for the second player

Every search runs from the starting position to the end of the game:
minimax, negamax, alpha-beta, and alpha-beta with a transposition table. The
table shows each one's value for the first player, its best first move, the
positions it created, and its time; the game tree's size (positions and
finished games) is counted once by plain enumeration. See ``docs/search.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from fuseki.cli import UserError
from fuseki.util.progress import print_json

GAMES = ("tictactoe", "hexapawn")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES, help="the game to solve")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")


def tree_size(state: Any) -> tuple[int, int]:
    """(positions below the root, finished games) of the full game tree, by enumeration."""
    positions = 0
    games = 0
    stack = [state]
    while stack:
        s = stack.pop()
        if s.is_over():
            games += 1
            continue
        for m in s.legal_moves():
            positions += 1
            stack.append(s.play(m))
    return positions, games


def solve(name: str) -> dict[str, Any]:
    """Run every exact search on game ``name``; return the numbers."""
    from fuseki.games import make_game
    from fuseki.search import alphabeta, minimax, negamax

    root = make_game(name).initial_state()
    runs: list[dict[str, Any]] = []
    searches = (
        ("minimax", lambda: minimax(root)),
        ("negamax", lambda: negamax(root)),
        ("alphabeta", lambda: alphabeta(root)),
        ("alphabeta+tt", lambda: alphabeta(root, tt=True)),
    )
    for label, run in searches:
        t0 = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - t0
        runs.append(
            {
                "search": label,
                "value": result.value,  # for the player to move at the root: the first player
                "move": str(result.move),
                "nodes": result.nodes,
                "seconds": round(seconds, 3),
            }
        )
    t0 = time.perf_counter()
    positions, games = tree_size(root)
    return {
        "game": name,
        "tree_positions": positions,
        "finished_games": games,
        "enumeration_seconds": round(time.perf_counter() - t0, 3),
        "searches": runs,
    }


def _verdict(value: float) -> str:
    if value > 0:
        return "a win for the first player"
    if value < 0:
        return "a win for the second player"
    return "a draw"


def run(args: argparse.Namespace) -> int:
    try:
        data = solve(args.game)
    except RecursionError:  # cannot happen for these games; a clear line if it ever does
        raise UserError(f"{args.game}: the game tree is too deep for the recursive searches") from None
    out = sys.stdout
    print(
        f"{args.game}: {data['tree_positions']:,} positions in the full game tree, "
        f"{data['finished_games']:,} finished games",
        file=out,
    )
    print(f"{'search':14s} {'value':>6s} {'first move':>11s} {'positions':>10s} {'seconds':>8s}", file=out)
    for r in data["searches"]:
        print(f"{r['search']:14s} {r['value']:>6g} {r['move']:>11s} {r['nodes']:>10,} {r['seconds']:>8.2f}", file=out)
    values = {r["value"] for r in data["searches"]}
    if len(values) != 1:  # would be a bug: every search here is exact
        raise UserError(f"the searches disagree on the value: {sorted(values)}")
    print(f"Value: {_verdict(values.pop())} with best play.", file=out)
    if args.json:
        print_json(data, file=out)
    return 0
