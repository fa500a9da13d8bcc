"""Check the rules engine against GNU Go, move by move, over random games.

``fuseki verify --games 200 --sizes 5,9,13,19 --seed 1`` plays random games in
our engine and in GNU Go at once and compares the stones and the legal moves
at every position (see :mod:`fuseki.gtp.differential`). It prints one line of
progress per board size, then the number of games that agreed and each
disagreement with a move list that reproduces it. Exit status 0 when every
game agreed, 1 when any disagreed, 2 for a usage error (no GNU Go, bad sizes).
"""

from __future__ import annotations

import argparse
import json
import sys

from fuseki.cli import UserError, int_at_least


def _sizes(text: str) -> list[int]:
    """``"5,9,13"`` -> ``[5, 9, 13]``, for argparse."""
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of board sizes") from None
    if not sizes:
        raise argparse.ArgumentTypeError("no board sizes given")
    return sizes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int_at_least(1), default=200, help="number of games in all (default 200)")
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=[5, 9, 13, 19],
        help="board sizes, comma-separated; games are split 1/area, most on the smallest (default 5,9,13,19)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed; game i uses (seed, i) (default 1)")
    parser.add_argument("--gnugo", metavar="PATH", default=None, help="GNU Go binary (default: gnugo on PATH, else /usr/games/gnugo)")
    parser.add_argument(
        "--rules",
        default="gnugo",
        help="our rule preset to check; GNU Go gets the matching options (default gnugo: simple ko, no suicide)",
    )
    parser.add_argument("--max-plies", type=int_at_least(1), default=None, help="cap on moves per game (default 2 x area)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON holding the result")


def run(args: argparse.Namespace) -> int:
    from fuseki.go.rules import PRESETS
    from fuseki.engines.gtp_client import GtpClientError
    from fuseki.gtp.differential import (
        DifferentialReport,
        GameResult,
        check_sizes,
        find_gnugo,
        games_per_size,
        run_differential,
    )

    if args.rules.lower() not in PRESETS:
        raise UserError(f"unknown rules {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    check_sizes(args.sizes)  # ValueError: reported by the CLI frame as one line
    try:
        gnugo = find_gnugo(args.gnugo)
    except FileNotFoundError as e:
        raise UserError(str(e)) from None
    plan = games_per_size(args.games, args.sizes)
    # Progress goes to stderr so that stdout holds only the result (and, with --json, ends with it).
    print(
        f"verifying against {gnugo}: {args.games} games ("
        + ", ".join(f"{n}x{n}: {g}" for n, g in plan.items() if g)
        + f"), seed {args.seed}",
        file=sys.stderr,
        flush=True,
    )
    done_per_size: dict[int, int] = {}

    def progress(result: GameResult, report: DifferentialReport) -> None:
        done_per_size[result.size] = done_per_size.get(result.size, 0) + 1
        if result.disagreement is not None:
            print(f"  game {result.game} ({result.size}x{result.size}): {result.disagreement.kind} differ", file=sys.stderr)
        if done_per_size[result.size] == plan[result.size]:
            print(
                f"  {result.size}x{result.size}: {report.games}/{args.games} games done, "
                f"{report.agreed} agreed so far, {report.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )

    try:
        report = run_differential(
            args.games, args.sizes, args.seed, gnugo, max_plies=args.max_plies, rules=args.rules.lower(), progress=progress
        )
    except GtpClientError as e:
        raise UserError(f"GNU Go failed: {e}") from None
    for d in report.disagreements:
        print(d.describe())
        print()
    print(report.summary())
    if args.json:
        print(json.dumps(report.to_dict()))
    return 0 if report.ok else 1
