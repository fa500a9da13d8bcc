"""The one ``fuseki`` command and its subcommands.

Each subcommand lives in ``fuseki.commands.<name>`` with two functions:
``add_arguments(parser)`` and ``run(args) -> int``. Command modules import
their heavy dependencies (Numba kernels, torch) inside ``run`` so that
``fuseki --help`` and argument errors stay instant.

Errors that a user can cause (a bad file, a bad flag value, an illegal move)
are a :class:`~fuseki.util.errors.FusekiError` (:class:`UserError` here) or an
``OSError`` (a file the user named is missing or unreadable), printed as one
line with exit status 2, never as a traceback; ``FUSEKI_DEBUG=1`` shows the
traceback. Any other exception is a bug in fuseki: it keeps its traceback,
followed by a line asking for a bug report, and exits with status 1.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from fuseki import __version__
from fuseki.util.errors import FusekiError

#: name -> (module, one-line help). Order is the order of ``fuseki --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("fuseki.commands.play", "play a bot in the terminal"),
    "watch": ("fuseki.commands.watch", "watch two bots play each other in the terminal"),
    "gtp": ("fuseki.commands.gtp", "run a bot as a GTP engine on stdin/stdout"),
    "bench": ("fuseki.commands.bench", "measure speed, with peers side by side"),
    "verify": ("fuseki.commands.verify", "check the rules engine against GNU Go, move by move"),
    "match": ("fuseki.commands.match", "play a match between two GTP engines"),
    "chess-search": ("fuseki.commands.chess_search", "Klein's chess searches next to his figures"),
    "uci": ("fuseki.commands.uci", "run a chess Zero network as a UCI engine on stdin/stdout"),
    "chess-match": ("fuseki.commands.chess_match", "play a match between two UCI chess engines, with PGN and an Elo estimate"),
    "chess-warmstart": ("fuseki.commands.chess_warmstart", "label positions with Stockfish and train a chess network on them (supervised)"),
    "solve": ("fuseki.commands.solve", "solve tic-tac-toe or Hexapawn with every exact search"),
    "data": ("fuseki.commands.data", "game records and training data: KGS index, download, process, generate"),
    "sgf": ("fuseki.commands.sgf", "check SGF game records: what the reader repairs or refuses, by kind"),
    "scratch-demo": ("fuseki.commands.scratch_demo", "train the book's NumPy network from scratch on digits (ch. 5)"),
    "train": ("fuseki.commands.train", "train networks: supervised move prediction (ch. 6-7)"),
    "serve": ("fuseki.commands.serve", "serve the web UI and its JSON API (play and review in the browser)"),
    "selfplay": ("fuseki.commands.selfplay", "let an agent play itself and record experience for reinforcement learning (ch. 9-12)"),
    "eval": ("fuseki.commands.evaluate", "play two agents against each other: win rate, p-value and Elo (ch. 10)"),
    "rl-loop": ("fuseki.commands.rl_loop", "repeat self-play, training and gated evaluation (ch. 12)"),
    "alphago": ("fuseki.commands.alphago", "AlphaGo (ch. 13): the training pipeline (rollout, SL, RL, value); model folders of parts"),
    "zero": ("fuseki.commands.zero", "AlphaGo Zero / AlphaZero self-play learning for any game (ch. 14)"),
    "deadstones": ("fuseki.commands.deadstones", "the thesis's dead-stone classifier: data, training, experiment"),
}

#: Commands that train networks: they run with the CPU's flush-to-zero mode on, set before torch starts its
#: threads, because subnormal weights and gradients slowed CPU training up to 12x (fuseki.nets.denormals).
#: The others do not import torch just for that: the networks they load have their subnormal weights zeroed.
#: Only when ``fuseki`` is the program: ``main(argv)`` called from a caller's code leaves its floating point alone.
TRAINING_COMMANDS = frozenset({"train", "alphago", "zero", "rl-loop", "chess-warmstart", "deadstones"})


class UserError(FusekiError):
    """An error caused by the user's input; printed as one line, exit status 2."""


def int_at_least(minimum: int) -> "Callable[[str], int]":
    """An argparse ``type`` for whole numbers of at least ``minimum``, with a clear message."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def float_type(ok: "Callable[[float], bool]", requirement: str, noun: str = "a number") -> "Callable[[str], float]":
    """An argparse ``type`` for numbers that pass ``ok``: ``"{text!r} is not {noun}"`` or ``"{requirement}, got {text}"``.

    >>> fraction = float_type(lambda v: 0 <= v < 1, "must be at least 0 and below 1")
    >>> fraction("0.25")
    0.25
    """

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{requirement}, got {text}")
        return value

    return parse


#: A finite number above 0.
positive_float = float_type(lambda v: math.isfinite(v) and v > 0, "must be a positive number")
#: A finite number of seconds above 0.
seconds = float_type(lambda v: math.isfinite(v) and v > 0, "must be a positive number of seconds", "a number of seconds")
#: A number from 0 to 1.
probability = float_type(lambda v: math.isfinite(v) and 0 <= v <= 1, "must be from 0 to 1")
#: A finite multiple of 0.5.
komi = float_type(lambda v: math.isfinite(v) and v * 2 == round(v * 2), "komi must be a multiple of 0.5")


def add_clock_argument(parser: argparse.ArgumentParser, who: str = "each GTP engine") -> None:
    """``--clock``: also send ``time_settings 0 T 1`` (T = ``--move-time``) to ``who`` at the start of each game.

    Off by default, because GNU Go with a clock ignores its ``--level``: its
    level-1 moves become its level-10 moves, at ten times the time a move
    (measured in docs/match.md). Engines that need a clock to decide how long
    to think can ask for it.
    """
    parser.add_argument(
        "--clock",
        action="store_true",
        help=f"also send --move-time to {who} as time_settings 0 T 1 (off by default: GNU Go with a clock "
        "ignores its --level and plays at its strongest)",
    )


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--progress``: how a long job shows its progress on stderr (:func:`fuseki.util.progress.open_renderer`)."""
    from fuseki.util.progress import PROGRESS_MODES

    parser.add_argument(
        "--progress",
        choices=PROGRESS_MODES,
        default="auto",
        help="progress on stderr: lines, a bar, json (one object a line) or none; auto: a bar on a terminal, "
        "else lines (default auto)",
    )


def progress_mode(args: argparse.Namespace) -> str:
    """The ``--progress`` mode of a command's arguments; ``none`` with ``--quiet``."""
    return "none" if getattr(args, "quiet", False) else str(getattr(args, "progress", "auto"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. With ``only``, just that subcommand's module is imported,
    so one command's start-up never pays for (or breaks on) the others."""
    parser = argparse.ArgumentParser(prog="fuseki", description="Game-playing AI for Go and other board games.")
    parser.add_argument("--version", action="version", version=f"fuseki {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:  # a broken optional command must not take the others down
            print(f"fuseki: warning: command {name!r} is unavailable: {e}", file=sys.stderr)
            continue
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip().splitlines()[0])
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fuseki`` console script."""
    own_process = argv is None  # the console script (or python -m fuseki), not a caller's process
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        if own_process and args.command in TRAINING_COMMANDS:
            from fuseki.nets.denormals import flush_denormals_in_this_process

            flush_denormals_in_this_process()
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (FusekiError, OSError) as e:
        if os.environ.get("FUSEKI_DEBUG"):
            raise
        print(f"fuseki {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception:  # a bug, not the user's fault: the traceback is what a report needs
        traceback.print_exc()
        print(
            f"fuseki {args.command}: internal error: this is a bug in fuseki {__version__}; "
            "please report it with the command line and the traceback above",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    # Run as ``python -m fuseki.cli``: this file is then ``__main__``, a second
    # copy of the module, whose UserError the commands do not raise. Use the
    # real module so that user errors are still caught.
    from fuseki.cli import main as _main

    sys.exit(_main())
