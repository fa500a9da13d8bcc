"""Train networks: ``fuseki train ACTION``.

::

    fuseki train supervised SHARD_DIR --network NAME [--net-option K=V ...]
        [--optimizer sgd|momentum|adagrad|adadelta|adam] [--lr F] [--momentum F]
        [--batch-size B] [--epochs E] [--schedule constant|step|cosine|decay]
        [--out DIR] [--resume] [--seed S] [--device auto|cpu|cuda|mps] [--init FILE] [--freeze PART]
        [--json]
    fuseki train evaluate FILE SHARD_DIR [--split test|train] [--json]

``supervised`` learns to predict the moves of the games in a shard folder made
by ``fuseki data process`` (book ch. 6-7); the encoder and board size come from
the folder's manifest; ``--init``/``--freeze`` start it from another network's
weights and train only part of it. ``evaluate`` measures an agent file on a
shard folder's held-out games. See docs/training.md. Later issues add ``rl`` and
``zero``: an action is ``"module"`` or ``"module:object"`` in ``ACTIONS``,
naming something with ``add_arguments(parser)`` and ``run(args) -> int``,
imported only when used.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import types
from typing import Any

from fuseki.cli import UserError, float_type, int_at_least, positive_float
from fuseki.util.progress import print_json

#: action -> (module or "module:object", one-line help)
ACTIONS: dict[str, tuple[str, str]] = {
    "supervised": ("fuseki.commands.train:supervised", "learn to predict moves from processed game shards (ch. 6-7)"),
    "evaluate": ("fuseki.commands.train:evaluate", "an agent file's move prediction (top-1, top-5) on processed shards"),
    "book": ("fuseki.commands.train:book", "the book's move-prediction experiment: every book network on one corpus (ch. 6-8)"),
    "pg": ("fuseki.commands.train_rl:pg", "policy gradient on self-play experience (ch. 10)"),
    "q": ("fuseki.commands.train_rl:q", "Q-learning with a two-input action-value network (ch. 11)"),
    "ac": ("fuseki.commands.train_rl:ac", "actor-critic with policy and value heads (ch. 12)"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for name, (target, help_text) in ACTIONS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            module_name, _, attr = target.partition(":")
            action: Any = importlib.import_module(module_name)
            if attr:
                action = getattr(action, attr)
        except (ImportError, AttributeError):  # not written yet, or a broken optional dependency
            p.set_defaults(_action_missing=target)
            continue
        action.add_arguments(p)
        p.set_defaults(_action_run=action.run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) is None:
        raise UserError("give an action: " + ", ".join(ACTIONS))
    missing = getattr(args, "_action_missing", None)
    if missing is not None:
        raise UserError(f"fuseki train {args.action} is not available ({missing} failed to import)")
    return args._action_run(args)


# ---- fuseki train supervised -------------------------------------------------------------


_positive_float = positive_float


_nonnegative_float = float_type(lambda v: math.isfinite(v) and v >= 0, "must be a number at least 0")


def _net_option(text: str) -> tuple[str, Any]:
    """``K=V``; V is read as JSON (numbers, true/false, lists) and otherwise kept as a string."""
    key, sep, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return key, parsed


def _add_supervised_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shards", metavar="SHARD_DIR", help="a folder made by `fuseki data process`")
    parser.add_argument(
        "--network", required=True, help="fc, cnn, small, medium, large or residual (see docs/training.md)"
    )
    parser.add_argument(
        "--net-option",
        dest="net_options",
        action="append",
        type=_net_option,
        default=[],
        metavar="K=V",
        help="a network option, e.g. blocks=6, channels=32, dropout=0.25 (repeatable)",
    )
    parser.add_argument(
        "--optimizer",
        default="sgd",
        choices=("sgd", "momentum", "adagrad", "adadelta", "adam"),
        help="default sgd, as in the book",
    )
    parser.add_argument(
        "--lr",
        type=_positive_float,
        default=None,
        help="learning rate (default: Keras' for the optimizer: 0.01, adadelta 1.0, adam 0.001)",
    )
    parser.add_argument(
        "--momentum", type=_nonnegative_float, default=None, help="momentum for sgd (0) and momentum (0.9)"
    )
    parser.add_argument("--weight-decay", type=_nonnegative_float, default=0.0, help="L2 weight decay (default 0)")
    parser.add_argument("--batch-size", type=int_at_least(1), default=128, help="default 128, as in the book")
    parser.add_argument(
        "--epochs", type=int_at_least(1), default=5, help="epochs in all, counting resumed ones (default 5)"
    )
    parser.add_argument(
        "--schedule",
        default="constant",
        choices=("constant", "step", "cosine", "decay"),
        help="learning-rate schedule (default constant)",
    )
    parser.add_argument("--step-epochs", type=int_at_least(1), default=1, help="step: epochs between drops (default 1)")
    parser.add_argument("--gamma", type=_positive_float, default=0.1, help="step: factor per drop (default 0.1)")
    parser.add_argument("--decay", type=_nonnegative_float, default=0.0, help="decay: lr / (1 + decay * step)")
    parser.add_argument("--min-lr", type=_nonnegative_float, default=0.0, help="cosine: the final rate (default 0)")
    parser.add_argument("--out", default=None, metavar="DIR", help="output folder (default runs/supervised-NETWORK)")
    parser.add_argument("--resume", action="store_true", help="continue the run whose checkpoint is in --out")
    parser.add_argument("--seed", type=int, default=0, help="seed of the weights and the data order (default 0)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    parser.add_argument(
        "--max-batches", type=int_at_least(1), default=None, help="stop each epoch after this many batches"
    )
    parser.add_argument("--window", type=int_at_least(1), default=4, help="shuffle window in shards (default 4)")
    parser.add_argument("--keep-checkpoints", action="store_true", help="also keep epoch-NNNN.pt for every epoch")
    parser.add_argument(
        "--augment",
        action="store_true",
        help="train each position under a random one of the board's 8 rotations and reflections",
    )
    parser.add_argument("--tensorboard", action="store_true", help="also log to DIR/tensorboard (needs tensorboard)")
    parser.add_argument(
        "--max-minutes", type=_positive_float, default=None, metavar="M",
        help="stop before an epoch that would end past M minutes of this call; --resume goes on",
    )
    parser.add_argument(
        "--precision", default="fp32", choices=("fp32", "bf16"), help="bf16: autocast on CUDA (default fp32)"
    )
    parser.add_argument(
        "--init", default=None, metavar="FILE",
        help="start from an agent file (path or shipped name): every tensor of the same name and shape is copied",
    )
    parser.add_argument(
        "--freeze", action="append", default=[], metavar="PART",
        help="a part not to train (stem, tower, tower.3, ...; repeatable, needs --init): a new head on a trunk",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _init_words(event: dict[str, Any]) -> str:
    """What a start from another network copied, and how much of the network is trained (``--init``)."""
    init = event.get("init")
    if not init:
        return ""
    return (
        f"\n  started from {init['path']}: {init['copied']} tensors copied, {len(init['fresh'])} fresh; "
        f"training {event['trained_parameters']:,} of {event['parameters']:,} parameters"
    )


def _progress_line(network: str, event: dict[str, Any]) -> str:
    """One progress line on stderr for a ``start``, ``batch`` or ``epoch`` event of :func:`train_supervised`."""
    kind = event["event"]
    if kind == "start":
        return (
            f"{network}: {event['parameters']:,} parameters on {event['device']}; "
            f"{event['train_positions']:,} train and {event['test_positions']:,} test positions, "
            f"{event['steps_per_epoch']} batches an epoch"
            + (f"; resuming after epoch {event['start_epoch']}" if event["resumed"] else "")
            + ("" if event["complete"] else "; warning: the shard folder is incomplete (its processing stopped)")
            + _init_words(event)
        )
    if kind == "stop":
        return (
            f"stopping after epoch {event['epoch']}/{event['epochs']}: the next one would pass --max-minutes "
            f"({event['seconds']:.0f} s so far); --resume goes on"
        )
    if kind == "batch":
        return (
            f"epoch {event['epoch']}/{event['epochs']} batch {event['batch']}/{event['batches']}: "
            f"loss {_num(event['loss'])} top-1 {_pct(event['top1'])} "
            f"({event['positions_per_second']:,.0f} positions/s)"
        )
    return (
        f"epoch {event['epoch']}/{event['epochs']}: train loss {_num(event['train_loss'])} "
        f"top-1 {_pct(event['train_top1'])} top-5 {_pct(event['train_top5'])} | "
        f"test loss {_num(event['test_loss'])} top-1 {_pct(event['test_top1'])} "
        f"top-5 {_pct(event['test_top5'])} | lr {event['lr']:.3g}, {event['seconds']:.1f} s"
    )


def _run_supervised(args: argparse.Namespace) -> int:
    from fuseki.data.processor import ProcessError
    from fuseki.train.supervised import TrainConfig, train_supervised

    options: dict[str, Any] = {}
    for key, value in args.net_options:
        if key in options:
            raise UserError(f"--net-option {key} is given twice")
        options[key] = value
    config = TrainConfig(
        shards=args.shards,
        network=args.network,
        out=args.out or f"runs/supervised-{args.network}",
        net_options=options,
        optimizer=args.optimizer,
        lr=args.lr,
        momentum=args.momentum,
        weight_decay=args.weight_decay,
        batch_size=args.batch_size,
        epochs=args.epochs,
        schedule=args.schedule,
        step_epochs=args.step_epochs,
        gamma=args.gamma,
        decay=args.decay,
        min_lr=args.min_lr,
        seed=args.seed,
        device=args.device,
        resume=args.resume,
        tensorboard=args.tensorboard,
        max_batches=args.max_batches,
        window=args.window,
        keep_checkpoints=args.keep_checkpoints,
        augment=args.augment,
        max_minutes=args.max_minutes,
        precision=args.precision,
        init=args.init,
        freeze=args.freeze,
    )

    def progress(event: dict[str, Any]) -> None:
        if not args.quiet:
            print(_progress_line(config.network, event), file=sys.stderr, flush=True)

    try:
        result = train_supervised(config, progress=progress)
    except ProcessError as e:
        raise UserError(str(e)) from None
    summary = result.summary()
    if args.json:
        print_json(summary, sort_keys=True)
        return 0
    final = result.final
    print(
        f"{result.out}: {result.network} ({result.parameters:,} parameters) trained {result.epochs} epochs "
        f"on {result.encoder} {result.board_size}x{result.board_size} in {result.seconds:.1f} s on {result.device}"
    )
    if final:
        print(
            f"last epoch: train top-1 {_pct(final['train_top1'])}, test top-1 {_pct(final['test_top1'])}, "
            f"test top-5 {_pct(final['test_top5'])}, test loss {_num(final['test_loss'])}"
        )
    if result.stopped:
        print(f"stopped early ({result.stopped}) after epoch {result.epochs} of {config.epochs}; --resume goes on")
    print(f"checkpoint {summary['checkpoint']}, metrics {summary['metrics_csv']}, curves {summary['curves_png']}")
    return 0


# ---- fuseki train evaluate ---------------------------------------------------------------


def _add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="FILE", help="an agent file (a path or a shipped model's name)")
    parser.add_argument("shards", metavar="SHARD_DIR", help="a folder made by `fuseki data process`")
    parser.add_argument("--split", default="test", choices=("test", "train"), help="which side (default test)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    parser.add_argument("--batch-size", type=int_at_least(1), default=256, help="default 256")
    parser.add_argument(
        "--max-positions", type=int_at_least(1), default=None, help="stop after about this many (whole batches)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object (last line)")


def _run_evaluate(args: argparse.Namespace) -> int:
    from fuseki.data.processor import ProcessError
    from fuseki.train.supervised import evaluate_agent

    try:
        result = evaluate_agent(
            args.model, args.shards, split=args.split, device=args.device, batch_size=args.batch_size,
            max_positions=args.max_positions,
        )
    except ProcessError as e:
        raise UserError(str(e)) from None
    if args.json:
        print_json(result, sort_keys=True)
        return 0
    print(
        f"{result['model']} on {result['positions']:,} {result['split']} positions of {result['shards']} "
        f"({result['board_size']}x{result['board_size']}): top-1 {_pct(result['top1'])}, "
        f"top-5 {_pct(result['top5'])}, loss {_num(result['loss'])} ({result['seconds']:.1f} s on {result['device']})"
    )
    return 0


#: The ``evaluate`` action.
evaluate = types.SimpleNamespace(add_arguments=_add_evaluate_arguments, run=_run_evaluate)


#: The ``supervised`` action (``fuseki.commands.train:supervised`` in ``ACTIONS``).
supervised = types.SimpleNamespace(add_arguments=_add_supervised_arguments, run=_run_supervised)


# ---- fuseki train book ---------------------------------------------------------------------


_test_fraction = float_type(lambda v: 0 < v < 1, "must be above 0 and below 1")


def _add_book_arguments(parser: argparse.ArgumentParser) -> None:
    from fuseki.train.book_experiment import BOOK_ROWS

    parser.add_argument("corpus", metavar="CORPUS", help="SGF games: a folder or archive (e.g. from `fuseki data generate`)")
    parser.add_argument("--out", default="runs/book", metavar="DIR", help="output folder (default runs/book)")
    parser.add_argument("--size", type=int_at_least(5), default=9, help="board size of the games (default 9)")
    parser.add_argument("--games", type=int_at_least(2), default=None, help="games to sample (default: all)")
    parser.add_argument(
        "--test-fraction", type=_test_fraction, default=0.1, metavar="F",
        help="share of the sampled games held out for testing (default 0.1)",
    )
    parser.add_argument(
        "--rows", default=None, metavar="A,B",
        help="the set-ups to train, from " + ", ".join(r.key for r in BOOK_ROWS) + " (default: all)",
    )
    parser.add_argument("--max-epochs", type=int_at_least(1), default=None, help="cap each row's epochs (the book's 100 of listing 6.25)")
    parser.add_argument("--max-batches", type=int_at_least(1), default=None, help="stop each epoch after this many batches (quick trials)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split, the weights and the data order (default 0)")
    parser.add_argument("--workers", type=int_at_least(1), default=1, help="processes that encode the games (default 1)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object (last line)")


def _run_book(args: argparse.Namespace) -> int:
    from fuseki.data.processor import ProcessError
    from fuseki.train.book_experiment import format_results, run_book_experiment

    rows = [r.strip() for r in args.rows.split(",") if r.strip()] if args.rows else None

    def progress(event: dict[str, Any]) -> None:
        if args.quiet:
            return
        kind = event["event"]
        if kind == "process":
            line = f"encoding {event['corpus']} with {event['encoder']}"
        elif kind == "processed":
            summary = event["summary"]
            line = (
                f"{event['encoder']}: {summary['train_games']} train and {summary['test_games']} test games, "
                f"{summary['positions']:,} positions, {summary['skipped']} skipped ({event['seconds']} s)"
            )
        elif kind == "row":
            line = f"== {event['row']}: {event['epochs']} epochs"
        else:
            line = _progress_line(event["row"], event)
        print(line, file=sys.stderr, flush=True)

    try:
        results = run_book_experiment(
            args.corpus, args.out, size=args.size, games=args.games, rows=rows, max_epochs=args.max_epochs,
            test_fraction=args.test_fraction,
            seed=args.seed, workers=args.workers, device=args.device, max_batches=args.max_batches, progress=progress,
        )
    except ProcessError as e:
        raise UserError(str(e)) from None
    if args.json:
        print_json({"out": args.out, "rows": [{k: v for k, v in r.items() if k != "history"} for r in results]},
                   sort_keys=True)
        return 0
    print(format_results(results), end="")
    print(f"results: {args.out}/results.md, {args.out}/results.json; curves: {args.out}/curves.png")
    return 0


#: The ``book`` action: every book network on one corpus (ch. 6-8), docs/training.md.
book = types.SimpleNamespace(add_arguments=_add_book_arguments, run=_run_book)
