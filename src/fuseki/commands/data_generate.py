"""``fuseki data generate``: a corpus of self-play games, made offline.

``fuseki data generate --engine gnugo --games 5000 --size 9 --out corpus/gnugo9
--levels 1-10 --random-opening 6 --workers 2`` has GNU Go play itself at mixed
levels after a short random opening; ``--engine mcts --playouts 1000`` has our
MCTS play itself, as in the book's chapter 6. One SGF per game and a
``recipe.json`` go to ``--out``; running the same command again continues a
killed run. One line per game on stderr (``--progress``). See docs/corpus.md.
"""

from __future__ import annotations

import argparse

from fuseki.cli import UserError, add_clock_argument, add_progress_argument, int_at_least, progress_mode, seconds


def _levels(text: str) -> tuple[int, ...]:
    from fuseki.arena.generate import parse_levels

    try:
        return parse_levels(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


_seconds = seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=("gnugo", "mcts"), required=True, help="who plays itself")
    parser.add_argument("--games", type=int_at_least(0), required=True, help="number of games in the corpus")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--out", metavar="DIR", required=True, help="folder for the SGF files and recipe.json")
    parser.add_argument(
        "--workers", type=int_at_least(1), default=1, help="worker processes, each with its own engines (default 1)"
    )
    parser.add_argument(
        "--levels",
        type=_levels,
        default=None,
        help="GNU Go levels to draw Black's and White's from, e.g. 1-10 or 1,5,10 (default 1-10)",
    )
    parser.add_argument(
        "--random-opening",
        type=int_at_least(0),
        default=0,
        metavar="K",
        help="start each game with 0 to K random moves, off the first line (default 0)",
    )
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--playouts", type=int_at_least(1), default=None, help="MCTS playouts per move (mcts only; default 1000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed; game n's seed derives from it (default 0)")
    parser.add_argument(
        "--max-moves", type=int_at_least(1), default=None, help="stop and score a game after this many moves (default 3 x area)"
    )
    parser.add_argument("--rules", default="chinese", help="rule preset for legality and scoring (default chinese)")
    parser.add_argument(
        "--move-time", type=_seconds, default=60.0, help="seconds before a GNU Go genmove counts as hung (default 60)"
    )
    add_clock_argument(parser, "GNU Go (gnugo only)")
    parser.add_argument("--gnugo", default="gnugo", metavar="PROGRAM", help="GNU Go's program (default gnugo)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON holding the tally")
    add_progress_argument(parser)


def run(args: argparse.Namespace) -> int:
    from fuseki.arena.generate import GenerateSettings, generate
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    if args.engine == "mcts" and args.levels is not None:
        raise UserError("--levels is for --engine gnugo; our MCTS is set by --playouts")
    if args.engine == "mcts" and args.clock:
        raise UserError("--clock is for --engine gnugo; our MCTS is set by --playouts")
    if args.engine == "gnugo" and args.playouts is not None:
        raise UserError("--playouts is for --engine mcts; GNU Go is set by --levels")
    try:
        settings = GenerateSettings(
            engine=args.engine,
            size=args.size,
            komi=args.komi,
            levels=args.levels if args.levels is not None else tuple(range(1, 11)),
            random_opening=args.random_opening,
            playouts=args.playouts if args.playouts is not None else 1000,
            seed=args.seed,
            max_moves=args.max_moves,
            move_time=args.move_time,
            rules=args.rules.lower(),
            gnugo=args.gnugo,
            clock=args.clock,
        )
        with open_renderer(progress_mode(args)) as show:
            summary = generate(settings, args.out, args.games, workers=args.workers, progress=show)
    except (RunMismatch, RunFolderBusy, FileNotFoundError, ValueError) as e:
        raise UserError(str(e)) from None
    print(summary.describe())
    if args.json:
        print_json(summary.to_dict())
    return 0 if summary.failed == 0 else 1
