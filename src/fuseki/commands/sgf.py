"""SGF game records: ``fuseki sgf check FILES|DIRS|ARCHIVES [--strict] [--json]``.

::

    fuseki sgf check game.sgf                      one file: what was repaired or refused
    fuseki sgf check kgs/ fox.tar.xz --summary     folders and archives: the counts only
    fuseki sgf check games.zip --strict --json     as strict reading sees them; JSON last

Reads every game, replays it, and reports per file what the lenient reader
repaired (its warnings) or why it refused the game, then the counts by kind
(docs/sgf.md lists the kinds). ``fuseki data process`` reads games the same
way: it skips exactly the refused ones. The exit status is 0 when every game
loads, 1 when some are refused.
"""

from __future__ import annotations

import argparse
import sys

from fuseki.cli import UserError, int_at_least


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    check = sub.add_parser("check", help="read and replay every game; report repairs and refusals", description=__doc__.splitlines()[0])
    check.add_argument("sources", nargs="+", metavar="SOURCE", help="SGF files, folders, zip or tar archives")
    check.add_argument("--strict", action="store_true", help="repair nothing: every repair is a refusal")
    check.add_argument("--summary", action="store_true", help="only the counts and the refused files, not a line per repaired file")
    check.add_argument("--max-bytes", type=int_at_least(1), default=1 << 20, help="skip files larger than this (default 1 MiB)")
    check.add_argument(
        "--json", action="store_true", help="end with one line of JSON: the counts and the reports (refused only with --summary)"
    )


def run(args: argparse.Namespace) -> int:
    from fuseki.data.sgf_check import check_games
    from fuseki.data.sources import SourceError
    from fuseki.util.progress import print_json

    if getattr(args, "action", None) != "check":
        raise UserError("give an action: check")
    out = sys.stderr if args.json else sys.stdout

    def show(game_id: str, result: dict) -> None:
        if (args.summary and result["status"] != "refused") or (result["status"] == "loaded" and not result["warnings"]):
            return
        lines = [f"{game_id}: {result['status']}" + (f": {result['error']}" if "error" in result else "")]
        lines += [f"  {w['kind']}: {w['message']}" for w in result["warnings"]]
        print("\n".join(lines), file=out)

    try:
        report = check_games(args.sources, strict=args.strict, max_bytes=args.max_bytes, on_game=show)
    except SourceError as e:
        raise UserError(str(e)) from None
    if report["files"] == 0:
        raise UserError(f"no SGF games in {', '.join(args.sources)}")
    mode = "strict" if args.strict else "lenient"
    lines = [
        f"files     {report['files']} ({mode} reading): {report['loaded']} loaded as written, "
        f"{report['repaired']} loaded with repairs, {report['refused']} refused",
    ]
    if report["by_kind"]:
        lines.append("warnings  games by kind:")
        lines += [f"{n:>10}  {kind}" for kind, n in report["by_kind"].items()]
    if report["refused_by_kind"]:
        lines.append("refused   games by kind:")
        lines += [f"{n:>10}  {kind}" for kind, n in report["refused_by_kind"].items()]
    print("\n".join(lines), file=out)
    if args.json:
        if args.summary:
            report["reports"] = [r for r in report["reports"] if r["status"] == "refused"]
        print_json(report)
    return 1 if report["refused"] else 0
