"""The book's move-prediction experiment (ch. 6-8), reproduced on one corpus with one call.

The book trains its networks on different data sets in different chapters:
the fully connected net and the ch. 6 CNN on 9×9 MCTS self-play positions
(listings 6.14 and 6.25), the ``small`` CNN on 100 KGS games with SGD
(listings 7.21-7.22) and then with Adagrad and Adadelta (listings 7.27 and
7.28), the richer encoders of section 7.4 (``sevenplane``, ``simple``), and
``large`` with Adadelta on the seven-plane encoder (listing 8.9). Its figures are therefore
not comparable with each other, and the ch. 7 "test" figure is measured on
training data (see docs/training.md).

:func:`run_book_experiment` trains every one of those set-ups on the *same*
9×9 games with a clean split by game, so that the networks can be compared
with each other and with the book's figure for each listing:

1. the games are sampled once and encoded with each encoder the chosen rows
   use (:func:`fuseki.data.processor.process_games`; resumable): the same
   games and the same split for every encoder, so the rows differ only in
   what the book's listings change;
2. each listing's network is trained with that listing's optimiser, batch
   size and number of epochs (:func:`fuseki.train.supervised.train_supervised`;
   resumable, one folder per row). ``max_epochs`` caps the long ones (the
   book's 100 epochs of listing 6.25) on a CPU;
3. the results go to ``results.json`` and ``results.md`` (our figures beside
   the book's) and the test accuracy curves of all rows to ``curves.png``.

Killing the run and starting it again continues where it stopped: finished
shards and epochs are kept.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fuseki.data.processor import process_games
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.errors import InputError

__all__ = ["BOOK_ROWS", "BookRow", "format_results", "plot_book_curves", "run_book_experiment", "shards_folder"]


@dataclasses.dataclass(frozen=True)
class BookRow:
    """One training set-up of the book: a listing's network, optimiser and schedule, and its reported figure."""

    key: str
    listing: str
    network: str
    optimizer: str
    batch_size: int
    epochs: int
    book_data: str
    book_result: str
    #: The book's test top-1 accuracy where it reports one that is a real test figure.
    book_test_top1: float | None = None
    lr: float | None = None
    net_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The listing's encoder: ``oneplane`` (ch. 6-7), ``sevenplane`` or ``simple`` (section 7.4, listing 8.9).
    encoder: str = "oneplane"


#: The book's set-ups, in the order of the chapters. The figures are the book's (ch. 6-8).
BOOK_ROWS: tuple[BookRow, ...] = (
    BookRow(
        "fc", "6.14", "fc", "sgd", 64, 15,
        "9×9, ~40,000 positions of MCTS self-play",
        "test accuracy 2.36% (sigmoid outputs, MSE loss)", 0.0236,
    ),
    BookRow(
        "cnn", "6.25-6.26", "cnn", "sgd", 64, 100,
        "9×9, ~40,000 positions of MCTS self-play",
        "test loss 3.82, test accuracy 8.3%", 0.083,
    ),
    BookRow(
        "small-sgd", "7.21-7.22", "small", "sgd", 128, 5,
        "100 KGS games, 19×19",
        "train 98.2%, 'test' 84.6% (measured on training data)",
    ),
    BookRow(
        "small-adagrad", "7.27", "small", "adagrad", 128, 5,
        "100 KGS games, 19×19", "no figure (the book recommends it over SGD)",
    ),
    BookRow(
        "small-adadelta", "7.28", "small", "adadelta", 128, 5,
        "100 KGS games, 19×19", "no figure (the book recommends it over SGD)",
    ),
    BookRow(
        "small-sevenplane", "7.4, 7.28", "small", "adadelta", 128, 5,
        "KGS games, 19×19", "no figure ('can significantly improve the model's performance')",
        encoder="sevenplane",
    ),
    BookRow(
        "small-simple", "7.4, 7.28", "small", "adadelta", 128, 5,
        "KGS games, 19×19", "no figure ('can significantly improve the model's performance')",
        encoder="simple",
    ),
    BookRow(
        "medium-adadelta", "7.3 (medium.py)", "medium", "adadelta", 128, 5,
        "KGS games, 19×19", "no figure (the network is offered, never trained in the text)",
    ),
    BookRow(
        "large-adadelta", "8.9", "large", "adadelta", 128, 20,
        "100 KGS games, 19×19, SevenPlaneEncoder", "no figure (the bot of ch. 8)",
        encoder="sevenplane",
    ),
)


def shards_folder(out: str | os.PathLike[str], encoder: str) -> Path:
    """Where :func:`run_book_experiment` keeps the shards of one encoder (``shards`` for oneplane, as before)."""
    return Path(out) / ("shards" if encoder == "oneplane" else f"shards-{encoder}")


def _rows(keys: Sequence[str] | None) -> list[BookRow]:
    if not keys:
        return list(BOOK_ROWS)
    known = {row.key: row for row in BOOK_ROWS}
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise InputError(f"unknown row {unknown[0]!r}; the rows are {', '.join(known)}")
    return [known[k] for k in keys]


def run_book_experiment(
    corpus: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    size: int = 9,
    games: int | None = None,
    rows: Sequence[str] | None = None,
    max_epochs: int | None = None,
    test_fraction: float = 0.1,
    seed: int = 0,
    workers: int = 1,
    device: str = "auto",
    max_batches: int | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Encode ``corpus`` once and train every chosen :data:`BOOK_ROWS` set-up on it; return one dict per row.

    Writes ``out/shards`` (the encoded games), ``out/runs/<row>`` (each run's
    checkpoint, ``metrics.csv`` and curves), and ``out/results.json``,
    ``out/results.md`` and ``out/curves.png`` after each row, so a stopped
    run leaves usable results for the rows it finished.
    """
    from fuseki.train.supervised import TrainConfig, train_supervised

    chosen = _rows(rows)
    if max_epochs is not None and max_epochs < 1:
        raise InputError(f"max epochs must be at least 1, got {max_epochs}")
    emit = progress or (lambda event: None)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    processed_by_encoder: dict[str, dict[str, Any]] = {}
    for encoder in dict.fromkeys(row.encoder for row in chosen):
        t0 = time.perf_counter()
        emit({"event": "process", "corpus": str(corpus), "games": games, "encoder": encoder})
        processed_by_encoder[encoder] = process_games(
            [corpus], shards_folder(out_dir, encoder), encoder=encoder, size=size, games=games,
            test_fraction=test_fraction, seed=seed, workers=workers,
        )
        emit({"event": "processed", "encoder": encoder, "summary": processed_by_encoder[encoder],
              "seconds": round(time.perf_counter() - t0, 1)})
    results: list[dict[str, Any]] = []
    for row in chosen:
        processed = processed_by_encoder[row.encoder]
        epochs = row.epochs if max_epochs is None else min(row.epochs, max_epochs)
        config = TrainConfig(
            shards=str(shards_folder(out_dir, row.encoder)), network=row.network, out=str(out_dir / "runs" / row.key),
            net_options=dict(row.net_options), optimizer=row.optimizer, lr=row.lr,
            batch_size=row.batch_size, epochs=epochs, seed=seed, device=device, resume=True,
            max_batches=max_batches,
        )
        emit({"event": "row", "row": row.key, "epochs": epochs})
        trained = train_supervised(config, progress=lambda e, key=row.key: emit({**e, "row": key}))
        summary = trained.summary()
        results.append(
            {
                "row": row.key,
                "listing": row.listing,
                "network": row.network,
                "encoder": row.encoder,
                "optimizer": row.optimizer,
                "lr": trained.config.get("lr"),
                "batch_size": row.batch_size,
                "epochs": trained.epochs,
                "book_epochs": row.epochs,
                "parameters": trained.parameters,
                "final": trained.final,
                "best_test_top1": summary.get("best_test_top1"),
                "history": trained.metrics,
                "seconds": round(sum(m.get("seconds") or 0 for m in trained.metrics), 1),
                "book_data": row.book_data,
                "book_result": row.book_result,
                "book_test_top1": row.book_test_top1,
                "train_positions": trained.data.get("train_positions"),
                "test_positions": (trained.final or {}).get("test_positions"),
            }
        )
        data = {
            "corpus": str(corpus),
            "encoders": list(processed_by_encoder),
            "board_size": size,
            "train_positions": trained.data.get("train_positions"),
            "train_games": processed.get("train_games"),
            "test_games": processed.get("test_games"),
            "positions": processed.get("positions"),
            "skipped": processed.get("skipped"),
            "device": trained.device,
        }
        write_json_atomic(out_dir / "results.json", {"data": data, "rows": results})
        write_atomic(out_dir / "results.md", format_results(results, data).encode())
        plot_book_curves(out_dir / "curves.png", results)
    return results


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"


def format_results(results: Sequence[dict[str, Any]], data: dict[str, Any] | None = None) -> str:
    """A markdown table: each row's final train/test accuracy beside the book's figure for that listing."""
    lines = []
    if data:
        lines.append(
            f"Data: {data.get('corpus')}, {data.get('board_size')}×"
            f"{data.get('board_size')}, {data.get('train_games')} training and {data.get('test_games')} test games "
            f"(split by game), {data.get('train_positions')} training positions; device {data.get('device')}."
        )
        lines.append("")
    lines.append(
        "| listing | network | encoder | optimizer, batch | epochs (book) | train top-1 | test top-1 | test top-5 "
        "| best test top-1 (epoch) | time | the book's data | the book's result |"
    )
    lines.append("|---|---|---|---|---|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        final = r.get("final") or {}
        best = r.get("best_test_top1") or {}
        best_text = f"{_pct(best.get('test_top1'))} ({best.get('epoch')})" if best else "-"
        lines.append(
            f"| {r['listing']} | `{r['network']}` | {r.get('encoder', 'oneplane')} | {r['optimizer']}, {r['batch_size']} "
            f"| {r['epochs']} ({r['book_epochs']}) "
            f"| {_pct(final.get('train_top1'))} | {_pct(final.get('test_top1'))} | {_pct(final.get('test_top5'))} "
            f"| {best_text} | {r.get('seconds', 0):.0f} s | {r['book_data']} | {r['book_result']} |"
        )
    return "\n".join(lines) + "\n"


def plot_book_curves(path: str | os.PathLike[str], results: Sequence[dict[str, Any]]) -> None:
    """Test top-1 accuracy per epoch for every row on one plot, with the book's test figures as dotted lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fuseki.util.atomic import write_atomic

    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    for i, r in enumerate(results):
        history = [m for m in r.get("history", []) if m.get("test_top1") is not None]
        if not history:
            continue
        color = f"C{i % 10}"
        label = f"{r['listing']} {r['network']} ({r['optimizer']}, {r.get('encoder', 'oneplane')})"
        ax.plot([m["epoch"] for m in history], [100 * m["test_top1"] for m in history],
                marker="o", markersize=3, color=color, label=label)
        if r.get("book_test_top1") is not None:
            ax.axhline(100 * r["book_test_top1"], color=color, linestyle=":", linewidth=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("test top-1 accuracy (%)")
    ax.set_title("Move prediction on held-out games (dotted: the book's test figures)")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:  # rows with no test figure yet draw no curve
        ax.legend(fontsize=8)
    fig.tight_layout()
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    write_atomic(path, buffer.getvalue())


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read ``results.json`` written by :func:`run_book_experiment`."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)
