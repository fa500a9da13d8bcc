"""Let an agent play itself and record experience for reinforcement learning (book ch. 9-12).

::

    fuseki selfplay --agent FILE [--agent2 FILE] --games N --out DIR [--workers W]
        [--seed S] [--temperature T] [--chunk-size C] [--max-moves M] [--komi K]
        [--rules NAME] [--sgf] [--json] [--quiet] [--progress MODE]

The agent file is a policy (supervised or policy gradient), Q or
actor-critic agent. Games are played in W processes and written in chunks
(DIR/chunks/); a killed run is continued by running the same command again,
and DIR/experience.npz holds the merged experience at the end, ready for
``fuseki train pg|q|ac DIR/experience.npz``. Progress (games per minute,
time left) goes to stderr. See docs/rl.md.
"""

from __future__ import annotations

import argparse
import math

from fuseki.cli import UserError, add_progress_argument, float_type, int_at_least, komi, progress_mode


_temperature = float_type(
    lambda v: math.isfinite(v) and 0 <= v <= 1, "must be from 0 to 1 (the chance of a random move)"
)


_komi = komi


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", required=True, metavar="FILE", help="the learning agent's file (or a models name)")
    parser.add_argument(
        "--agent2", metavar="FILE", default=None,
        help="a fixed opponent instead of self-play; the learner alternates colours and only its moves are recorded",
    )
    parser.add_argument("--games", required=True, type=int_at_least(1), help="games in all, counting finished ones")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder (chunks, experience.npz, sgf/)")
    parser.add_argument("--workers", type=int_at_least(1), default=1, help="parallel processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="game n is decided by (seed, n) alone (default 0)")
    parser.add_argument(
        "--temperature", type=_temperature, default=None,
        help="the book's exploration temperature: the chance of a uniformly random move "
        "(default 0 for policy and actor-critic agents, 0.5 for Q agents)",
    )
    parser.add_argument("--chunk-size", type=int_at_least(1), default=100, help="games per experience chunk (default 100)")
    parser.add_argument(
        "--max-moves", type=int_at_least(1), default=None,
        help="stop a game here and score it as it stands (default 3 x the board's area)",
    )
    parser.add_argument("--komi", type=_komi, default=None, help="default: the rule set's (7.5)")
    parser.add_argument("--rules", default="chinese", help="rule set: chinese, tromp-taylor, book, ... (default chinese)")
    parser.add_argument("--sgf", action="store_true", help="also write DIR/sgf/game_NNNNNN.sgf")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")
    add_progress_argument(parser)


def run(args: argparse.Namespace) -> int:
    from fuseki.train.selfplay import SelfPlaySettings, selfplay
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    try:
        settings = SelfPlaySettings(
            agent=args.agent,
            agent2=args.agent2,
            seed=args.seed,
            temperature=args.temperature,
            chunk_size=args.chunk_size,
            max_moves=args.max_moves,
            komi=args.komi,
            rules=args.rules.lower(),
        )
        with open_renderer(progress_mode(args)) as show:
            summary = selfplay(settings, args.out, args.games, workers=args.workers, sgf=args.sgf, progress=show)
    except (RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    if args.json:
        print_json(summary.to_dict(), sort_keys=True)
    else:
        print(summary.describe())
    return 0
