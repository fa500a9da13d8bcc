"""Supervised move prediction (book ch. 6-7): train a network on the shards of ``fuseki data process``.

The book compiles a Keras model with ``categorical_crossentropy`` and an
optimiser, and calls ``fit_generator`` with a ``ModelCheckpoint`` callback
(listings 7.21-7.22). Here one function, :func:`train_supervised`, does the
same with PyTorch, and adds what the book left out:

- the data comes from the shards listed in the folder's manifest (uint8
  features made float32 one batch at a time on the device), shuffled from
  ``(seed, epoch)``, and the test split is the test split (the book's test
  generator read the training files);
- optimisers ``sgd``, ``momentum``, ``adagrad``, ``adadelta``, ``adam``, and
  learning-rate schedules ``constant``, ``step``, ``cosine`` and ``decay``
  (Keras' ``SGD(decay=...)``: ``lr / (1 + decay * step)``, listing 7.26);
- loss and top-1/top-5 accuracy on train and test each epoch, written to
  ``metrics.csv``, drawn to ``curves.png``, and to TensorBoard if asked for and
  installed;
- a checkpoint after every epoch, written atomically (``checkpoint.pt``:
  model, optimiser, schedule step, RNG states, the epoch and the history, all
  plain tensors and containers, loaded with ``torch.load(weights_only=True)``);
  a resumed run continues at the next epoch and ends with the same weights and
  metrics as a run that was never stopped (same seed, same device);
- the GPU (CUDA, or Apple's MPS) when there is one;
- a start from another network's weights (``init``: an agent file, every
  tensor that fits is copied) with parts of the network frozen (``freeze``),
  so that a new head can be trained on a trained trunk
  (:mod:`fuseki.train.transfer`).

Train metrics are averaged over the epoch's batches while the weights change,
as Keras reports ``acc``; test metrics are computed after the epoch, with
dropout off and batch norm in inference mode.

The result, :class:`TrainResult`, holds the trained model (on the CPU, in eval
mode) with the network name and options, the encoder and board size and the
metrics: everything an agent file needs.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from fuseki import __version__
from fuseki.agents.agent_file import load_agent_file, save_agent
from fuseki.data.dataset import ShardSet, ShardStream
from fuseki.encoders import get_encoder
from fuseki.nets import build_network
from fuseki.train.symmetry import augment_batch, dihedral_permutations, inverse_permutations
from fuseki.train.transfer import freeze, init_from_agent
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.device import select_device
from fuseki.util.errors import InputError

__all__ = [
    "OPTIMIZERS",
    "SCHEDULES",
    "CHECKPOINT",
    "METRICS_CSV",
    "CURVES_PNG",
    "SUMMARY_JSON",
    "TrainConfig",
    "TrainResult",
    "train_supervised",
    "select_device",
    "load_checkpoint",
    "learning_rate",
]

#: optimiser -> its default learning rate (Keras' defaults, which the book used).
OPTIMIZERS: dict[str, float] = {"sgd": 0.01, "momentum": 0.01, "adagrad": 0.01, "adadelta": 1.0, "adam": 0.001}
SCHEDULES = ("constant", "step", "cosine", "decay")
PRECISIONS = ("fp32", "bf16")

CHECKPOINT = "checkpoint.pt"
METRICS_CSV = "metrics.csv"
CURVES_PNG = "curves.png"
AGENT_FILE = "agent.safetensors"
SUMMARY_JSON = "summary.json"
TENSORBOARD_DIR = "tensorboard"
FORMAT = "fuseki-supervised-checkpoint"
VERSION = 1

CSV_COLUMNS = (
    "epoch",
    "step",
    "lr",
    "train_loss",
    "train_top1",
    "train_top5",
    "test_loss",
    "test_top1",
    "test_top5",
    "train_positions",
    "test_positions",
    "seconds",
    "positions_per_second",
)

#: Settings that must be the same to resume a run (``epochs`` too under ``cosine``).
_RESUME_KEYS = (
    "network",
    "net_options",
    "optimizer",
    "lr",
    "momentum",
    "weight_decay",
    "batch_size",
    "schedule",
    "step_epochs",
    "gamma",
    "decay",
    "min_lr",
    "seed",
    "max_batches",
    "window",
    "augment",
    "init",
    "freeze",
)


@dataclasses.dataclass
class TrainConfig:
    """Everything that decides a supervised run. ``lr=None`` takes the optimiser's default.

    ``momentum`` applies to ``sgd`` (default 0) and ``momentum`` (default
    0.9). ``step`` multiplies the rate by ``gamma`` every ``step_epochs``
    epochs; ``cosine`` anneals it to ``min_lr`` over all steps of ``epochs``;
    ``decay`` is Keras' ``lr / (1 + decay * step)``. ``max_batches`` cuts each
    epoch short (for quick trials). ``window`` is the shuffle window in shards
    (see :class:`fuseki.data.dataset.ShardStream`). ``augment`` trains each
    position under a random one of the board's eight symmetries
    (:mod:`fuseki.train.symmetry`), drawn from ``(seed, epoch)``.
    """

    shards: str
    network: str
    out: str = "runs/supervised"
    net_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    optimizer: str = "sgd"
    lr: float | None = None
    momentum: float | None = None
    weight_decay: float = 0.0
    batch_size: int = 128
    epochs: int = 5
    schedule: str = "constant"
    step_epochs: int = 1
    gamma: float = 0.1
    decay: float = 0.0
    min_lr: float = 0.0
    seed: int = 0
    device: str = "auto"
    resume: bool = False
    tensorboard: bool = False
    max_batches: int | None = None
    window: int = 4
    keep_checkpoints: bool = False
    augment: bool = False
    #: Stop, with the checkpoint on disk, before an epoch that would end past this many minutes of this
    #: call (estimated from the call's last epoch); ``--resume`` goes on. For machines lent by the minute.
    max_minutes: float | None = None
    #: ``"fp32"`` or ``"bf16"`` (autocast of the forward pass on CUDA: about twice the speed on an H100;
    #: the loss, the weights and the optimiser stay float32).
    precision: str = "fp32"
    #: An agent file (a path or a shipped model's name) whose tensors of matching name and shape start the run
    #: (:func:`fuseki.train.transfer.init_from_agent`); the others keep their fresh initialisation.
    init: str | None = None
    #: Module paths (``stem``, ``tower.0``, ...) whose parameters are not trained, their batch norms kept in
    #: eval mode (:func:`fuseki.train.transfer.freeze`): a new head on a trained trunk.
    freeze: list[str] = dataclasses.field(default_factory=list)

    def resolved(self) -> TrainConfig:
        """A copy with defaults filled in (learning rate, momentum) and values checked; raises ``ValueError``."""
        if self.optimizer not in OPTIMIZERS:
            raise InputError(f"unknown optimizer {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
        if self.schedule not in SCHEDULES:
            raise InputError(f"unknown schedule {self.schedule!r}; choose one of {', '.join(SCHEDULES)}")
        lr = OPTIMIZERS[self.optimizer] if self.lr is None else float(self.lr)
        momentum = self.momentum
        if momentum is None:
            momentum = 0.9 if self.optimizer == "momentum" else 0.0
        elif self.optimizer not in ("sgd", "momentum"):
            raise InputError(f"--momentum applies to sgd and momentum, not {self.optimizer}")
        checks = [
            (lr > 0 and math.isfinite(lr), f"the learning rate must be positive, got {lr}"),
            (0.0 <= momentum < 1.0, f"momentum must be at least 0 and below 1, got {momentum}"),
            (self.weight_decay >= 0, f"weight decay must be at least 0, got {self.weight_decay}"),
            (self.batch_size >= 1, f"the batch size must be at least 1, got {self.batch_size}"),
            (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
            (self.step_epochs >= 1, f"step epochs must be at least 1, got {self.step_epochs}"),
            (0 < self.gamma <= 1, f"gamma must be above 0 and at most 1, got {self.gamma}"),
            (self.decay >= 0, f"decay must be at least 0, got {self.decay}"),
            (0 <= self.min_lr < lr, f"min lr must be at least 0 and below the learning rate, got {self.min_lr}"),
            (self.max_batches is None or self.max_batches >= 1, "max batches must be at least 1"),
            (self.window >= 1, f"the shuffle window must be at least 1 shard, got {self.window}"),
            (self.max_minutes is None or self.max_minutes > 0, f"max minutes must be positive, got {self.max_minutes}"),
            (self.precision in PRECISIONS, f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}"),
        ]
        for ok, message in checks:
            if not ok:
                raise InputError(message)
        if self.freeze and self.init is None:
            raise InputError("--freeze keeps weights as they are: it needs --init to give them")
        return dataclasses.replace(
            self, lr=lr, momentum=float(momentum), net_options=dict(self.net_options), freeze=list(self.freeze)
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class TrainResult:
    """A trained network and what is needed to use it: the agent file is written from this."""

    model: nn.Module
    network: str
    net_options: dict[str, Any]
    encoder: str
    board_size: int
    feature_shape: tuple[int, ...]
    num_moves: int
    metrics: list[dict[str, Any]]
    epochs: int
    parameters: int
    config: dict[str, Any]
    data: dict[str, Any]
    out: Path | None = None
    checkpoint: Path | None = None
    device: str = "cpu"
    seconds: float = 0.0
    #: Why the run ended before ``config["epochs"]``: ``"max_minutes"``, or ``None`` when it did not.
    stopped: str | None = None

    @property
    def final(self) -> dict[str, Any]:
        """The last epoch's metrics (empty before the first epoch)."""
        return self.metrics[-1] if self.metrics else {}

    def provenance(self) -> dict[str, Any]:
        """How the network was trained, for an agent file's metadata (JSON-able)."""
        return _provenance(self.config, self.data, self.metrics)

    def save_agent(self, path: str | os.PathLike[str]) -> None:
        """Write the trained network as an agent file (``fuseki play --model PATH``)."""
        _save_agent(path, self.model, self.config, self.data, self.metrics)

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (what ``--json`` prints)."""
        best = max(
            (m for m in self.metrics if m.get("test_top1") is not None), key=lambda m: m["test_top1"], default=None
        )
        return {
            "network": self.network,
            "net_options": self.net_options,
            "encoder": self.encoder,
            "board_size": self.board_size,
            "num_moves": self.num_moves,
            "parameters": self.parameters,
            "epochs": self.epochs,
            "planned_epochs": self.config.get("epochs"),
            "stopped": self.stopped,
            "device": self.device,
            "seconds": round(self.seconds, 3),
            "final": self.final,
            "best_test_top1": None if best is None else {"epoch": best["epoch"], "test_top1": best["test_top1"]},
            "out": None if self.out is None else str(self.out),
            "checkpoint": None if self.checkpoint is None else str(self.checkpoint),
            "metrics_csv": None if self.out is None else str(self.out / METRICS_CSV),
            "curves_png": None if self.out is None else str(self.out / CURVES_PNG),
            "optimizer": self.config.get("optimizer"),
            "lr": self.config.get("lr"),
            "schedule": self.config.get("schedule"),
            "batch_size": self.config.get("batch_size"),
            "seed": self.config.get("seed"),
        }

    @classmethod
    def from_checkpoint(cls, path: str | os.PathLike[str]) -> TrainResult:
        """Rebuild the result of a run from its ``checkpoint.pt`` (the model on the CPU, in eval mode)."""
        ckpt = load_checkpoint(path)
        config, data = ckpt["config"], ckpt["data"]
        model = build_network(
            config["network"],
            in_planes=data["feature_shape"][0],
            size=data["board_size"],
            num_moves=data["num_moves"],
            **config["net_options"],
        )
        model.load_state_dict(ckpt["model"])
        model.eval()
        return cls(
            model=model,
            network=config["network"],
            net_options=dict(config["net_options"]),
            encoder=data["encoder"],
            board_size=int(data["board_size"]),
            feature_shape=tuple(data["feature_shape"]),
            num_moves=int(data["num_moves"]),
            metrics=list(ckpt["history"]),
            epochs=int(ckpt["epoch"]),
            parameters=_parameters(model),
            config=dict(config),
            data=dict(data),
            out=Path(path).parent,
            checkpoint=Path(path),
        )


# ---- pieces ------------------------------------------------------------------------------


def _provenance(config: dict[str, Any], data: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    final = history[-1] if history else {}
    return {
        "trainer": "fuseki train supervised",
        "fuseki_version": __version__,
        "network": config.get("network"),
        "shards": data.get("shards"),
        "sources": data.get("sources"),
        "split_sha256": data.get("split_sha256"),
        "train_positions": data.get("train_positions"),
        "optimizer": config.get("optimizer"),
        "lr": config.get("lr"),
        "schedule": config.get("schedule"),
        "batch_size": config.get("batch_size"),
        "augment": config.get("augment", False),
        **({"init": data["init"], "freeze": config.get("freeze") or []} if data.get("init") else {}),
        "seed": config.get("seed"),
        "epochs": len(history),
        "final": {k: final.get(k) for k in CSV_COLUMNS if k not in ("seconds", "positions_per_second")},
    }


def _save_agent(
    path: str | os.PathLike[str], model: nn.Module, config: dict[str, Any], data: dict[str, Any],
    history: list[dict[str, Any]],
) -> None:
    """The network as an agent file, with how it was trained as its metadata (atomic)."""
    save_agent(
        path,
        model,
        encoder=get_encoder(data["encoder"], int(data["board_size"])),
        network=config["network"],
        network_options=dict(config.get("net_options") or {}),
        metadata=_provenance(config, data, history),
    )


def learning_rate(config: TrainConfig, step: int, epoch: int, steps_per_epoch: int) -> float:
    """The rate for optimiser step ``step`` (counted from 0 over the whole run), in epoch ``epoch``.

    >>> c = TrainConfig("d", "small", lr=0.1, schedule="step", step_epochs=2, gamma=0.5)
    >>> [learning_rate(c, 0, e, 10) for e in range(5)]
    [0.1, 0.1, 0.05, 0.05, 0.025]
    >>> c = TrainConfig("d", "small", lr=0.1, schedule="decay", decay=0.01)
    >>> round(learning_rate(c, 100, 0, 10), 6)
    0.05
    >>> c = TrainConfig("d", "small", lr=0.1, epochs=2, schedule="cosine")
    >>> [round(learning_rate(c, s, 0, 2), 4) for s in range(4)]
    [0.1, 0.0854, 0.05, 0.0146]
    """
    lr = float(config.lr if config.lr is not None else OPTIMIZERS[config.optimizer])
    if config.schedule == "step":
        return lr * config.gamma ** (epoch // config.step_epochs)
    if config.schedule == "cosine":
        total = max(1, config.epochs * steps_per_epoch)
        return config.min_lr + (lr - config.min_lr) * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))
    if config.schedule == "decay":
        return lr / (1.0 + config.decay * step)
    return lr


def _optimizer(config: TrainConfig, parameters: Any) -> torch.optim.Optimizer:
    name, lr, wd = config.optimizer, float(config.lr or 0), config.weight_decay
    if name in ("sgd", "momentum"):
        return torch.optim.SGD(parameters, lr=lr, momentum=float(config.momentum or 0.0), weight_decay=wd)
    if name == "adagrad":
        return torch.optim.Adagrad(parameters, lr=lr, weight_decay=wd)
    if name == "adadelta":
        return torch.optim.Adadelta(parameters, lr=lr, weight_decay=wd)
    return torch.optim.Adam(parameters, lr=lr, weight_decay=wd)


def _parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a checkpoint (never unpickles code: ``weights_only=True``); raises ``ValueError`` if it is not one."""
    try:
        ckpt = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, ... for a file that is not a checkpoint
        raise InputError(f"cannot read the checkpoint {path}: {str(e).splitlines()[0] if str(e) else e!r}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise InputError(f"{path} is not a fuseki supervised-training checkpoint")
    if ckpt.get("version") != VERSION:
        raise InputError(f"{path} has checkpoint version {ckpt.get('version')}, this fuseki reads {VERSION}")
    return ckpt


#: A checkpoint written before a setting existed was trained with that setting's default.
_CONFIG_DEFAULTS: dict[str, Any] = {
    f.name: f.default if f.default is not dataclasses.MISSING else f.default_factory()
    for f in dataclasses.fields(TrainConfig)
    if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
}


def _rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = list(torch.cuda.get_rng_state_all())
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    cuda = state.get("cuda")
    if cuda and torch.cuda.is_available() and len(cuda) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(cuda)


def _resume_mismatch(
    old: dict[str, Any], new: dict[str, Any], old_data: dict[str, Any], data: dict[str, Any]
) -> str | None:
    for key in ("encoder", "board_size", "split_sha256"):
        if old_data.get(key) != data.get(key):
            return f"the checkpoint was trained on other shards ({key} {old_data.get(key)!r}, now {data.get(key)!r})"
    keys = _RESUME_KEYS + (("epochs",) if new["schedule"] == "cosine" else ())
    for key in keys:
        before = old.get(key, _CONFIG_DEFAULTS.get(key))
        if before != new.get(key):
            flag = "--" + key.replace("_", "-")
            return f"the checkpoint was made with {flag} {before!r}, not {new.get(key)!r}"
    return None


class _Meter:
    """Sums of loss and top-1/top-5 hits, kept on the device (one sync per read)."""

    def __init__(self, device: torch.device, k: int) -> None:
        self.k = k
        dtype = torch.float32 if device.type == "mps" else torch.float64  # MPS has no float64
        self.sums = torch.zeros(3, dtype=dtype, device=device)
        self.count = 0

    @torch.no_grad()
    def add(self, logits: torch.Tensor, labels: torch.Tensor, loss: torch.Tensor) -> None:
        top = logits.topk(self.k, dim=1).indices
        hits = top == labels[:, None]
        n = labels.shape[0]
        dtype = self.sums.dtype
        self.sums += torch.stack(
            [loss.detach().to(dtype) * n, hits[:, 0].sum().to(dtype), hits.any(dim=1).sum().to(dtype)]
        )
        self.count += n

    def read(self) -> tuple[float | None, float | None, float | None]:
        if self.count == 0:
            return None, None, None
        loss, top1, top5 = (self.sums / self.count).tolist()
        return loss, top1, top5


def _autocast(precision: str, device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """bf16 autocast of the forward pass on CUDA; float32 (no autocast) otherwise."""
    if precision == "bf16":
        return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


@torch.no_grad()
def _evaluate(
    model: nn.Module,
    stream: ShardStream,
    device: torch.device,
    k: int,
    precision: str = "fp32",
    max_positions: int | None = None,
) -> _Meter:
    """Loss and top-k hits of ``model`` over ``stream`` (whole batches until ``max_positions``, if given)."""
    meter = _Meter(device, k)
    model.eval()
    for x, y in stream:
        if max_positions is not None and meter.count >= max_positions:
            break
        x, y = x.to(device).float(), y.to(device)
        with _autocast(precision, device):
            logits = model(x)
        logits = logits.float()
        meter.add(logits, y, F.cross_entropy(logits, y))
    return meter


def evaluate_agent(
    model_path: str,
    shards: str,
    *,
    split: str = "test",
    device: str = "auto",
    batch_size: int = 256,
    max_positions: int | None = None,
) -> dict[str, Any]:
    """Loss and top-1/top-5 of an agent file's policy on one side of a shard folder.

    The same figures as a training run's test columns, for a network trained
    elsewhere (a shipped model, a run of another session) on the same held-out
    games. The file must read the shards' encoder; its board must be theirs,
    unless it plays any size (a network with a convolutional policy head,
    measured here on a board it was not trained on). ``max_positions`` cuts
    the side short, in its order (whole batches).
    """
    stream_set = ShardSet(shards, split)
    manifest = stream_set.manifest
    try:
        network, info = load_agent_file(model_path)
    except ValueError as e:
        raise InputError(str(e)) from None
    size = int(manifest["board_size"])
    if info.encoder != manifest["encoder"]:
        raise InputError(f"{model_path} reads encoder {info.encoder!r}; the shards hold {manifest['encoder']!r}")
    if not info.plays(size):
        raise InputError(f"{model_path} plays {info.board_size}x{info.board_size} only; the shards are {size}x{size}")
    if len(stream_set) == 0:
        raise InputError(f"{shards} has no {split} positions")
    target = select_device(device)
    network.to(target)
    stream = ShardStream(shards, split, batch_size=batch_size, shuffle=False)
    t0 = time.perf_counter()
    # An any-size network (no weight tied to the board) reads the shards' board as it is: nothing to rebuild.
    meter = _evaluate(network, stream, target, min(5, int(manifest["num_moves"])), max_positions=max_positions)
    loss, top1, top5 = meter.read()
    seconds = time.perf_counter() - t0
    return {
        "model": str(info.path),
        "shards": str(Path(shards).resolve()),
        "split": split,
        "encoder": info.encoder,
        "trained_size": info.board_size,
        "board_size": size,
        "split_sha256": manifest.get("split_sha256"),
        "positions": meter.count,
        "loss": loss,
        "top1": top1,
        "top5": top5,
        "device": str(target),
        "seconds": round(seconds, 3),
    }


def _write_csv(path: Path, history: list[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in history:
        writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in CSV_COLUMNS})
    write_atomic(path, buffer.getvalue().encode("utf-8"))


def plot_curves(path: str | os.PathLike[str], history: list[dict[str, Any]], title: str = "") -> None:
    """Draw loss and top-1/top-5 accuracy per epoch, train and test, to a PNG (written atomically)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    epochs = [row["epoch"] for row in history]
    fig = Figure(figsize=(10, 4), dpi=100)
    ax_loss, ax_acc = fig.subplots(1, 2)

    def line(ax: Any, key: str, label: str, style: str) -> None:
        points = [(e, row[key]) for e, row in zip(epochs, history) if row.get(key) is not None]
        if points:
            ax.plot(*zip(*points), style, label=label)

    line(ax_loss, "train_loss", "train", "o-")
    line(ax_loss, "test_loss", "test", "s--")
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("cross-entropy loss")
    ax_loss.legend()
    for key, label, style in (
        ("train_top1", "train top-1", "o-"),
        ("test_top1", "test top-1", "s--"),
        ("train_top5", "train top-5", "o:"),
        ("test_top5", "test top-5", "s:"),
    ):
        line(ax_acc, key, label, style)
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("accuracy")
    ax_acc.set_ylim(bottom=0)
    ax_acc.legend()
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        if epochs:
            ax.set_xticks(epochs if len(epochs) <= 20 else epochs[:: max(1, len(epochs) // 10)])
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    write_atomic(path, lambda f: fig.savefig(f, format="png"))


def _tensorboard(out: Path, purge_step: int) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise InputError("--tensorboard needs the tensorboard package (pip install tensorboard)") from None
    return SummaryWriter(str(out / TENSORBOARD_DIR), purge_step=purge_step)


# ---- the run -----------------------------------------------------------------------------------


def train_supervised(
    config: TrainConfig,
    *,
    progress: Callable[[dict[str, Any]], None] | None = None,
    progress_seconds: float = 2.0,
) -> TrainResult:
    """Train ``config.network`` on the shards in ``config.shards``; write outputs to ``config.out``.

    ``progress(event)`` is called with ``{"event": "start", ...}``, then
    ``{"event": "batch", ...}`` at most every ``progress_seconds``, and
    ``{"event": "epoch", ...}`` (the epoch's metrics) after each epoch's
    checkpoint is on disk. An exception raised from ``progress`` stops the run
    and leaves the last checkpoint; ``resume=True`` continues from it.

    A folder that already has a checkpoint is only continued with
    ``resume=True`` and the same settings (``ValueError`` otherwise);
    ``resume=True`` in a folder without one starts afresh.
    """
    config = config.resolved()
    t0 = time.perf_counter()
    emit = progress or (lambda event: None)
    train_set = ShardSet(config.shards, "train")
    if len(train_set) == 0:
        raise InputError(f"{config.shards} has no training positions")
    manifest = train_set.manifest
    data = {
        "shards": str(Path(config.shards).resolve()),
        "encoder": manifest["encoder"],
        "board_size": int(manifest["board_size"]),
        "feature_shape": [int(v) for v in manifest["feature_shape"]],
        "num_moves": int(manifest["num_moves"]),
        "split_sha256": manifest.get("split_sha256"),
        # where the games came from (a model trained on licensed data names its source in its metadata)
        "sources": [str(v) for v in manifest.get("sources") or []],
        "train_positions": len(train_set),
        "complete": bool(manifest.get("complete")),
    }
    device = select_device(config.device)
    if config.precision == "bf16" and device.type != "cuda":
        raise InputError(f"--precision bf16 needs a CUDA device, not {device.type}")
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / CHECKPOINT

    if device.type == "cuda":
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
    torch.manual_seed(config.seed)
    model = build_network(
        config.network,
        in_planes=data["feature_shape"][0],
        size=data["board_size"],
        num_moves=data["num_moves"],
        **config.net_options,
    )
    if config.init is not None and not ckpt_path.exists():
        # a resumed run takes every weight from its checkpoint; the record of the start is in its data
        data["init"] = init_from_agent(model, config.init, encoder=data["encoder"])
    frozen_norms = freeze(model, config.freeze) if config.freeze else []
    model.to(device)
    optimizer = _optimizer(config, [p for p in model.parameters() if p.requires_grad])
    saved = config.to_dict()
    history: list[dict[str, Any]] = []
    start_epoch, step = 0, 0
    if ckpt_path.exists():
        if not config.resume:
            raise InputError(f"{out} already holds a checkpoint; pass --resume to continue it, or choose another --out")
        ckpt = load_checkpoint(ckpt_path)
        problem = _resume_mismatch(ckpt["config"], saved, ckpt["data"], data)
        if problem is not None:
            raise InputError(f"cannot resume {ckpt_path}: {problem}")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch, step = int(ckpt["epoch"]), int(ckpt["scheduler"]["step"])
        history = list(ckpt["history"])
        if "init" in ckpt["data"]:
            data["init"] = ckpt["data"]["init"]
        _set_rng_state(ckpt["rng"])

    k = min(5, data["num_moves"])
    perms = None
    if config.augment:
        table = dihedral_permutations(int(data["board_size"]))
        perms = (torch.from_numpy(table).to(device), torch.from_numpy(inverse_permutations(table)).to(device))
    train_stream = ShardStream(
        config.shards, "train", batch_size=config.batch_size, shuffle=True, seed=config.seed, window=config.window
    )
    test_stream = ShardStream(config.shards, "test", batch_size=max(config.batch_size, 256), shuffle=False)
    steps_per_epoch = len(train_stream) if config.max_batches is None else min(len(train_stream), config.max_batches)
    writer = _tensorboard(out, start_epoch + 1) if config.tensorboard else None
    emit(
        {
            "event": "start",
            "device": str(device),
            "parameters": _parameters(model),
            "trained_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "init": data.get("init"),
            "start_epoch": start_epoch,
            "epochs": config.epochs,
            "steps_per_epoch": steps_per_epoch,
            "train_positions": len(train_set),
            "test_positions": len(test_stream.shards),
            "resumed": start_epoch > 0,
            "complete": data["complete"],
        }
    )
    stopped: str | None = None
    last_epoch_seconds: float | None = None  # the last epoch trained in this call, for --max-minutes
    try:
        for epoch in range(start_epoch, config.epochs):
            if config.max_minutes is not None and last_epoch_seconds is not None:
                elapsed = time.perf_counter() - t0
                if elapsed + last_epoch_seconds > 60.0 * config.max_minutes:
                    stopped = "max_minutes"
                    emit({"event": "stop", "reason": stopped, "epoch": epoch, "epochs": config.epochs,
                          "seconds": round(elapsed, 1)})
                    break
            train_stream.set_epoch(epoch)
            model.train()
            for norm in frozen_norms:
                norm.eval()
            meter = _Meter(device, k)
            epoch_t0 = last_report = time.perf_counter()
            lr = learning_rate(config, step, epoch, steps_per_epoch)
            symmetries = torch.Generator().manual_seed(config.seed * 1_000_003 + epoch)
            for batch, (x, y) in enumerate(train_stream):
                if batch >= steps_per_epoch:
                    break
                lr = learning_rate(config, step, epoch, steps_per_epoch)
                for group in optimizer.param_groups:
                    group["lr"] = lr
                x, y = x.to(device, non_blocking=True).float(), y.to(device, non_blocking=True)
                if perms is not None:
                    x, y = augment_batch(x, y, perms[0], perms[1], symmetries)
                with _autocast(config.precision, device):
                    logits = model(x)
                logits = logits.float()
                loss = F.cross_entropy(logits, y)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                step += 1
                meter.add(logits, y, loss)
                now = time.perf_counter()
                if now - last_report >= progress_seconds:
                    last_report = now
                    run_loss, run_top1, _ = meter.read()
                    emit(
                        {
                            "event": "batch",
                            "epoch": epoch + 1,
                            "epochs": config.epochs,
                            "batch": batch + 1,
                            "batches": steps_per_epoch,
                            "loss": run_loss,
                            "top1": run_top1,
                            "lr": lr,
                            "positions_per_second": meter.count / (now - epoch_t0),
                        }
                    )
            train_seconds = time.perf_counter() - epoch_t0
            train_loss, train_top1, train_top5 = meter.read()
            test = _evaluate(model, test_stream, device, k, config.precision)
            test_loss, test_top1, test_top5 = test.read()
            row = {
                "epoch": epoch + 1,
                "step": step,
                "lr": lr,
                "train_loss": train_loss,
                "train_top1": train_top1,
                "train_top5": train_top5,
                "test_loss": test_loss,
                "test_top1": test_top1,
                "test_top5": test_top5,
                "train_positions": meter.count,
                "test_positions": test.count,
                "seconds": round(time.perf_counter() - epoch_t0, 3),
                "positions_per_second": round(meter.count / train_seconds, 1) if train_seconds > 0 else None,
            }
            history.append(row)
            checkpoint = {
                "format": FORMAT,
                "version": VERSION,
                "epoch": epoch + 1,
                "config": saved,
                "data": data,
                "model": {name: t.detach().cpu() for name, t in model.state_dict().items()},
                "optimizer": optimizer.state_dict(),
                "scheduler": {"schedule": config.schedule, "step": step, "steps_per_epoch": steps_per_epoch},
                "rng": _rng_state(),
                "history": history,
            }
            write_atomic(ckpt_path, lambda f, c=checkpoint: torch.save(c, f))
            if config.keep_checkpoints:
                write_atomic(out / f"epoch-{epoch + 1:04d}.pt", lambda f, c=checkpoint: torch.save(c, f))
            _write_csv(out / METRICS_CSV, history)
            _save_agent(out / AGENT_FILE, model, saved, data, history)
            size = data["board_size"]
            plot_curves(out / CURVES_PNG, history, f"{config.network} on {data['encoder']} {size}×{size}")
            if writer is not None:
                for key in CSV_COLUMNS[2:9]:
                    if row[key] is not None:
                        writer.add_scalar(key.replace("_", "/", 1), row[key], epoch + 1)
                writer.flush()
            emit({"event": "epoch", "epochs": config.epochs, **row})
            last_epoch_seconds = time.perf_counter() - epoch_t0
    finally:
        if writer is not None:
            writer.close()

    model.eval()
    model.to("cpu")
    result = TrainResult(
        model=model,
        network=config.network,
        net_options=dict(config.net_options),
        encoder=data["encoder"],
        board_size=data["board_size"],
        feature_shape=tuple(data["feature_shape"]),
        num_moves=data["num_moves"],
        metrics=history,
        epochs=len(history),
        parameters=_parameters(model),
        config=saved,
        data=data,
        out=out,
        checkpoint=ckpt_path if ckpt_path.exists() else None,
        device=str(device),
        seconds=time.perf_counter() - t0,
        stopped=stopped,
    )
    write_json_atomic(out / SUMMARY_JSON, result.summary())
    return result
