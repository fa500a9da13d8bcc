"""A supervised warm start for chess Zero: Stockfish-labelled positions and a network trained on them.

::

    fuseki chess-warmstart label --out labels/sf8 --games 200 --depth 8 [--workers 4]
    fuseki chess-warmstart train labels/sf8 --model-out nets/warm.safetensors --blocks 4 --channels 64 [--device cuda]
    fuseki zero train chess --out runs/chess --init nets/warm.safetensors --blocks 4 --channels 64

``label`` plays games in which Stockfish (fixed depth) labels every position
with its best move and evaluation (a share of random moves and the balanced
openings vary the games); it resumes, and ``--workers N`` labels N chunks at
once, each with its own Stockfish (the same files as with one). ``train``
fits a Zero network to those labels, on the GPU when there is one
(``--device``), and writes a network file that ``fuseki zero train chess
--init`` starts from and ``fuseki uci --model`` plays. This departs from AlphaZero,
which learned from random play alone: see docs/chess-zero.md.
"""

from __future__ import annotations

import argparse
import sys

from fuseki.cli import UserError, int_at_least, positive_float, probability


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    label = sub.add_parser("label", help="play and label games with Stockfish (resumable)", description="label positions with Stockfish")
    label.add_argument("--out", required=True, metavar="DIR", help="the label folder (label-NNNN.npz, label.json)")
    label.add_argument("--games", type=int_at_least(1), default=100, help="games in all, counting labelled ones (default 100)")
    label.add_argument("--depth", type=int_at_least(1), default=8, help="Stockfish's search depth for each label (default 8)")
    label.add_argument("--random-share", type=probability, default=0.15, help="share of moves played at random (default 0.15)")
    label.add_argument("--max-plies", type=int_at_least(1), default=300, help="positions a game at most (default 300)")
    label.add_argument("--openings", default="builtin", metavar="FILE", help="openings the games start from (default: the shipped set)")
    label.add_argument("--stockfish", default="stockfish", metavar="CMD", help="the Stockfish command (default stockfish, /usr/games too)")
    label.add_argument("--games-per-chunk", type=int_at_least(1), default=10, help="games per file (default 10)")
    label.add_argument("--seed", type=int, default=0, help="games' openings and random moves (default 0)")
    label.add_argument(
        "--workers",
        type=int_at_least(1),
        default=1,
        metavar="N",
        help="chunks labelled at once, each by a process with its own Stockfish (default 1; the same labels whatever N)",
    )
    label.add_argument("--json", action="store_true", help="print the totals as one line of JSON")
    train = sub.add_parser("train", help="train a chess Zero network on labels", description="train a network on Stockfish labels")
    train.add_argument("labels", metavar="DIR", help="a label folder of `fuseki chess-warmstart label`")
    train.add_argument("--model-out", required=True, metavar="FILE", help="the network file to write (a Zero network file for chess)")
    train.add_argument("--blocks", type=int_at_least(0), default=2, help="residual blocks (default 2)")
    train.add_argument("--channels", type=int_at_least(1), default=32, help="filters (default 32)")
    train.add_argument("--value-hidden", type=int_at_least(1), default=64, help="the value head's hidden units (default 64)")
    train.add_argument("--epochs", type=int_at_least(1), default=4, help="passes over the labels (default 4)")
    train.add_argument("--batch-size", type=int_at_least(2), default=256, help="default 256")
    train.add_argument("--optimizer", choices=("sgd", "adam"), default="adam", help="default adam")
    train.add_argument("--lr", type=positive_float, default=1e-3, help="learning rate (default 0.001)")
    train.add_argument("--result-weight", type=probability, default=0.0, help="value target: (1-w) eval + w result (default 0)")
    train.add_argument("--holdout", type=probability, default=0.05, help="share of positions held out for accuracy (default 0.05)")
    train.add_argument("--seed", type=int, default=0, help="initial weights and batch order (default 0)")
    train.add_argument(
        "--device", choices=("auto", "cpu", "cuda", "mps"), default="auto", help="where it trains (default auto: the GPU if there is one)"
    )
    train.add_argument(
        "--max-minutes",
        type=positive_float,
        default=None,
        metavar="M",
        help="stop after the first epoch that ends past M minutes and write the network (default: all epochs)",
    )
    train.add_argument("--threads", type=int_at_least(1), default=1, help="torch CPU threads (default 1)")
    train.add_argument("--json", action="store_true", help="print the figures as one line of JSON")


def run(args: argparse.Namespace) -> int:
    from fuseki.util.progress import print_json

    if getattr(args, "action", None) is None:
        raise UserError("give an action: label or train")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.action == "label":
        from fuseki.chess.warmstart import LabelSettings, label_games

        try:
            settings = LabelSettings(
                depth=args.depth,
                random_share=args.random_share,
                openings=args.openings,
                max_plies=args.max_plies,
                games_per_chunk=args.games_per_chunk,
                seed=args.seed,
                stockfish=args.stockfish,
            )
        except ValueError as e:
            raise UserError(str(e)) from None
        totals = label_games(args.out, settings, args.games, workers=args.workers, progress=say)
        print(f"{totals['games']} games, {totals['positions']} labelled positions in {args.out}")
        if args.json:
            print_json(totals)
        return 0
    import torch

    from fuseki.chess.warmstart import WarmStartSettings, train_warmstart

    torch.set_num_threads(args.threads)
    try:
        settings_t = WarmStartSettings(
            blocks=args.blocks,
            channels=args.channels,
            value_hidden=args.value_hidden,
            epochs=args.epochs,
            batch_size=args.batch_size,
            optimizer=args.optimizer,
            lr=args.lr,
            result_weight=args.result_weight,
            holdout=args.holdout,
            seed=args.seed,
        )
    except ValueError as e:
        raise UserError(str(e)) from None
    max_seconds = None if args.max_minutes is None else 60 * args.max_minutes
    summary = train_warmstart(args.labels, args.model_out, settings_t, device=args.device, max_seconds=max_seconds, progress=say)
    last = summary["history"][-1]
    epochs = f"{len(summary['history'])} epoch" + ("s" if len(summary["history"]) != 1 else "")
    print(
        f"{args.model_out}: {summary['positions']} positions, {epochs} on {summary['device']}, loss {last['loss']:.3f}"
        + (f", held-out move accuracy {last['holdout_accuracy']:.3f}" if "holdout_accuracy" in last else "")
    )
    if args.json:
        print_json(summary)
    return 0
