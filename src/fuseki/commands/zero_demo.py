"""``fuseki zero demo --out DIR``: the book's chapter 14 demo, with its settings, on our engine.

One cycle of the AlphaGo Zero loop on 9x9 as ``zero_demo.py`` sets it up
(the 11-plane encoder, 4 conv layers of 64, 5 self-play games at 10 rounds
a move and c = 2.0, one training call at learning rate 0.01 in batches of
2048), in a resumable run folder; then the same games again the book's way
(one game and one position per network call) for the speed beside ours.
Prints the book's figures beside ours and writes ``DIR/demo.json``. See
:mod:`fuseki.zero.demo` and docs/zero.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from fuseki.cli import add_progress_argument, int_at_least, progress_mode

HELP = "the book's chapter 14 demo with its settings: 5 self-play games on 9x9, one training step"
DESCRIPTION = (
    "The book's AlphaGo Zero demo (ch. 14, zero_demo.py) with its settings on fuseki's engine, in a resumable folder: "
    "5 self-play games on 9x9 at 10 rounds a move, one training call; the book's figures beside ours"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="the run folder (a Zero run, book-way.json, demo.json)")
    p.add_argument("--seed", type=int, default=0, help="the network's start and the games derive from it (default 0)")
    p.add_argument(
        "--noise",
        action="store_true",
        help="add AlphaGo Zero's root noise (epsilon 0.25, alpha 0.03, the book's section 14.4); the demo's code has none",
    )
    p.add_argument("--generations", type=int_at_least(1), default=1, help="cycles of the book's loop (default 1, the demo)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda", "mps"), default="cpu", help="where the network runs (default cpu)")
    p.add_argument("--threads", type=int_at_least(1), default=1, help="torch CPU threads (default 1)")
    p.add_argument("--json", action="store_true", help="print the report as one line of JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_progress_argument(p)


def run(args: argparse.Namespace) -> int:
    # Imported here: torch and the Go engine load only when a run starts, not for --help or a bad flag.
    import torch

    from fuseki.util.progress import open_renderer, print_json
    from fuseki.zero.demo import run_demo

    torch.set_num_threads(args.threads)
    command = "fuseki " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["zero"] else None
    with open_renderer(progress_mode(args)) as progress:
        report = run_demo(
            args.out, seed=args.seed, noise=args.noise, generations=args.generations, device=args.device, progress=progress, command=command
        )
    if args.json:
        print_json(report)
        return 0
    book, ours, slow, mine = report["book"], report["ours"], report["book_way"], report["settings"]
    print(f"The book's chapter 14 demo in {args.out}")
    print(f"  {'':<34} {'the book':>16} {'fuseki':>16}")
    rows = [
        ("board, network", "9x9, 4x64 conv", "9x9, 4x64 conv"),
        ("self-play games", book["games"], ours["games"]),
        ("rounds a move, c", f"{book['rounds_per_move']}, {book['c']}", f"{mine['simulations']}, {mine['c_puct']}"),
        (
            "training: lr, batch, epochs",
            f"{book['learning_rate']}, {book['batch_size']}, 1",
            f"{mine['lr']}, {mine['batch_size']}, {mine['epochs']}",
        ),
        ("moves played (per game)", "not reported", f"{ours['moves']} ({ours['moves_per_game']:.0f})"),
        ("distinct games", "not reported", f"{ours['distinct_games']} of {ours['games']}"),
        ("wins black-white", "not reported", "-".join(str(w) for w in ours["wins_black_white"])),
        ("network calls (positions)", "one per position", f"{ours['network_calls']} ({ours['evaluations']})"),
        ("self-play seconds", "not reported", f"{ours['selfplay_seconds']:.1f}"),
        ("loss before -> after", "not reported", f"{ours['loss_before']['loss']:.3f} -> {ours['loss_after']['loss']:.3f}"),
    ]
    for label, theirs, ours_cell in rows:
        print(f"  {label:<34} {theirs!s:>16} {ours_cell!s:>16}")
    print(
        f"the book's way (one game, one position a call) on our engine: {slow['seconds']:.1f} s, {slow['network_calls']} calls, "
        f"{report['book_way']['speedup']:.1f}x our time; same games: {'yes' if slow['same_games'] else 'NO'}"
    )
    return 0
