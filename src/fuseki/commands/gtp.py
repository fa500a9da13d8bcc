"""Run a bot as a GTP engine on stdin/stdout, for GoGui, Sabaki, gtp2ogs or a match.

::

    fuseki gtp --bot random --seed 1

Only GTP goes to standard output; anything else (warnings, tracebacks of a
failed command) goes to standard error. See ``docs/gtp.md``.
"""

from __future__ import annotations

import argparse
import io
import sys

from fuseki.cli import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bot", default="random", metavar="NAME", help="the agent that plays (default random)")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random seed, for reproducible play")
    parser.add_argument(
        "--rules",
        default="chinese",
        metavar="NAME",
        help="rule set: ko, suicide and scoring; komi comes from the controller (default chinese)",
    )
    parser.add_argument("--name", default="fuseki", help="the name the engine reports (default fuseki)")
    from fuseki.commands.play import add_search_arguments

    add_search_arguments(parser)
    parser.add_argument(
        "--resign-below",
        type=float,
        default=0.1,
        metavar="P",
        help="resign when the playout win estimate falls below P (default 0.1)",
    )
    parser.add_argument("--never-resign", action="store_true", help="never resign")
    parser.add_argument(
        "--no-pass-back",
        action="store_true",
        help="do not pass after the opponent's pass even when passing wins",
    )


def run(args: argparse.Namespace) -> int:
    from fuseki.commands.play import build_agent
    from fuseki.go.rules import PRESETS, Rules
    from fuseki.gtp.engine import GtpEngine

    if args.rules.lower() not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    if not args.name.strip() or any(not ch.isprintable() for ch in args.name):
        raise UserError("--name must be printable text on one line")
    if not 0.0 <= args.resign_below <= 1.0:
        raise UserError(f"--resign-below must be from 0 to 1, got {args.resign_below}")
    from fuseki.agents.termination import Terminating

    # Termination (spec B5): pass back when the opponent passed and passing
    # does not lose; resign below a win estimate. Controllers such as KGS
    # and gtp2ogs expect an engine to end its games.
    agent = Terminating(
        build_agent(args.bot, args.seed, playouts=args.playouts, seconds=args.seconds),
        resign_below=None if args.never_resign else args.resign_below,
        pass_when_ahead=not args.no_pass_back,
    )
    # Bytes in, decoded leniently; lines end only at LF (a lone CR is a control
    # character that GTP strips, not a line break that would add a reply).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="replace", newline="\n")
    engine = GtpEngine(agent, rules=Rules.preset(args.rules), name=args.name, stdin=stdin, stdout=stdout)
    try:
        return engine.run()
    finally:
        stdout.flush()
