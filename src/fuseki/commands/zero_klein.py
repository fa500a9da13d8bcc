"""``fuseki zero klein --out DIR``: Klein's Hexapawn experiment, a net from solved play against one from zero.

Trains Klein's network (5 dense layers of 128) twice with his settings: once
supervised on the solved game tree, once AlphaZero-style from random weights
(11 iterations of 10 self-play games, 100 simulations a move); then plays
each net, with its policy alone as Klein does, against random moves as
Black and as White (``--games`` each, with 95 % Wilson intervals), beside
the untrained net and the random player, and writes ``DIR/result.json``.
The folder resumes after ``kill -9``; a larger ``--games`` plays only the
new games. See :mod:`fuseki.zero.klein` and docs/zero.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from fuseki.cli import add_progress_argument, int_at_least, progress_mode

if TYPE_CHECKING:
    from fuseki.zero.klein import KleinSettings

HELP = "Klein's Hexapawn experiment: a supervised net and a Zero net against random moves"
DESCRIPTION = (
    "Klein's HexapawnZero (Neural Networks for Chess, ch. 5) with his settings: one network trained from the solved game, "
    "one by self-play from zero, both against a random player as Black and as White; resumable, writes DIR/result.json"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="the run folder (klein.json, the nets, zero/, result.json)")
    p.add_argument("--games", type=int_at_least(1), default=1000, help="games against random per net and colour (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="every net, game and batch order derives from it (default 0)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda", "mps"), default="cpu", help="where the nets train (default cpu)")
    p.add_argument("--threads", type=int_at_least(1), default=1, help="torch CPU threads (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as one line of JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_progress_argument(p)


def _settings(seed: int) -> KleinSettings:
    """Klein's settings with the run's seed."""
    from fuseki.zero.klein import KleinSettings

    return KleinSettings(seed=seed)


def run(args: argparse.Namespace) -> int:
    # Imported here: torch loads only when a run starts, not for --help or a bad flag.
    import torch

    from fuseki.util.progress import open_renderer, print_json
    from fuseki.zero.klein import NETS, run_klein

    torch.set_num_threads(args.threads)
    command = "fuseki " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["zero"] else None
    with open_renderer(progress_mode(args)) as progress:
        result = run_klein(args.out, _settings(args.seed), games=args.games, device=args.device, progress=progress, command=command)
    if args.json:
        print_json(result)
        return 0
    print(f"Klein's Hexapawn experiment in {args.out}: each player against random moves, {args.games} games a colour")
    print(f"  {'player':<11} {'as Black':>24} {'as White':>24}")
    for name in NETS:
        cells = []
        for colour in ("black", "white"):
            r = result["ours"][name][colour]
            low, high = r["ci95"]
            cells.append(f"{100 * r['win_rate']:5.1f} % ({100 * low:4.1f}-{100 * high:5.1f})")
        print(f"  {name:<11} {cells[0]:>24} {cells[1]:>24}")
    k = result["klein"]
    print(
        f"Klein (100 games as Black): supervised {k['supervised_as_black']['wins']} %, random {k['random_as_black']['wins']} %; "
        "his Zero net's figure is not in his code"
    )
    return 0
