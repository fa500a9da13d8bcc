"""``fuseki data process``: SGF games -> uint8 feature shards with a manifest.

::

    fuseki data process SOURCES... --encoder NAME --size N --out DIR
        [--games N] [--test-fraction F] [--seed S] [--workers W]
        [--shard-games G] [--test-games FILE] [--max-bytes B] [--players REGEX] [--json]
        [--quiet] [--progress MODE]

SOURCES are SGF files, folders (searched recursively) and archives (.zip,
.tar.gz, .tgz, .tar.bz2, .tar.xz). Run it again with the same arguments after an
interruption and it resumes: finished shards are kept. See
:mod:`fuseki.data.processor` for the folder layout and docs/data.md for speeds.
"""

from __future__ import annotations

import argparse
import os
import sys

from fuseki.cli import UserError, add_progress_argument, float_type, int_at_least, progress_mode


_fraction = float_type(lambda v: 0.0 <= v < 1.0, "must be at least 0 and below 1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="SGF file, folder or archive (.zip, .tar.gz, .tar.bz2, .tar.xz)"
    )
    parser.add_argument("--encoder", required=True, help="encoder name (oneplane, sevenplane, simple, ...)")
    parser.add_argument(
        "--size", type=int_at_least(2), default=19, help="board size (default 19); other games are skipped"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder for the shards and manifest.json")
    parser.add_argument(
        "--games", type=int_at_least(1), default=None, help="games to draw, train and test (default: all)"
    )
    parser.add_argument("--test-fraction", type=_fraction, default=0.1, help="share of test games (default 0.1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument(
        "--workers", type=int_at_least(1), default=None, help="processes (default: CPU count, at most 8)"
    )
    parser.add_argument("--shard-games", type=int_at_least(1), default=100, help="games per shard (default 100)")
    parser.add_argument(
        "--test-games",
        metavar="FILE",
        help="a fixed test set: split.json of an earlier run, or one game id or portable name a line",
    )
    parser.add_argument(
        "--max-bytes", type=int_at_least(1), default=1 << 20, help="skip SGF files larger than this (default 1 MiB)"
    )
    parser.add_argument(
        "--players",
        metavar="REGEX",
        help="learn only the moves of players whose name (PB/PW) matches, e.g. 'level (9|10)$'",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")
    add_progress_argument(parser)


def run(args: argparse.Namespace) -> int:
    from fuseki.data.processor import ProcessError, process_games
    from fuseki.data.sampler import read_test_list
    from fuseki.data.sources import SourceError
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    test_games = None
    if args.test_games:
        try:
            test_games = read_test_list(args.test_games)
        except (OSError, ValueError, KeyError) as e:
            raise UserError(f"cannot read the test set {args.test_games}: {e}") from None
    workers = args.workers or min(8, os.cpu_count() or 1)

    try:
        with open_renderer(progress_mode(args)) as show:
            summary = process_games(
                args.sources,
                args.out,
                encoder=args.encoder,
                size=args.size,
                games=args.games,
                test_fraction=args.test_fraction,
                seed=args.seed,
                workers=workers,
                shard_games=args.shard_games,
                test_games=test_games,
                max_bytes=args.max_bytes,
                progress=show,
                players=args.players,
            )
    except (ProcessError, SourceError, RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    if summary["train_games_on_hash_test_side"]:
        n = summary["train_games_on_hash_test_side"]
        print(
            f"warning: {n} of the {summary['train_games']} training games are test games of every drawn split "
            f"at --test-fraction {args.test_fraction} (the hash rule); other runs on these sources hold them out, "
            "so do not compare this run with theirs on those games",
            file=sys.stderr,
        )
    if args.json:
        print_json(summary, sort_keys=True)
        return 0
    bpp = summary["bytes_per_position"]
    print(
        f"{summary['out']}: {summary['train_games']} train and {summary['test_games']} test games, "
        f"{summary['positions']:,} positions in {summary['shards']} shards "
        f"({summary['shards_kept']} kept from an earlier run), {summary['bytes']:,} bytes"
        + (f" ({bpp} per position)" if bpp is not None else "")
    )
    if summary["games_this_run"]:
        workers = summary["workers"]
        print(
            f"{summary['games_this_run']} games read in {summary['seconds']} s "
            f"({summary['games_per_second']} games/s, {workers} worker{'s' if workers > 1 else ''})"
        )
    else:
        print("nothing to do: every shard was already made")
    if summary["skipped"]:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in summary["skipped_by_kind"].items())
        print(f"skipped {summary['skipped']} games: {kinds} (listed in manifest.json)")
    if summary["repaired_by_kind"]:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in summary["repaired_by_kind"].items())
        print(f"read with repairs (games by kind, docs/sgf.md): {kinds}")
    if summary["ignored_files"]:
        shown = ", ".join(summary["ignored_files"][:5]) + (" ..." if len(summary["ignored_files"]) > 5 else "")
        print(f"ignored {len(summary['ignored_files'])} files not in the manifest: {shown}")
    return 0
