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


def run(args: argparse.Namespace) -> int:
    from fuseki.commands.play import build_agent
    from fuseki.go.rules import PRESETS, Rules
    from fuseki.gtp.engine import GtpEngine

    if args.rules.lower() not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    if not args.name.strip() or any(not ch.isprintable() for ch in args.name):
        raise UserError("--name must be printable text on one line")
    agent = build_agent(args.bot, args.seed)
    # Bytes in, decoded leniently; lines end only at LF (a lone CR is a control
    # character that GTP strips, not a line break that would add a reply).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="replace", newline="\n")
    engine = GtpEngine(agent, rules=Rules.preset(args.rules), name=args.name, stdin=stdin, stdout=stdout)
    try:
        return engine.run()
    finally:
        stdout.flush()
