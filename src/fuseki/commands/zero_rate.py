"""``fuseki zero rate RUN_DIR --anchors random,mcts:1000,gnugo:1 --games K``: an Elo curve against fixed anchors.

Every generation's network (as ``--bot zero``) plays K games against each
anchor, and the anchors play each other; Bradley-Terry puts them all on one
Elo scale (the first anchor 0). Finished games are kept in
``RUN_DIR/rate/`` and never played again, so the command resumes and later
generations add only their own games. Writes ``RUN_DIR/rate/ratings.json``
and ``RUN_DIR/rate/elo.png``. See :mod:`fuseki.zero.rate`.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from fuseki.cli import UserError, add_progress_argument, int_at_least, positive_float, progress_mode

HELP = "Elo of every generation of a Go run against fixed anchors (random, MCTS, GNU Go), resumable"
DESCRIPTION = (
    "Rate the generations of a `fuseki zero train go` run against fixed anchors: K games per generation and anchor "
    "(and between anchors), Bradley-Terry Elo with 95 %% intervals, RUN_DIR/rate/ratings.json and elo.png"
)


def _generations(text: str) -> list[int]:
    try:
        out = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"generations are numbers separated by commas, got {text!r}") from None
    if not out or out[0] < 0:
        raise argparse.ArgumentTypeError(f"generations are numbers of 0 or more, got {text!r}")
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder of `fuseki zero train go`")
    p.add_argument(
        "--anchors",
        default=None,
        help="comma-separated short names: random, mcts:N (N playouts), gnugo:L (GNU Go level L); e.g. random,mcts:1000,gnugo:1",
    )
    p.add_argument("--anchor", action="append", default=[], metavar="SPEC", help="an anchor as an arena agent spec (repeatable)")
    p.add_argument("--games", type=int_at_least(1), required=True, help="games of each generation against each anchor")
    p.add_argument("--anchor-games", type=int_at_least(0), default=None, help="games between two anchors (default --games)")
    p.add_argument("--generations", type=_generations, default=None, help="which generations, e.g. 0,5,10 (default all)")
    p.add_argument("--every", type=int_at_least(1), default=None, help="every Nth generation (and the last)")
    p.add_argument("--simulations", type=int_at_least(1), default=200, help="the Zero agent's simulations a move (default 200)")
    p.add_argument(
        "--temperature-moves",
        type=int_at_least(0),
        default=4,
        help="the Zero agent's first moves drawn by visit counts, so games differ (default 4)",
    )
    p.add_argument("--seed", type=int, default=0, help="the games' seeds derive from it (default 0)")
    p.add_argument("--move-time", type=positive_float, default=10.0, help="a GTP anchor's limit a move, seconds (default 10)")
    p.add_argument("--workers", type=int_at_least(1), default=1, help="game processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the ratings as one line of JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_progress_argument(p)


def run(args: argparse.Namespace) -> int:
    # Imported here: the arena and torch load only when a rating starts, not for --help or a bad flag.
    from pathlib import Path

    from fuseki.util.progress import open_renderer, print_json
    from fuseki.zero.rate import available_generations, parse_anchors, run_rate

    anchors = parse_anchors(args.anchors, args.anchor)
    generations = args.generations
    if args.every is not None:
        if generations is not None:
            raise UserError("give --generations or --every, not both")
        have = available_generations(Path(args.run_dir))
        generations = sorted({g for g in have if g % args.every == 0} | set(have[-1:]))
    command = "fuseki " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["zero"] else None
    with open_renderer(progress_mode(args)) as progress:
        result = run_rate(
            args.run_dir,
            anchors,
            args.games,
            generations=generations,
            anchor_games=args.anchor_games,
            simulations=args.simulations,
            temperature_moves=args.temperature_moves,
            seed=args.seed,
            move_time=args.move_time,
            workers=args.workers,
            progress=progress,
            command=command,
        )
    if args.json:
        print_json(result)
        return 0
    print(f"{args.run_dir}: Elo against fixed anchors ({anchors[0].name} = 0), {args.games} games a pair")
    for a in result["anchors"]:
        print(f"  anchor {a['name']:<14} {a['elo']:+7.0f}  ({a['ci95'][0]:+.0f} to {a['ci95'][1]:+.0f})")
    for g in result["generations"]:
        print(f"  generation {g['generation']:<10} {g['elo']:+7.0f}  ({g['ci95'][0]:+.0f} to {g['ci95'][1]:+.0f})")
    print(f"ratings: {Path(args.run_dir) / 'rate' / 'ratings.json'}, picture: {Path(args.run_dir) / 'rate' / 'elo.png'}")
    return 0
