"""Game records and training data: ``fuseki data ACTION``.

::

    fuseki data kgs-index  [--url URL] [--out FILE]          list the KGS archives
    fuseki data download   [--index FILE] [--dir DIR] ...    fetch archives (cached, resumable)
    fuseki data process    SOURCES --encoder NAME --out DIR  games -> uint8 shards + manifest
    fuseki data generate   --engine gnugo|mcts --games N     self-play corpora (no internet needed)
    fuseki data stats      SOURCES [--json]                  games, lengths, results, repeats, time taken

Each action lives in its own module (``ACTIONS`` below) with
``add_arguments(parser)`` and ``run(args) -> int``, imported only when used,
so that ``fuseki data --help`` stays instant and one action's dependencies
(torch, for example) never slow down another.
"""

from __future__ import annotations

import argparse
import importlib

from fuseki.cli import UserError

#: action -> (module, one-line help)
ACTIONS: dict[str, tuple[str, str]] = {
    "kgs-index": ("fuseki.commands.data_index", "parse the KGS archive index page into a list of archives"),
    "download": ("fuseki.commands.data_download", "download game archives, cached, resumable, with checksums"),
    "process": ("fuseki.commands.data_process", "turn SGF games into uint8 feature shards with a manifest"),
    "generate": ("fuseki.commands.data_generate", "generate games by self-play (GNU Go or our MCTS)"),
    "stats": ("fuseki.commands.data_stats", "count what a collection of SGF games holds"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for name, (module_name, help_text) in ACTIONS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # not written yet, or a broken optional dependency: keep the others working
            p.set_defaults(_action_missing=module_name)
            continue
        module.add_arguments(p)
        p.set_defaults(_action_run=module.run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) is None:
        raise UserError("give an action: " + ", ".join(ACTIONS))
    missing = getattr(args, "_action_missing", None)
    if missing is not None:
        raise UserError(f"fuseki data {args.action} is not available (module {missing} failed to import)")
    return args._action_run(args)
