"""Full-batch training of a block classifier with one of the thesis's RPROP methods.

What the thesis does (Guisov 2006) and where:

- every 10th feature vector is a test vector; one pass over the data gives
  the RMS error on both sets (§1.2.1, p. 15), so each epoch here evaluates
  train and test with the *same* weights, then changes them once (§1.4.2:
  "first the network is applied to every training object ... then the
  weights are updated once");
- the error is "the square root of the normalised sum of squared deviations
  of the classifier's output from the right one" (§2.1.1, pp. 27-28), the RMS;
- the stop rule on the full set: "training went on until the error on the
  validation set stopped falling: if the error was above the minimum reached
  within 100 epochs, training stopped" (§2.2.1, p. 34) -- ``patience=100``;
  the small-set runs used fixed budgets (200 epochs, §2.1.2-2.1.5);
- its tables give the final and the minimum error of each run (tables 2-5);
  we keep the weights of the epoch with the lowest test RMS (the thesis's
  test set is its validation set) and report both.

On top, each epoch records the fraction of blocks classified right
(P(dead) > 0.5 means dead) and of games whose blocks are all right (on each
split, a game counts with the blocks of it that the split holds), and the
run can checkpoint and resume: a checkpoint (``torch.save`` of plain tensors
and containers, read back with ``weights_only=True``, written atomically)
holds the weights, the optimiser state (step sizes, previous gradients,
SARPROP's noise generator), the best weights and the history, so a resumed
run ends with exactly the weights and history of one never stopped.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(200, 33)).astype(np.float32)
>>> y = (x[:, 0] > 0).astype(np.uint8)
>>> result = train_classifier(x, y, settings=TrainSettings(network="33-2-1", algorithm="irprop+", epochs=30))
>>> result.best["test_rms"] < result.history[0]["test_rms"], len(result.history)
(True, 30)
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import hashlib
import io
import math
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fuseki.deadstones.dataset import BlockDataset, held_out_mask
from fuseki.deadstones.mlp import DeadStoneMLP, feature_set_for, parse_shape
from fuseki.deadstones.model import DeadStoneClassifier, save_classifier
from fuseki.deadstones.rprop import ALGORITHMS, DELTA0, make_optimizer
from fuseki.util.atomic import write_atomic
from fuseki.util.device import select_device
from fuseki.util.errors import InputError

__all__ = [
    "CHECKPOINT_FORMAT",
    "HISTORY_COLUMNS",
    "TrainResult",
    "TrainSettings",
    "block_accuracy",
    "game_accuracy",
    "load_training_checkpoint",
    "rms",
    "train_classifier",
    "train_on_dataset",
    "write_history_csv",
]

CHECKPOINT_FORMAT = "fuseki-deadstones-checkpoint"
CHECKPOINT_VERSION = 1
#: Columns of a history row (fractions in [0, 1]; games columns are None without game indices).
HISTORY_COLUMNS = (
    "epoch",
    "train_rms",
    "test_rms",
    "train_blocks_correct",
    "test_blocks_correct",
    "train_games_correct",
    "test_games_correct",
    "seconds",
)
#: Settings that must match to resume (``epochs``, ``patience`` and ``checkpoint_every`` may change).
_RESUME_KEYS = ("network", "algorithm", "seed", "delta0", "every")

Progress = Callable[[dict[str, Any]], None]


@dataclasses.dataclass
class TrainSettings:
    """One training run. ``patience=None`` runs all ``epochs``; the thesis's full-set rule is ``patience=100``."""

    network: str = "33-32-1"
    algorithm: str = "irprop+"
    epochs: int = 200
    patience: int | None = None
    seed: int = 0
    #: Initial RPROP step (not in the thesis; Riedmiller and Braun's 0.1).
    delta0: float = DELTA0
    #: Every ``every``-th vector is held out for testing (the thesis: 10).
    every: int = 10
    device: str = "cpu"
    #: Write the checkpoint every this many epochs (and at the end).
    checkpoint_every: int = 10

    def check(self) -> None:
        """Raise ``ValueError`` (one line) for a setting that cannot work."""
        parse_shape(self.network)
        if self.algorithm not in ALGORITHMS:
            raise InputError(f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        if self.epochs < 1:
            raise InputError(f"epochs must be >= 1, got {self.epochs}")
        if self.patience is not None and self.patience < 1:
            raise InputError(f"patience must be >= 1 (or None), got {self.patience}")
        if self.every < 2:
            raise InputError(f"every must be >= 2, got {self.every}")
        if self.checkpoint_every < 1:
            raise InputError(f"checkpoint_every must be >= 1, got {self.checkpoint_every}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able settings."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class TrainResult:
    """A finished run: the network with its best weights (CPU, eval mode), the history and where it stopped."""

    net: DeadStoneMLP
    history: list[dict[str, Any]]
    best_epoch: int
    #: ``"epochs"`` (budget used up) or ``"patience"`` (test RMS stopped falling).
    stopped: str
    settings: TrainSettings
    #: Provenance of the data: blocks, split sizes, feature set, sha256, dataset meta.
    data: dict[str, Any]

    @property
    def best(self) -> dict[str, Any]:
        """The history row of the epoch with the lowest test RMS (whose weights :attr:`net` holds)."""
        return self.history[self.best_epoch - 1]

    @property
    def final(self) -> dict[str, Any]:
        """The last history row."""
        return self.history[-1]

    def summary(self) -> dict[str, Any]:
        """Final and minimum errors and the best epoch's accuracies, as the thesis's tables report them."""
        best, final = self.best, self.final
        return {
            "network": self.settings.network,
            "features": self.data.get("feature_set"),
            "algorithm": self.settings.algorithm,
            "seed": self.settings.seed,
            "epochs": len(self.history),
            "best_epoch": self.best_epoch,
            "stopped": self.stopped,
            "train_rms": final["train_rms"],
            "train_rms_min": min(r["train_rms"] for r in self.history),
            "test_rms": final["test_rms"],
            "test_rms_min": best["test_rms"],
            "blocks_correct": best["test_blocks_correct"],
            "games_correct": best["test_games_correct"],
            "seconds": round(sum(r["seconds"] for r in self.history), 3),
        }

    def classifier(self) -> DeadStoneClassifier:
        """The trained network as a :class:`~fuseki.deadstones.model.DeadStoneClassifier`."""
        return DeadStoneClassifier(self.net, feature_set=self.data.get("feature_set") or None)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the best network as a dead-stone model file, with this run's figures and provenance."""
        best = self.best
        save_classifier(
            path,
            self.classifier(),
            algorithm=self.settings.algorithm,
            epochs=len(self.history),
            best_epoch=self.best_epoch,
            train_rms=best["train_rms"],
            test_rms=best["test_rms"],
            blocks_correct=best["test_blocks_correct"],
            games_correct=best["test_games_correct"],
            data=self.data,
            training={"settings": self.settings.to_dict(), "stopped": self.stopped},
        )


# ---- measures ----------------------------------------------------------------------------


def rms(predicted: torch.Tensor | np.ndarray, target: torch.Tensor | np.ndarray) -> float:
    """The thesis's error: ``sqrt(mean((predicted - target)²))``.

    >>> rms(np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    0.7071067811865476
    """
    p = _tensor(predicted).to(torch.float64)
    t = _tensor(target).to(device=p.device, dtype=torch.float64)
    if p.shape != t.shape or p.numel() == 0:
        raise InputError(f"rms needs two non-empty arrays of one shape, got {tuple(p.shape)} and {tuple(t.shape)}")
    return math.sqrt(float(((p - t) ** 2).mean()))


def block_accuracy(p_dead: torch.Tensor | np.ndarray, dead: torch.Tensor | np.ndarray, threshold: float = 0.5) -> float:
    """Fraction of blocks whose call (dead when P(dead) > ``threshold``) matches the label.

    >>> block_accuracy(np.array([0.9, 0.2, 0.6]), np.array([1, 0, 0]))
    0.6666666666666666
    """
    right = _right(p_dead, dead, threshold)
    return float(right.to(torch.float64).mean()) if right.numel() else math.nan


def game_accuracy(
    p_dead: torch.Tensor | np.ndarray,
    dead: torch.Tensor | np.ndarray,
    game: torch.Tensor | np.ndarray,
    threshold: float = 0.5,
) -> float:
    """Fraction of games all of whose blocks (among those given) are called right.

    >>> game_accuracy(np.array([0.9, 0.2, 0.6]), np.array([1, 0, 0]), np.array([0, 0, 1]))
    0.5
    """
    right = _right(p_dead, dead, threshold)
    g = _tensor(game).to(right.device)
    if g.shape != right.shape:
        raise InputError(f"game has shape {tuple(g.shape)}, the predictions {tuple(right.shape)}")
    _, index = torch.unique(g, return_inverse=True)
    return _games_right(right, index)


def _tensor(a: torch.Tensor | np.ndarray) -> torch.Tensor:
    """A tensor of ``a``; numpy input is copied (dataset arrays are read-only, which torch warns about)."""
    return a if isinstance(a, torch.Tensor) else torch.from_numpy(np.array(a))


def _right(p_dead: torch.Tensor | np.ndarray, dead: torch.Tensor | np.ndarray, threshold: float) -> torch.Tensor:
    p = _tensor(p_dead)
    d = _tensor(dead).to(p.device)
    if p.shape != d.shape:
        raise InputError(f"predictions have shape {tuple(p.shape)}, labels {tuple(d.shape)}")
    return (p > threshold) == (d > 0.5)


def _games_right(right: torch.Tensor, game_index: torch.Tensor) -> float:
    """``game_index`` is 0..G-1 per block; a game is right when none of its blocks is wrong."""
    if right.numel() == 0:
        return math.nan
    games = int(game_index.max()) + 1
    wrong = torch.bincount(game_index[~right], minlength=games)
    return float((wrong == 0).to(torch.float64).mean())


# ---- training ----------------------------------------------------------------------------


def _fingerprint(features: np.ndarray, dead: np.ndarray, game: np.ndarray | None) -> str:
    h = hashlib.sha256()
    for a in (features, dead) + ((game,) if game is not None else ()):
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).data)
    return h.hexdigest()


def load_training_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a training checkpoint (``weights_only=True``: no code runs); ``ValueError`` if it is not one."""
    try:
        ckpt = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise InputError(f"{path}: no such checkpoint") from None
    except Exception as e:  # UnpicklingError, RuntimeError (truncated zip), ...
        first = str(e).splitlines()[0] if str(e) else repr(e)
        raise InputError(f"{path}: not a readable dead-stone training checkpoint ({first})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise InputError(f"{path}: not a dead-stone training checkpoint")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise InputError(f"{path}: checkpoint version {ckpt.get('version')}, this fuseki reads {CHECKPOINT_VERSION}")
    return ckpt


def _check_arrays(features: Any, dead: Any, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    x = np.asarray(features)
    if x.ndim != 2 or x.shape[0] == 0 or not np.issubdtype(x.dtype, np.number):
        raise InputError(f"features must be a numeric array [n, k] with n > 0, got shape {list(x.shape)}")
    if not np.all(np.isfinite(x)):
        raise InputError("features hold NaN or infinity")
    y = np.asarray(dead)
    if y.shape != (x.shape[0],):
        raise InputError(f"dead must have one label per block ({x.shape[0]}), got shape {list(y.shape)}")
    if not np.all((y == 0) | (y == 1)):
        raise InputError("dead labels must be 0 (alive) or 1 (dead)")
    g = None
    if game is not None:
        g = np.asarray(game)
        if g.shape != y.shape or not np.issubdtype(g.dtype, np.integer):
            raise InputError(f"game must hold one integer per block ({x.shape[0]}), got {g.dtype} {list(g.shape)}")
    return x, y.astype(np.uint8), g


def train_classifier(
    features: np.ndarray,
    dead: np.ndarray,
    game: np.ndarray | None = None,
    *,
    settings: TrainSettings | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: Progress | None = None,
    data_info: Mapping[str, Any] | None = None,
) -> TrainResult:
    """Train ``settings.network`` on blocks ``features`` ``[n, k]`` with labels ``dead`` (1 = dead).

    Rows ``every-1, 2·every-1, ...`` are the test set. ``game`` (one index
    per block) enables the games-correct columns. With ``checkpoint``, the
    run's state is written there every ``checkpoint_every`` epochs and at
    the end; an existing checkpoint is continued only with ``resume=True``
    and the same network, algorithm, seed, step and split, on the same data
    (``ValueError`` otherwise). ``progress(event)`` gets ``{"event":
    "start"}``, one ``{"event": "epoch", **row}`` per epoch and ``{"event":
    "end"}``; an exception from it stops the run (resume from the last
    checkpoint).
    """
    settings = settings or TrainSettings()
    settings.check()
    emit = progress or (lambda event: None)
    x, y, g = _check_arrays(features, dead, game)
    sizes = parse_shape(settings.network)
    if sizes[0] != x.shape[1]:
        raise InputError(f"network {settings.network} reads {sizes[0]} features per block, the data has {x.shape[1]}")
    n = x.shape[0]
    mask = held_out_mask(n, settings.every)
    if mask.sum() == 0:
        raise InputError(
            f"{n} blocks leave no test block (every {settings.every}th is held out): need at least {settings.every}"
        )
    data = {
        "blocks": int(n),
        "train_blocks": int((~mask).sum()),
        "test_blocks": int(mask.sum()),
        "feature_set": feature_set_for(x.shape[1]) or "",
        "sha256": _fingerprint(x, y, g),
        **dict(data_info or {}),
    }

    device = select_device(settings.device)
    dtype = torch.float32 if device.type == "mps" else torch.float64
    # Copies: dataset arrays are read-only, and the net computes in float64 anyway.
    x_all = torch.tensor(x, dtype=dtype)
    y_all = torch.tensor(y, dtype=dtype)
    m = torch.as_tensor(mask)
    x_tr, x_te = x_all[~m].to(device), x_all[m].to(device)
    y_tr, y_te = y_all[~m].to(device), y_all[m].to(device)
    g_tr = g_te = None
    if g is not None:
        g_tr = torch.as_tensor(np.unique(g[~mask], return_inverse=True)[1].reshape(-1), device=device)
        g_te = torch.as_tensor(np.unique(g[mask], return_inverse=True)[1].reshape(-1), device=device)

    net = DeadStoneMLP(settings.network, seed=settings.seed, dtype=dtype)
    net.fit_scaling(x_all[~m])
    net.to(device)
    optimizer = make_optimizer(settings.algorithm, net.parameters(), seed=settings.seed, delta0=settings.delta0)

    history: list[dict[str, Any]] = []
    best_state = _copy_state(net)
    best_epoch, best_test = 0, math.inf
    start = 0
    stopped = "epochs"
    ckpt_path = Path(checkpoint) if checkpoint is not None else None
    saved = settings.to_dict()
    if ckpt_path is not None and ckpt_path.exists():
        if not resume:
            raise InputError(f"{ckpt_path} already exists; resume it (resume=True) or choose another checkpoint path")
        ckpt = load_training_checkpoint(ckpt_path)
        for key in _RESUME_KEYS:
            if ckpt["settings"].get(key) != saved[key]:
                old = ckpt["settings"].get(key)
                raise InputError(f"cannot resume {ckpt_path}: it was made with {key}={old!r}, not {saved[key]!r}")
        if ckpt["data"].get("sha256") != data["sha256"]:
            raise InputError(f"cannot resume {ckpt_path}: it was trained on other data")
        net.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        best_state = {k: v.to(device) for k, v in ckpt["best_model"].items()}
        best_epoch = int(ckpt["best_epoch"])
        history = [dict(r) for r in ckpt["history"]]
        best_test = history[best_epoch - 1]["test_rms"] if best_epoch else math.inf
        start = int(ckpt["epoch"])

    def write_checkpoint(epoch: int) -> None:
        if ckpt_path is None:
            return
        state = {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "epoch": epoch,
            "settings": saved,
            "data": {k: v for k, v in data.items() if isinstance(v, (str, int, float, bool)) or v is None},
            "model": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
            "optimizer": optimizer.state_dict(),
            "best_model": {k: v.detach().cpu().clone() for k, v in best_state.items()},
            "best_epoch": best_epoch,
            "history": history,
        }
        ckpt_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(ckpt_path, lambda f: torch.save(state, f))

    emit(
        {
            "event": "start",
            "network": settings.network,
            "algorithm": settings.algorithm,
            "epochs": settings.epochs,
            "start_epoch": start,
            "resumed": start > 0,
            "parameters": net.num_parameters(),
            **{k: data[k] for k in ("train_blocks", "test_blocks", "feature_set")},
        }
    )
    if start and settings.patience is not None and start - best_epoch >= settings.patience:
        stopped = "patience"
        start = max(start, settings.epochs)
    for epoch in range(start, settings.epochs):
        t0 = time.perf_counter()
        train_out: list[torch.Tensor] = []

        def closure(train_out: list[torch.Tensor] = train_out) -> float:  # bound now: called within this epoch
            optimizer.zero_grad(set_to_none=False)
            p = net(x_tr)
            mse = ((p - y_tr) ** 2).mean()
            mse.backward()
            train_out.append(p.detach())
            return math.sqrt(float(mse.detach()))

        with torch.no_grad():
            p_te = net(x_te)
        state_before = _copy_state(net)
        train_rms = float(optimizer.step(closure))  # type: ignore[arg-type]
        p_tr = train_out[-1]
        test_rms = math.sqrt(float(((p_te - y_te) ** 2).mean()))
        row = {
            "epoch": epoch + 1,
            "train_rms": train_rms,
            "test_rms": test_rms,
            "train_blocks_correct": float(_right(p_tr, y_tr, 0.5).to(torch.float64).mean()),
            "test_blocks_correct": float(_right(p_te, y_te, 0.5).to(torch.float64).mean()),
            "train_games_correct": None if g_tr is None else _games_right(_right(p_tr, y_tr, 0.5), g_tr),
            "test_games_correct": None if g_te is None else _games_right(_right(p_te, y_te, 0.5), g_te),
            "seconds": round(time.perf_counter() - t0, 4),
        }
        if not (math.isfinite(train_rms) and math.isfinite(test_rms)):
            raise InputError(f"training diverged at epoch {epoch + 1} (train RMS {train_rms}, test RMS {test_rms})")
        history.append(row)
        if test_rms < best_test:
            best_test, best_epoch, best_state = test_rms, epoch + 1, state_before
        done = settings.patience is not None and (epoch + 1) - best_epoch >= settings.patience
        if done or (epoch + 1) % settings.checkpoint_every == 0 or epoch + 1 == settings.epochs:
            write_checkpoint(epoch + 1)
        emit({"event": "epoch", "epochs": settings.epochs, **row})
        if done:
            stopped = "patience"
            break

    if not history:
        raise InputError("no epochs were run (epochs <= the checkpoint's epoch and no history)")
    net.load_state_dict(best_state)
    net.to("cpu").eval()
    result = TrainResult(net=net, history=history, best_epoch=best_epoch, stopped=stopped, settings=settings, data=data)
    emit({"event": "end", **result.summary()})
    return result


def train_on_dataset(
    dataset: BlockDataset,
    settings: TrainSettings | None = None,
    *,
    checkpoint: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: Progress | None = None,
) -> TrainResult:
    """:func:`train_classifier` on a block dataset: the feature set is the one the network's input width names."""
    settings = settings or TrainSettings()
    sizes = parse_shape(settings.network)
    fs = feature_set_for(sizes[0])
    if fs is None:
        raise InputError(
            f"network {settings.network} reads {sizes[0]} features; datasets hold set A (33) and set B (89)"
        )
    info = {"feature_set": fs, "dataset": copy.deepcopy(dataset.meta)}
    return train_classifier(
        dataset.features(fs),
        dataset.dead,
        dataset.game,
        settings=settings,
        checkpoint=checkpoint,
        resume=resume,
        progress=progress,
        data_info=info,
    )


def write_history_csv(path: str | os.PathLike[str], history: list[dict[str, Any]]) -> None:
    """Write history rows (:data:`HISTORY_COLUMNS`) as CSV, atomically."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(HISTORY_COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in history:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in HISTORY_COLUMNS})
    write_atomic(path, buf.getvalue().encode("utf-8"))


def _copy_state(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}
