"""Play a match between two UCI chess engines: openings, PGN, adjudication, forfeits, an Elo estimate, resume.

::

    fuseki chess-match "fuseki uci --model runs/chess/gen-0010.safetensors" stockfish \\
        --option-b "Skill Level=0" --games 20 --movetime 0.5 --out matches/fz-sf0

A is White in games 1, 3, 5, ... and Black in the others; each pair of games
starts from one opening of the shipped balanced set (or ``--openings FILE``).
One line per game goes to stderr; the last lines give A's score with its 95 %
interval and the Elo difference with its interval (``--json``: one JSON line).
Running the same command again plays only the missing games; a larger
``--games`` extends the match. ``--concurrency N`` plays N games at a time,
each with its own two engine processes (cutechess-cli's ``-concurrency``);
the games are the same whatever N is, and a match may resume at another N.
See docs/chess-zero.md and :mod:`fuseki.chess.match`.
"""

from __future__ import annotations

import argparse
import sys

from fuseki.cli import UserError, int_at_least, seconds


def _option(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f'{text!r} is not NAME=VALUE (e.g. "Skill Level=0")')
    return name.strip(), value.strip()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("engine_a", metavar="CMD_A", help='engine A as one command line, e.g. "fuseki uci --model net.safetensors"')
    parser.add_argument("engine_b", metavar="CMD_B", help='engine B, e.g. "stockfish" (found in /usr/games too)')
    parser.add_argument("--out", required=True, metavar="DIR", help="the run folder: game_NNNN.pgn/.json, games.pgn, match.json")
    parser.add_argument("--games", type=int_at_least(1), default=2, help="games in all, counting finished ones (default 2)")
    parser.add_argument(
        "--concurrency",
        type=int_at_least(1),
        default=1,
        metavar="N",
        help="games played at once, each with its own pair of engines (default 1; not a setting: a match may resume at another N)",
    )
    limits = parser.add_argument_group("limits (a move time or a clock for both, and/or nodes or depth per engine)")
    limits.add_argument("--movetime", type=seconds, default=None, metavar="S", help="seconds a move for both engines")
    limits.add_argument("--tc", default=None, metavar="BASE+INC", help="a clock for both, e.g. 60+0.6 (seconds); time losses count")
    for side in ("a", "b"):
        limits.add_argument(
            f"--nodes-{side}", type=int_at_least(1), default=None, metavar="N", help=f"nodes a move for engine {side.upper()}"
        )
        limits.add_argument(
            f"--depth-{side}", type=int_at_least(1), default=None, metavar="D", help=f"depth a move for engine {side.upper()}"
        )
    for side in ("a", "b"):
        parser.add_argument(
            f"--option-{side}",
            type=_option,
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f'a UCI option for engine {side.upper()} (repeat for more), e.g. "Skill Level=0"',
        )
    parser.add_argument("--openings", default="builtin", metavar="FILE", help="openings: 'builtin' (41 balanced, default) or a file")
    parser.add_argument("--seed", type=int, default=0, help="the order of the openings (default 0)")
    parser.add_argument(
        "--grace", type=float, default=2.0, metavar="S", help="seconds past its time before a silent engine forfeits (default 2)"
    )
    parser.add_argument(
        "--move-timeout", type=seconds, default=120.0, metavar="S", help="longest move under nodes or depth limits only (default 120)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as one line of JSON at the end")
    parser.add_argument("--quiet", action="store_true", help="no line per game")


def run(args: argparse.Namespace) -> int:
    from fuseki.chess.match import ChessMatch, ChessMatchSettings, GameRecord, MatchResult
    from fuseki.util.progress import print_json

    try:
        settings = ChessMatchSettings(
            engine_a=args.engine_a,
            engine_b=args.engine_b,
            options_a=dict(args.option_a),
            options_b=dict(args.option_b),
            movetime=args.movetime,
            tc=args.tc,
            nodes_a=args.nodes_a,
            nodes_b=args.nodes_b,
            depth_a=args.depth_a,
            depth_b=args.depth_b,
            openings=args.openings,
            seed=args.seed,
            grace=args.grace,
            move_timeout=args.move_timeout,
        )
        match = ChessMatch(settings, args.out)
    except ValueError as e:
        raise UserError(str(e)) from None

    def say(record: GameRecord, so_far: MatchResult) -> None:
        if args.quiet:
            return
        names = so_far.names
        white = names[record.white]
        black = names["B" if record.white == "A" else "A"]
        print(
            f"game {record.index}: {white} - {black} {record.result} ({record.reason}, {record.plies} plies, {record.opening}); "
            f"A {so_far.a_wins + 0.5 * so_far.draws:g}/{so_far.games}",
            file=sys.stderr,
            flush=True,
        )

    result = match.run(args.games, on_game=say, concurrency=args.concurrency)
    for line in result.lines():
        print(line)
    if args.json:
        print_json({"out": str(args.out), **result.to_dict()})
    return 0
