"""The thesis's dead-stone classifier: ``fuseki deadstones ACTION``.

::

    fuseki deadstones make-data SOURCES... --out blocks.npz [--labeller auto|gnugo|marks]
        [--gnugo CMD] [--games N] [--workers W] [--chunk-games N] [--include-atari] [--json]
    fuseki deadstones train blocks.npz --out model.safetensors [--network 33-32-1]
        [--algorithm irprop+] [--epochs N] [--patience N] [--seed S] [--threads T] [--json]
    fuseki deadstones experiment blocks.npz [--rows 33-32-1/irprop+,...] [--epochs N] [--runs R]
        [--patience N] [--out DIR] [--markdown FILE] [--threads T] [--json]
    fuseki deadstones agreement SOURCES... [--model M] [--skip K] [--games N] [--playouts P] [--json]

``make-data`` labels the blocks of finished games (GNU Go's
``final_status_list``, or dead-stone marks in the SGF), ``train`` fits one
network with one of the RPROP family, ``experiment`` prints the thesis's
results table with our figures beside its own, and ``agreement`` measures how
often the classifier and the playout estimate name the same dead stones as
GNU Go on games held out from training. See docs/deadstones.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fuseki.cli import UserError, int_at_least

ACTIONS = ("make-data", "train", "experiment", "agreement")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")

    p = sub.add_parser("make-data", help="label the blocks of finished games (GNU Go or SGF marks)")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="SGF files, folders or archives")
    p.add_argument("--out", required=True, metavar="FILE", help="the block dataset to write (.npz)")
    p.add_argument("--labeller", default="auto", choices=("auto", "gnugo", "marks"),
                   help="auto: the SGF's dead-stone marks when present, else GNU Go (default)")
    p.add_argument("--gnugo", default=None, metavar="CMD", help="the GNU Go command line (default gnugo --mode gtp --chinese-rules)")
    p.add_argument("--games", type=int_at_least(1), default=None, help="use the first N games (default all)")
    p.add_argument("--workers", type=int_at_least(1), default=1, help="parallel processes (default 1)")
    p.add_argument("--chunk-games", type=int_at_least(1), default=100, help="games per resumable chunk (default 100)")
    p.add_argument("--include-atari", action="store_true",
                   help="keep blocks in atari (the thesis decides them statically as dead and leaves them out)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")

    p = sub.add_parser("train", help="train one network with one algorithm of the RPROP family")
    p.add_argument("data", metavar="BLOCKS", help="a block dataset from make-data")
    p.add_argument("--out", required=True, metavar="FILE", help="the model file to write (.safetensors)")
    p.add_argument("--network", default="33-32-1", help="layer sizes, e.g. 33-32-1 or 89-32-1 (default 33-32-1)")
    p.add_argument("--algorithm", default="irprop+", help="rprop, irprop+, sarprop-0.01, sarprop-0.015, sarprop-0.02")
    p.add_argument("--epochs", type=int_at_least(1), default=2000, help="most epochs (default 2000)")
    p.add_argument("--patience", type=int_at_least(1), default=100,
                   help="stop after this many epochs without a new test minimum (the thesis: 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights (default 0)")
    p.add_argument("--checkpoint", default=None, metavar="FILE", help="checkpoint file (default OUT.ckpt); rerun to resume")
    p.add_argument("--threads", type=int_at_least(1), default=1, help="torch threads (default 1)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")

    p = sub.add_parser("experiment", help="the thesis's results table, our figures beside its own")
    p.add_argument("data", metavar="BLOCKS", help="a block dataset from make-data")
    p.add_argument("--rows", default=None, metavar="NET/ALGO,...",
                   help="the runs, e.g. 33-32-1/irprop+,33-2-1/rprop (default: every thesis network with every algorithm)")
    p.add_argument("--epochs", type=int_at_least(1), default=200, help="epochs per run (default 200, the thesis's small-set budget)")
    p.add_argument("--patience", type=int_at_least(1), default=None, help="stop a run after this many epochs without a new test minimum")
    p.add_argument("--runs", type=int_at_least(1), default=1, help="runs per row, seeds SEED..SEED+R-1 (the thesis: 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/deadstones", metavar="DIR", help="results and checkpoints (resumable; default runs/deadstones)")
    p.add_argument("--markdown", default=None, metavar="FILE", help="also write the table to FILE")
    p.add_argument("--compare", default="small", choices=("small", "full"), help="the thesis's data set to compare with")
    p.add_argument("--threads", type=int_at_least(1), default=1, help="torch threads (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object (last line)")

    p = sub.add_parser("agreement", help="agreement with GNU Go's final_status_list on finished games")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="SGF files, folders or archives")
    p.add_argument("--model", default=None, help="dead-stone model file or name (default: the shipped one)")
    p.add_argument("--skip", type=int_at_least(0), default=0, help="leave out the first K games (the training games)")
    p.add_argument("--games", type=int_at_least(1), default=200, help="finished games to compare (default 200)")
    p.add_argument("--playouts", type=int_at_least(1), default=200, help="playouts of the playout estimate (default 200)")
    p.add_argument("--gnugo", default=None, metavar="CMD", help="the GNU Go command line")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object (last line)")


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action is None:
        raise UserError("give an action: " + ", ".join(ACTIONS))
    return {"make-data": _make_data, "train": _train, "experiment": _experiment, "agreement": _agreement}[action](args)


def _say(args: argparse.Namespace, line: str) -> None:
    if not getattr(args, "json", False) or sys.stderr.isatty():
        print(line, file=sys.stderr, flush=True)


def _make_data(args: argparse.Namespace) -> int:
    from fuseki.deadstones.make_data import MakeDataError, make_block_data

    def progress(event: dict[str, Any]) -> None:
        if event["event"] == "start":
            _say(args, f"{event['games']} games in {event['chunks']} chunks; {event['kept']} chunks already done")
        else:
            c = event["counts"]
            _say(args, f"chunk {event['done']}/{event['chunks']}: {c.get('games', 0)} games, {c.get('blocks', 0)} blocks, "
                       f"{c.get('dead', 0)} dead ({event['seconds']} s)")

    try:
        summary = make_block_data(
            args.sources, args.out, labeller=args.labeller, gnugo=args.gnugo, games=args.games, workers=args.workers,
            chunk_games=args.chunk_games, include_atari=args.include_atari, progress=progress,
        )
    except MakeDataError as e:
        raise UserError(str(e)) from None
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{summary['out']}: {summary['blocks']:,} blocks ({summary['dead_blocks']:,} dead, "
              f"{100 * (summary['dead_fraction'] or 0):.1f}%) from {summary['games_used']:,} of {summary['games_listed']:,} games "
              f"in {summary['seconds']} s; skipped {summary['skipped'] or 'none'}; "
              f"{summary['atari_left_out']} blocks in atari left out ({summary['atari_left_out_dead']} of them dead by the labeller)")
    return 0


def _threads(n: int) -> None:
    import torch

    torch.set_num_threads(n)


def _load(path: str) -> Any:
    from fuseki.deadstones.dataset import load_block_dataset

    data = load_block_dataset(path)
    if len(data) < 20:
        raise UserError(f"{path} has {len(data)} blocks; training needs at least 20")
    return data


def _train(args: argparse.Namespace) -> int:
    from fuseki.deadstones.training import TrainSettings, train_on_dataset

    _threads(args.threads)
    settings = TrainSettings(network=args.network, algorithm=args.algorithm, epochs=args.epochs,
                             patience=args.patience, seed=args.seed)
    settings.check()
    data = _load(args.data)
    checkpoint = args.checkpoint or args.out + ".ckpt"

    def progress(event: dict[str, Any]) -> None:
        if event.get("event") == "epoch" and (event.get("epoch", 0) % 50 == 0):
            _say(args, f"epoch {event['epoch']}: train RMS {event.get('train_rms', 0):.5f}, test RMS {event.get('test_rms', 0):.5f}")

    result = train_on_dataset(data, settings, checkpoint=checkpoint, resume=True, progress=progress)
    result.save(args.out)
    summary = {**result.summary(), "out": args.out}
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{args.out}: {summary['network']} {summary['algorithm']}, best epoch {summary['best_epoch']} of {summary['epochs']}: "
              f"test RMS {summary['test_rms_min']:.5f}, {100 * summary['blocks_correct']:.2f}% of blocks and "
              f"{100 * summary['games_correct']:.2f}% of games correct (test split)")
    return 0


def _experiment(args: argparse.Namespace) -> int:
    from fuseki.util.atomic import write_atomic
    from fuseki.deadstones.experiment import format_table, run_experiment

    _threads(args.threads)
    data = _load(args.data)
    rows = [r.strip() for r in args.rows.split(",") if r.strip()] if args.rows else None

    def progress(event: dict[str, Any]) -> None:
        if event.get("event") == "result":
            r = event.get("result", event)
            _say(args, f"{r.get('network')} {r.get('algorithm')} run {r.get('run')}: test RMS {r.get('test_rms_min', 0):.5f} "
                       f"after {r.get('epochs')} epochs")

    results = run_experiment(data, rows, epochs=args.epochs, seed=args.seed, runs=args.runs, patience=args.patience,
                             out_dir=args.out, progress=progress)
    table = format_table(results, data=args.compare)
    header = (f"Data: {args.data}: {len(data):,} blocks from {data.num_games:,} games "
              f"(labeller: {data.meta.get('labeller')}, {', '.join(data.meta.get('engine') or []) or '-'}); "
              f"every 10th block held out for testing.\n\n")
    if args.markdown:
        write_atomic(args.markdown, (header + table).encode())
    if args.json:
        print(json.dumps({"results": results, "data": args.data}, sort_keys=True, default=str))
    else:
        print(header + table, end="")
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from fuseki.deadstones.labels import DEFAULT_GNUGO, GnuGoLabeller
    from fuseki.deadstones.scorer import agreement, finished_states, load_dead_stone_model, nn_dead_stones
    from fuseki.go.ownership import dead_stones

    model = load_dead_stone_model(args.model) if args.model else load_dead_stone_model()
    with GnuGoLabeller(args.gnugo or DEFAULT_GNUGO) as gnugo:
        result = agreement(
            finished_states(args.sources, skip=args.skip, games=args.games),
            {
                "network": lambda s: nn_dead_stones(s, model),
                f"playouts ({args.playouts})": lambda s: dead_stones(s, playouts=args.playouts, seed=0),
                "all alive": lambda s: [],
            },
            gnugo.dead_points,
            progress=lambda n: _say(args, f"{n} games") if n % 50 == 0 else None,
        )
        result["reference"] = gnugo.engine
    result["model"] = str(args.model or "shipped")
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{result['games']} finished games, {result['blocks']:,} blocks; reference: {result['reference']} final_status_list")
    print("| estimate | blocks agreeing | games agreeing | ms a game |")
    print("|---|---:|---:|---:|")
    for name, r in result["estimators"].items():
        print(f"| {name} | {r['blocks_agree_pct']}% | {r['games_agree_pct']}% | {r['ms_per_game']} |")
    return 0
