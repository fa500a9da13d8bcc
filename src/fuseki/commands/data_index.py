"""``fuseki data kgs-index``: read the KGS archive index page into a list of archives.

::

    fuseki data kgs-index                                  # the book's page, https://u-go.net/gamerecords/
    fuseki data kgs-index --url saved_page.html --base-url https://u-go.net/gamerecords/
    fuseki data kgs-index --since 2015 --out kgs_index.json --json
"""

from __future__ import annotations

import argparse
import json
import sys

from fuseki.cli import UserError, int_at_least
from fuseki.data import kgs
from fuseki.data.download import DataSourceError


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """``--url``, ``--base-url`` and ``--timeout`` (shared with ``fuseki data download``)."""
    parser.add_argument("--url", metavar="URL|PATH",
                        help=f"index page: http(s)/file URL or a local file (default: {kgs.DEFAULT_INDEX_URL})")
    parser.add_argument("--base-url", metavar="URL",
                        help="resolve relative links against this URL instead of the page's own address")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="network timeout in seconds (default: %(default)s)")


def load_archives(args: argparse.Namespace) -> list[kgs.Archive]:
    """The archives named by ``--url``/``--base-url``, with errors as :class:`UserError`."""
    if args.timeout <= 0:
        raise UserError(f"--timeout must be positive, got {args.timeout:g}")
    if args.url is None:
        args.url = kgs.DEFAULT_INDEX_URL
    try:
        archives = kgs.load_index(args.url, base_url=args.base_url, timeout=args.timeout)
    except (DataSourceError, FileNotFoundError, ValueError) as e:
        raise UserError(f"cannot read the index: {e}") from None
    if not archives:
        raise UserError(f"no zip, tar.gz or tar.bz2 links found in {args.url}")
    return archives


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--since", type=int_at_least(1900), metavar="YEAR", help="only archives from YEAR on")
    parser.add_argument("--out", metavar="FILE", help="write the index as JSON (for fuseki data download --index)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")


def run(args: argparse.Namespace) -> int:
    archives = load_archives(args)
    if args.since is not None:
        archives = [a for a in archives if a.year is not None and a.year >= args.since]
    if args.out:
        try:
            kgs.save_index(args.out, archives, args.url)
        except OSError as e:
            raise UserError(f"cannot write {args.out}: {e}") from None
    months = len({a.key for a in archives})
    games = sum({a.key: a.games or 0 for a in archives}.values())
    if args.json:
        data = kgs.index_to_json(archives, args.url)
        data.update(months=months, games=games, out=args.out)
        print(json.dumps(data))
        return 0
    for a in archives:
        games_text = "" if a.games is None else str(a.games)
        print(f"{a.period:8} {games_text:>6}  {a.format:7}  {a.filename}")
    print(f"{len(archives)} archives, {months} distinct, {games} games, from {args.url}"
          + (f"; written to {args.out}" if args.out else ""), file=sys.stderr)
    return 0
