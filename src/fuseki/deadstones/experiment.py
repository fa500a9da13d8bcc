"""The thesis's experiment: every network × training method, our figures beside the thesis's tables.

Guisov (2006), chapter 2, trains five networks (33-2-1, 33-12-1,
33-16-8-4-1, 33-32-1, 89-32-1) with five methods (iRPROP+, RPROP, SARPROP
at T = 0.01, 0.015, 0.02) and prints the final and minimum RMS errors on the
training and test sets. :data:`THESIS_RESULTS` holds every figure of its
tables 1-5 and the two results it only states in the text, each with its
table, section and page; :func:`run_experiment` trains the same grid on a
block dataset; :func:`format_table` puts both side by side in markdown.

The thesis's data (its §1.1, §2.1, §2.2): 10,247 finished KGS games of 4-7 dan
players whose dead stones the players marked. The "small set" of §2.1 is
1,024 of those games, 37,034 blocks; the "full set" of §2.2 is all of them,
367,726 blocks. In both, every 10th block is a test block. The thesis gives
no per-row accuracy; its conclusion (p. 40) says the best classifiers call
more than 99.5 % of blocks right (:data:`THESIS_BLOCKS_CORRECT`).

A run of the whole grid is long, so :func:`run_experiment` can keep its
state in a folder: finished runs in ``results.json``, the current run in a
checkpoint; calling it again with the same folder skips the finished runs
and resumes the current one.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from fuseki.util.atomic import write_json_atomic
from fuseki.deadstones.dataset import BlockDataset
from fuseki.deadstones.mlp import THESIS_SHAPES, parse_shape
from fuseki.deadstones.rprop import ALGORITHMS, algorithm_label
from fuseki.deadstones.training import TrainSettings, train_on_dataset
from fuseki.util.errors import InputError

__all__ = [
    "DEFAULT_GRID",
    "RESULTS_JSON",
    "THESIS_BLOCKS_CORRECT",
    "THESIS_DATA",
    "THESIS_RESULTS",
    "ThesisRow",
    "format_table",
    "run_experiment",
    "thesis_row_for",
]

RESULTS_JSON = "results.json"
#: "The best classifiers ... determine the status of more than 99.5 % of blocks" (conclusion, p. 40).
THESIS_BLOCKS_CORRECT = 0.995
#: The thesis's two data sets (§2.1, p. 27; §2.2, p. 34).
THESIS_DATA: dict[str, dict[str, int]] = {
    "small": {"games": 1024, "blocks": 37034},
    "full": {"games": 10247, "blocks": 367726},
}

Progress = Callable[[dict[str, Any]], None]


@dataclasses.dataclass(frozen=True)
class ThesisRow:
    """One row of a thesis table: a network trained by one method, and the errors it printed.

    ``train_rms``/``test_rms`` are the final (or mean final) errors,
    ``*_min`` the minimum ones where the table has them. ``epochs`` is what
    ``epochs_kind`` says: the mean number of epochs trained (``"mean"``), a
    fixed budget (``"budget"``), or one network's epoch (``"single"``).
    ``page`` is inferred from the thesis's table of contents (the translated
    text has no page breaks), so it may be off by one.
    """

    source: str
    section: str
    page: int
    data: str
    network: str
    algorithm: str
    epochs: float | None
    epochs_kind: str
    train_rms: float | None = None
    train_rms_min: float | None = None
    test_rms: float | None = None
    test_rms_min: float | None = None
    blocks_correct: float | None = None
    games_correct: float | None = None
    runs: int | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The row as a plain dict."""
        return dataclasses.asdict(self)

    def figures(self) -> int:
        """How many error figures the row has (to pick the fullest row for a network and method)."""
        return sum(v is not None for v in (self.train_rms, self.train_rms_min, self.test_rms, self.test_rms_min))


_ORDER = ("irprop+", "rprop", "sarprop-0.01", "sarprop-0.015", "sarprop-0.02")


def _table(
    source: str,
    section: str,
    page: int,
    data: str,
    network: str,
    columns: Sequence[str],
    values: Sequence[Sequence[float]],
    **common: Any,
) -> list[ThesisRow]:
    """Rows of one thesis table; ``values`` in the thesis's method order (:data:`_ORDER`)."""
    return [
        ThesisRow(source, section, page, data, network, algo, **common, **dict(zip(columns, row, strict=True)))
        for algo, row in zip(_ORDER, values, strict=True)
    ]


_SMALL_NOTE = "small set: 1,024 games, 37,034 blocks"

#: Every figure of the thesis's result tables 1-5, plus the two results stated in its text.
THESIS_RESULTS: tuple[ThesisRow, ...] = tuple(
    # Table 1 (§2.1.1, p. 28): 33-2-1, mean of ten runs, trained with no epoch limit
    # "until the error on the training set stopped changing"; mean train/test error and mean epochs.
    _table(
        "Table 1", "2.1.1", 28, "small", "33-2-1",
        ("train_rms", "test_rms", "epochs"),
        [(0.066112, 0.066501, 1601), (0.06355, 0.064043, 2282), (0.071659, 0.072811, 1344),
         (0.069932, 0.071709, 1558), (0.066833, 0.069515, 1828)],
        epochs_kind="mean",
        runs=10,
        note=_SMALL_NOTE + "; mean of 10 runs, trained until the train error stopped changing",
    )
    # Table 2 (§2.1.2, p. 29): 33-12-1, 200 epochs, minimum and final averaged errors.
    + _table(
        "Table 2", "2.1.2", 29, "small", "33-12-1",
        ("train_rms_min", "train_rms", "test_rms_min", "test_rms"),
        [(0.053715, 0.053802, 0.062031, 0.062516), (0.055154, 0.055154, 0.0619, 0.062014),
         (0.061279, 0.061812, 0.06814, 0.068674), (0.061899, 0.062699, 0.067938, 0.068462),
         (0.060015, 0.060034, 0.067023, 0.067398)],
        epochs=200, epochs_kind="budget", note=_SMALL_NOTE + "; averaged errors",
    )
    # Table 3 (§2.1.3, p. 30): final errors of 33-12-1 (as in table 2) and 33-16-8-4-1, 200 epochs.
    + _table(
        "Table 3", "2.1.3", 30, "small", "33-12-1",
        ("train_rms", "test_rms"),
        [(0.053802, 0.062516), (0.055154, 0.062014), (0.061812, 0.068674), (0.062699, 0.068462), (0.060034, 0.067398)],
        epochs=200, epochs_kind="budget", note=_SMALL_NOTE + "; repeats table 2's final errors",
    )
    + _table(
        "Table 3", "2.1.3", 30, "small", "33-16-8-4-1",
        ("train_rms", "test_rms"),
        [(0.052609, 0.068566), (0.056276, 0.069749), (0.060984, 0.069668), (0.06134, 0.072975), (0.060922, 0.071705)],
        epochs=200, epochs_kind="budget", note=_SMALL_NOTE,
    )
    # Table 4 (§2.1.4, p. 31): final errors of 33-12-1 (as in table 2) and 33-32-1, 200 epochs.
    + _table(
        "Table 4", "2.1.4", 31, "small", "33-12-1",
        ("train_rms", "test_rms"),
        [(0.053802, 0.062516), (0.055154, 0.062014), (0.061812, 0.068674), (0.062699, 0.068462), (0.060034, 0.067398)],
        epochs=200, epochs_kind="budget", note=_SMALL_NOTE + "; repeats table 2's final errors",
    )
    + _table(
        "Table 4", "2.1.4", 31, "small", "33-32-1",
        ("train_rms", "test_rms"),
        [(0.038431, 0.059191), (0.045037, 0.059953), (0.055212, 0.064346), (0.056445, 0.064911), (0.050157, 0.060596)],
        epochs=200, epochs_kind="budget", note=_SMALL_NOTE + "; the thesis's best test error (iRPROP+ 0.059191)",
    )
    # §2.1.5 (p. 32), text only: 89-32-1 with iRPROP+; one network reached its minimum error 0.06 in 85 epochs.
    + [
        ThesisRow(
            "text", "2.1.5", 32, "small", "89-32-1", "irprop+", 85, "single", test_rms_min=0.06, runs=1,
            note=_SMALL_NOTE + "; one network's minimum error (diagram 5); budget 200 epochs",
        )
    ]
    # §2.2.1 (p. 34), text only: 33-2-1 on the full set, iRPROP+: 2,200 epochs on average (718 to 4,805).
    + [
        ThesisRow(
            "text", "2.2.1", 34, "full", "33-2-1", "irprop+", 2200, "mean", runs=10,
            note="full set; stop after 100 epochs without a new test minimum; fastest 718, slowest 4805 epochs",
        )
    ]
    # Table 5 (§2.2.2, p. 36): 33-12-1 on the full set (10,247 games, 367,726 blocks), ten networks per method,
    # stop after 100 epochs without a new minimum; mean final and minimum errors, "mean training time".
    + _table(
        "Table 5", "2.2.2", 36, "full", "33-12-1",
        ("train_rms", "train_rms_min", "test_rms", "test_rms_min", "epochs"),
        [(0.063397, 0.062362, 0.070372, 0.068914, 2764), (0.06446, 0.062941, 0.071167, 0.070053, 2263),
         (0.063477, 0.059786, 0.070229, 0.068234, 1815), (0.063859, 0.060899, 0.070952, 0.068375, 1873),
         (0.064539, 0.063478, 0.070636, 0.06861, 1609)],
        epochs_kind="mean", runs=10,
        note="full set: 10,247 games, 367,726 blocks; 'mean training time' read as epochs; minimum over the ten runs",
    )
)

#: The grid the thesis trains on the small set (chapter 2.1): every network × every method.
DEFAULT_GRID: tuple[tuple[str, str], ...] = tuple((net, algo) for net in THESIS_SHAPES for algo in _ORDER)


def thesis_row_for(
    network: str, algorithm: str, data: str = "small", thesis: Iterable[ThesisRow] = THESIS_RESULTS
) -> ThesisRow | None:
    """The fullest thesis row for a network and method on a data set (``"small"`` or ``"full"``), or None.

    >>> row = thesis_row_for("33-32-1", "irprop+")
    >>> row.source, row.train_rms, row.test_rms
    ('Table 4', 0.038431, 0.059191)
    """
    rows = [r for r in thesis if r.network == network and r.algorithm == algorithm and r.data == data]
    return max(rows, key=lambda r: r.figures(), default=None)  # max keeps the first of equals


def _grid(rows: Iterable[tuple[str, str] | ThesisRow | str] | None) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in DEFAULT_GRID if rows is None else rows:
        if isinstance(item, ThesisRow):
            pair = (item.network, item.algorithm)
        elif isinstance(item, str):
            net, _, algo = item.partition("/")
            pair = (net, algo)
        else:
            pair = (str(item[0]), str(item[1]))
        parse_shape(pair[0])
        algorithm_label(pair[1])
        if pair not in out:
            out.append(pair)
    if not out:
        raise InputError("run_experiment needs at least one (network, algorithm) pair")
    return out


def _run_name(network: str, algorithm: str, run: int) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]", "_", f"{network}_{algorithm}_run{run}")


def run_experiment(
    dataset: BlockDataset,
    rows: Iterable[tuple[str, str] | ThesisRow | str] | None = None,
    *,
    epochs: int = 200,
    seed: int = 0,
    runs: int = 1,
    patience: int | None = None,
    device: str = "cpu",
    out_dir: str | os.PathLike[str] | None = None,
    save_models: bool = False,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Train each (network, algorithm) of ``rows`` (default :data:`DEFAULT_GRID`) ``runs`` times on ``dataset``.

    ``rows`` items are ``(network, algorithm)`` pairs, ``"33-32-1/irprop+"``
    strings or :class:`ThesisRow` objects. Run ``k`` uses seed ``seed + k``.
    Returns one dict per run (:meth:`TrainResult.summary` plus ``run``).
    With ``out_dir``, finished runs go to ``results.json`` (written
    atomically after each run), the current run checkpoints to
    ``<name>.pt``, ``save_models`` writes each network as
    ``<name>.safetensors``, and a second call with the same folder and
    settings skips what is done and resumes the rest. ``progress`` gets
    ``{"event": "run", ...}`` before each run, the trainer's events with
    ``network``, ``algorithm`` and ``run`` added, and ``{"event": "result",
    ...}`` after each.
    """
    if not isinstance(dataset, BlockDataset):
        raise TypeError("run_experiment needs a BlockDataset")
    if runs < 1:
        raise InputError(f"runs must be >= 1, got {runs}")
    grid = _grid(rows)
    emit = progress or (lambda event: None)
    folder = Path(out_dir) if out_dir is not None else None
    done: dict[str, dict[str, Any]] = {}
    fixed = {"epochs": epochs, "patience": patience, "blocks": len(dataset)}
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / RESULTS_JSON
        if path.exists():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                done = {r["name"]: r for r in saved["results"]}
                old = saved["settings"]
            except (ValueError, KeyError, TypeError):
                raise InputError(f"{path}: not a dead-stone experiment results file") from None
            if old != fixed:
                raise InputError(f"{path} was made with {old}, not {fixed}: use another folder")
    results: list[dict[str, Any]] = []
    total = len(grid) * runs
    index = 0
    for network, algorithm in grid:
        for run in range(runs):
            index += 1
            name = _run_name(network, algorithm, run)
            settings = TrainSettings(
                network=network, algorithm=algorithm, epochs=epochs, patience=patience, seed=seed + run, device=device
            )
            if name in done and done[name].get("seed") == settings.seed:
                results.append(done[name])
                emit({"event": "result", "index": index, "total": total, "skipped": True, **done[name]})
                continue
            tag = {"network": network, "algorithm": algorithm, "run": run}
            emit({"event": "run", "index": index, "total": total, **tag})

            def forward(event: dict[str, Any], tag: dict[str, Any] = tag) -> None:
                emit({**event, **tag})

            checkpoint = folder / f"{name}.pt" if folder is not None else None
            result = train_on_dataset(dataset, settings, checkpoint=checkpoint, resume=True, progress=forward)
            summary = {"name": name, "run": run, **result.summary()}
            if folder is not None and save_models:
                result.save(folder / f"{name}.safetensors")
            results.append(summary)
            if folder is not None:
                done[name] = summary
                write_json_atomic(folder / RESULTS_JSON, {"settings": fixed, "results": list(done.values())})
            emit({"event": "result", "index": index, "total": total, "skipped": False, **summary})
    return results


def _mean(values: Iterable[Any]) -> float | None:
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(xs) / len(xs) if xs else None


def _fmt(value: float | None, digits: int = 6) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f} %"


def format_table(
    ours: Sequence[dict[str, Any]], thesis: Iterable[ThesisRow] = THESIS_RESULTS, *, data: str = "small"
) -> str:
    """A markdown table: our figures (mean over runs) beside the thesis's for the same network and method.

    ``data`` picks which thesis set to compare with (``"small"``: tables 1-4,
    ``"full"``: table 5). Our "min test RMS" is the best epoch's test RMS;
    blocks and games correct are on the test split at that epoch.
    """
    if data not in THESIS_DATA:
        raise InputError(f"data must be 'small' or 'full', got {data!r}")
    thesis = tuple(thesis)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in ours:
        groups.setdefault((row["network"], row["algorithm"]), []).append(row)
    head = (
        "| network | algorithm | runs | epochs | train RMS | thesis | test RMS | thesis | min test RMS | thesis "
        "| blocks correct | games correct | thesis source |"
    )
    lines = [head, "|" + "---|" * 13]
    for (network, algorithm), rs in groups.items():
        t = thesis_row_for(network, algorithm, data, thesis)
        epochs = _mean(r.get("epochs") for r in rs)
        if t is None:
            t_epochs, source = "", "—"
        else:
            t_epochs = f" (thesis {t.epochs:g} {t.epochs_kind})" if t.epochs is not None else ""
            source = f"{t.source}, §{t.section}, p. {t.page}"
        label = ALGORITHMS.get(algorithm, algorithm)
        lines.append(
            "| "
            + " | ".join(
                [
                    network,
                    label,
                    str(len(rs)),
                    (f"{epochs:.0f}" if epochs is not None else "—") + t_epochs,
                    _fmt(_mean(r.get("train_rms") for r in rs)),
                    _fmt(t.train_rms if t else None),
                    _fmt(_mean(r.get("test_rms") for r in rs)),
                    _fmt(t.test_rms if t else None),
                    _fmt(_mean(r.get("test_rms_min") for r in rs)),
                    _fmt(t.test_rms_min if t else None),
                    _pct(_mean(r.get("blocks_correct") for r in rs)),
                    _pct(_mean(r.get("games_correct") for r in rs)),
                    source,
                ]
            )
            + " |"
        )
    sizes = THESIS_DATA[data]
    lines.append("")
    lines.append(
        f"Thesis ({data} set: {sizes['games']:,} KGS games, {sizes['blocks']:,} blocks, "
        "every 10th block a test block). "
        f"It gives no per-row accuracy; its best classifiers call more than {100 * THESIS_BLOCKS_CORRECT:.1f} % "
        "of blocks right (conclusion, p. 40)."
    )
    return "\n".join(lines)
