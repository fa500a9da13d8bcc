"""``fuseki data download``: fetch game archives into a cache directory.

::

    fuseki data download --since 2018 --max-archives 3          # from the book's page
    fuseki data download --index kgs_index.json --dir data/kgs  # from a saved index
    fuseki data download --mirror http://my.host/kgs/ --format zip --json

Cached, resumable (``.part`` files, HTTP Range), checked (SHA-256 in
``DIR/catalog.json``, verified on reuse); see :mod:`fuseki.data.download`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fuseki.cli import UserError, int_at_least
from fuseki.data import kgs
from fuseki.commands.data_index import add_source_arguments, load_archives
from fuseki.data.download import DataSourceError, Downloader, OfflineError, default_data_dir, read_checksums


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--index", metavar="FILE",
                        help="a JSON index from fuseki data kgs-index --out (instead of --url)")
    parser.add_argument("--mirror", metavar="URL|DIR",
                        help="fetch each file from URL/FILENAME (or DIR/FILENAME) instead")
    parser.add_argument("--dir", metavar="DIR",
                        help="cache directory (default: $FUSEKI_DATA_DIR/kgs, else data/kgs)")
    parser.add_argument("--format", choices=kgs.FORMATS, default="tar.gz",
                        help="preferred format; a month without it falls back to the others (default: %(default)s)")
    parser.add_argument("--since", type=int_at_least(1900), metavar="YEAR", help="only archives from YEAR on")
    parser.add_argument("--until", type=int_at_least(1900), metavar="YEAR", help="only archives up to YEAR")
    parser.add_argument("--max-archives", type=int_at_least(1), metavar="N", help="at most N archives (newest first)")
    parser.add_argument("--max-games", type=int_at_least(1), metavar="N",
                        help="stop once the archives hold N games (as the index states)")
    parser.add_argument("--checksums", metavar="FILE", help="expected SHA-256 digests, sha256sum format")
    parser.add_argument("--retries", type=int_at_least(0), default=3, metavar="N",
                        help="extra attempts per file, with backoff 1, 2, 4 ... s (default: %(default)s)")
    parser.add_argument("--dry-run", action="store_true", help="list what would be fetched; fetch nothing")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")


def run(args: argparse.Namespace) -> int:
    if args.since is not None and args.until is not None and args.since > args.until:
        raise UserError(f"--since {args.since} is after --until {args.until}")
    if args.index:
        if args.url is not None:
            raise UserError("give --index or --url, not both")
        try:
            archives = kgs.read_index_file(args.index)
        except FileNotFoundError:
            raise UserError(f"no such index file: {args.index}") from None
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise UserError(f"cannot read {args.index}: {e}") from None
    else:
        archives = load_archives(args)
    formats = [args.format] + [f for f in kgs.FORMATS if f != args.format]
    chosen = kgs.select_archives(archives, formats=formats, since=args.since, until=args.until,
                                 max_archives=args.max_archives, max_games=args.max_games)
    if args.mirror:
        chosen = kgs.rebase(chosen, args.mirror)
    checksums: dict[str, str] = {}
    if args.checksums:
        try:
            checksums = read_checksums(args.checksums)
        except FileNotFoundError:
            raise UserError(f"no such checksum file: {args.checksums}") from None
        except ValueError as e:
            raise UserError(str(e)) from None
    directory = Path(args.dir) if args.dir else default_data_dir()
    if not chosen:
        raise UserError(f"no archives match (the index lists {len(archives)})")

    if args.dry_run:
        for a in chosen:
            print(f"{a.period:8} {a.games if a.games is not None else '':>6}  {a.url}")
        if args.json:
            print(json.dumps({"dir": str(directory), "dry_run": True, "archives": [a.to_dict() for a in chosen]}))
        return 0

    started = time.perf_counter()
    try:
        downloader = Downloader(directory, timeout=args.timeout, retries=args.retries, progress=not args.quiet)
        results = downloader.fetch_all(chosen, checksums)
    except OfflineError as e:
        raise UserError(str(e)) from None
    except DataSourceError as e:
        raise UserError(str(e)) from None
    seconds = time.perf_counter() - started
    failed = [r for r in results if r.status == "failed"]
    counts = {s: sum(r.status == s for r in results) for s in ("downloaded", "resumed", "cached", "failed")}
    summary = (f"{len(results)} archives in {directory}: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
               + f" ({sum(r.transferred for r in results) / 1e6:.1f} MB in {seconds:.1f} s)")
    print(summary, file=sys.stderr)
    for r in failed:
        print(f"failed: {r.archive.filename}: {r.error}", file=sys.stderr)
    if args.json:
        print(json.dumps({
            "dir": str(directory),
            "catalog": str(directory / "catalog.json"),
            **counts,
            "games": sum(r.archive.games or 0 for r in results if r.status != "failed"),
            "transferred": sum(r.transferred for r in results),
            "seconds": round(seconds, 3),
            "archives": [r.to_dict() for r in results],
        }))
    else:
        for r in results:
            if r.status != "failed":
                print(r.path)
    return 1 if failed else 0
