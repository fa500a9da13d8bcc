"""Train the book's NumPy network from scratch on handwritten digits (book ch. 5).

::

    fuseki scratch-demo                                   # 8x8 digits bundled with scikit-learn, 64-32-10
    fuseki scratch-demo --data mnist --mnist-dir DIR      # MNIST IDX files, the book's 784-392-196-10
    fuseki scratch-demo --layers 64,64,10 --epochs 10 --json

Dense layers with sigmoids, mean squared error, mini-batch SGD: the book's
network (``fuseki.scratch.network``). Without internet the demo uses
scikit-learn's 1,797 8x8 digits (80 % to train, 20 % to test, the same share
of each digit in both). With ``--data mnist`` it reads MNIST's four IDX files
(plain or ``.gz``) from ``--mnist-dir`` and uses the book's settings: layers
784-392-196-10, 10 epochs, mini-batches of 10, learning rate 3.0. One line per
epoch gives the test score in the book's form (``Epoch 0: 6628 / 10000``).
See ``docs/scratch.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from fuseki.cli import UserError, int_at_least
from fuseki.util.progress import print_json

DATASETS = ("digits", "mnist")

#: Defaults per data set: layers, epochs, mini-batch size, learning rate.
DEFAULTS: dict[str, dict[str, Any]] = {
    "digits": {"layers": [64, 32, 10], "epochs": 30, "batch_size": 10, "lr": 3.0},
    "mnist": {"layers": [784, 392, 196, 10], "epochs": 10, "batch_size": 10, "lr": 3.0},  # the book's listing 5.27
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        choices=DATASETS,
        default=None,
        help="digits: scikit-learn's 8x8 set, no download (default); mnist: IDX files from --mnist-dir",
    )
    parser.add_argument("--mnist-dir", metavar="DIR", default=None, help="folder with MNIST's four IDX files (implies --data mnist)")
    parser.add_argument(
        "--layers",
        default=None,
        help="layer sizes from input to output, comma-separated (default 64,32,10 on digits, 784,392,196,10 on mnist)",
    )
    parser.add_argument("--epochs", type=int_at_least(1), default=None, help="passes over the training set (default 30 digits, 10 mnist)")
    parser.add_argument("--batch-size", type=int_at_least(1), default=None, help="mini-batch size (default 10, the book's)")
    parser.add_argument("--lr", default=None, help="learning rate (default 3.0, the book's)")
    parser.add_argument(
        "--init",
        choices=("scaled", "book"),
        default="scaled",
        help="weights from N(0, 1/inputs) (default) or the book's N(0, 1)",
    )
    parser.add_argument(
        "--threads",
        type=int_at_least(1),
        default=1,
        help="BLAS threads (default 1: products of mini-batches this small run fastest on one thread)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the split, the weights and the shuffles (default 0)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON holding the result")


def parse_layers(text: str) -> list[int]:
    """``"64,32,10"`` -> ``[64, 32, 10]``; UserError for anything else."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise UserError(f"--layers must be comma-separated whole numbers like 64,32,10, got {text!r}") from None
    if len(sizes) < 2:
        raise UserError(f"--layers needs an input and an output size at least, got {text!r}")
    if min(sizes) < 1:
        raise UserError(f"--layers sizes must be positive, got {text!r}")
    return sizes


def parse_lr(text: str) -> float:
    try:
        lr = float(text)
    except ValueError:
        raise UserError(f"--lr must be a number, got {text!r}") from None
    if not 0 < lr < float("inf"):
        raise UserError(f"--lr must be positive, got {text!r}")
    return lr


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """Check the flags together; return the resolved settings."""
    data = args.data
    if data is None:
        data = "mnist" if args.mnist_dir else "digits"
    if data == "mnist" and not args.mnist_dir:
        raise UserError("--data mnist needs --mnist-dir DIR, the folder with MNIST's IDX files (no download here)")
    if data == "digits" and args.mnist_dir:
        raise UserError("--mnist-dir applies only to --data mnist")
    d = DEFAULTS[data]
    return {
        "data": data,
        "layers": parse_layers(args.layers) if args.layers is not None else list(d["layers"]),
        "epochs": args.epochs if args.epochs is not None else d["epochs"],
        "batch_size": args.batch_size if args.batch_size is not None else d["batch_size"],
        "lr": parse_lr(args.lr) if args.lr is not None else d["lr"],
        "init": args.init,
        "seed": args.seed,
        "threads": args.threads,
    }


def run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    import numpy as np

    from fuseki.scratch.digits import load_digits_split, one_hot
    from fuseki.scratch.mnist import load_mnist
    from fuseki.scratch.network import EpochResult, SequentialNetwork

    layers = settings["layers"]
    if settings["data"] == "mnist":
        try:
            data = load_mnist(args.mnist_dir)
        except FileNotFoundError as e:
            raise UserError(str(e)) from None
    else:
        data = load_digits_split(seed=settings["seed"])
    if layers[0] != data.num_features:
        raise UserError(
            f"--layers must start with {data.num_features}, the number of pixels in a {settings['data']} image, got {layers[0]}"
        )
    if layers[-1] != 10:
        raise UserError(f"--layers must end with 10, one output per digit, got {layers[-1]}")

    rng = np.random.default_rng(settings["seed"])
    net = SequentialNetwork.from_sizes(layers, rng, init=settings["init"], dtype=np.float32)
    out = sys.stdout
    print(
        f"{settings['data']}: {len(data.x_train):,} training and {len(data.x_test):,} test images; "
        f"network {'-'.join(map(str, layers))} ({net.num_params:,} parameters), sigmoid, MSE; "
        f"{settings['epochs']} epochs, mini-batches of {settings['batch_size']}, learning rate {settings['lr']:g}, "
        f"seed {settings['seed']}",
        file=out,
        flush=True,
    )
    epoch_times: list[float] = []
    t_epoch = time.perf_counter()

    def on_epoch(r: EpochResult) -> None:
        nonlocal t_epoch
        now = time.perf_counter()
        epoch_times.append(now - t_epoch)
        print(f"Epoch {r.epoch}: {r.correct} / {r.total}  (loss {r.train_loss:.4f}, {epoch_times[-1]:.2f} s)", file=out, flush=True)
        t_epoch = time.perf_counter()

    try:
        from threadpoolctl import threadpool_limits  # installed with scikit-learn
    except ImportError:  # pragma: no cover
        from contextlib import nullcontext as threadpool_limits  # type: ignore[assignment]
    t0 = t_epoch = time.perf_counter()
    cpu0 = time.process_time()
    with threadpool_limits(settings["threads"]):
        history = net.train(
            data.x_train,
            one_hot(data.y_train),
            settings["epochs"],
            settings["batch_size"],
            settings["lr"],
            (data.x_test, data.y_test),
            rng=rng,
            on_epoch=on_epoch,
        )
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - cpu0
    final = history[-1]
    print(
        f"Test accuracy: {final.accuracy:.2%} ({final.correct} / {final.total})"
        f" after {seconds:.1f} s ({cpu_seconds:.1f} s of CPU)",
        file=out,
    )
    if args.json:
        result = {
            **settings,
            "train_samples": len(data.x_train),
            "test_samples": len(data.x_test),
            "params": net.num_params,
            "test_accuracy": final.accuracy,
            "test_correct": final.correct,
            "accuracy_by_epoch": [r.accuracy for r in history],
            "loss_by_epoch": [round(r.train_loss, 6) for r in history],
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu_seconds, 3),
            "seconds_per_epoch": round(sum(epoch_times) / len(epoch_times), 3),
        }
        print_json(result, file=out)
    return 0
