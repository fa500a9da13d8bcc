"""Training the dual residual network on self-play samples: AlphaGo Zero's loss, with symmetry augmentation.

The loss of AlphaGo Zero, for a sample (planes ``s``, search distribution
``π``, result ``z``) and the network's ``(p, v) = f(s)``:

    l = (z − v)² − πᵀ log p + c‖θ‖²

the value's squared error, the policy's cross-entropy against the visit
counts, and L2 on the weights (here the optimiser's ``weight_decay``, which
for SGD is exactly that term's gradient). ``p`` is a softmax over all
``num_actions`` logits: ``π`` is zero off the legal moves, so the loss itself
teaches the network to put no mass there.

Each sample is shown under a random symmetry of the game
(``game.symmetries``; the planes and ``π`` moved together), which multiplies
the data by 8 for Go and tic-tac-toe and by 2 for Hexapawn.

torch is imported at module level: this module is only imported by jobs
that train (the command imports it inside ``run``).
"""

from __future__ import annotations

import dataclasses
import json
import struct
from typing import Any

import numpy as np
import torch
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors
from torch.nn import functional as F

from fuseki.games.base import Game
from fuseki.nets.batcher import fast_layout
from fuseki.util.device import select_device

__all__ = [
    "LearnerConfig",
    "augment",
    "evaluate_loss",
    "make_optimizer",
    "optimizer_from_bytes",
    "optimizer_to_bytes",
    "train_network",
    "zero_loss",
]

#: The metadata key of an optimizer-state file (``learner-NNNN.safetensors`` of a run).
OPTIMIZER_META_KEY = "fuseki_zero_optimizer"


@dataclasses.dataclass(frozen=True)
class LearnerConfig:
    """How one generation's training runs."""

    epochs: int = 4
    batch_size: int = 64
    #: ``sgd`` (with ``momentum``, AlphaGo Zero's) or ``adam``.
    optimizer: str = "sgd"
    lr: float = 0.02
    momentum: float = 0.9
    #: L2 weight (AlphaGo Zero: 1e-4).
    weight_decay: float = 1e-4
    augment: bool = True
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.epochs < 0 or self.batch_size < 1:
            raise ValueError("epochs must be >= 0 and batch_size >= 1")
        if self.optimizer not in ("sgd", "adam"):
            raise ValueError(f"optimizer must be sgd or adam, got {self.optimizer!r}")
        if not self.lr > 0 or self.weight_decay < 0 or not 0 <= self.momentum < 1:
            raise ValueError("lr must be positive, weight_decay >= 0 and momentum in [0, 1)")


def augment(game: Game, planes: np.ndarray, pi: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each sample under a random symmetry of ``game`` (planes and pi moved together); new arrays."""
    symmetries = game.symmetries
    if len(symmetries) <= 1:
        return planes.copy(), pi.copy()
    which = rng.integers(len(symmetries), size=len(planes))
    out_planes = np.empty_like(planes)
    out_pi = np.empty_like(pi)
    for s, sym in enumerate(symmetries):
        rows = np.flatnonzero(which == s)
        if rows.size:
            out_planes[rows] = sym.planes(planes[rows])
            out_pi[rows] = sym.policy(pi[rows])
    return out_planes, out_pi


def zero_loss(
    network: torch.nn.Module, planes: torch.Tensor, pi: torch.Tensor, z: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(total, value MSE, policy cross-entropy) of a batch; L2 is the optimiser's weight decay."""
    logits, value = network(planes)
    value_loss = F.mse_loss(value, z)
    policy_loss = -(pi * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
    return value_loss + policy_loss, value_loss, policy_loss


def evaluate_loss(network: torch.nn.Module, planes: np.ndarray, pi: np.ndarray, z: np.ndarray, device: str = "cpu") -> dict[str, float]:
    """The loss of ``network`` on the samples as they are (eval mode, no augmentation)."""
    dev = select_device(device)
    network.to(dev).eval()
    with torch.no_grad():
        total, v, p = zero_loss(
            network,
            fast_layout(torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(dev), dev),
            torch.from_numpy(np.ascontiguousarray(pi, dtype=np.float32)).to(dev),
            torch.from_numpy(np.ascontiguousarray(z, dtype=np.float32)).to(dev),
        )
    return {"loss": float(total), "value_loss": float(v), "policy_loss": float(p)}


def make_optimizer(network: torch.nn.Module, config: LearnerConfig) -> torch.optim.Optimizer:
    """The optimiser ``config`` names, over ``network``'s parameters (on the device they are on)."""
    if config.optimizer == "sgd":
        return torch.optim.SGD(network.parameters(), lr=config.lr, momentum=config.momentum, weight_decay=config.weight_decay)
    return torch.optim.Adam(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)


def optimizer_to_bytes(optimizer: torch.optim.Optimizer) -> bytes:
    """The optimiser's state (momentum buffers, Adam's moments and steps) as safetensors bytes; never a pickle.

    Tensors go in as ``state.<param>.<name>``; the numbers and the parameter
    groups in the metadata as JSON, so loading runs no code.
    """
    state = optimizer.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    numbers: dict[str, dict[str, Any]] = {}
    for index, entries in state["state"].items():
        for name, value in entries.items():
            if isinstance(value, torch.Tensor):
                tensors[f"state.{index}.{name}"] = value.detach().cpu().contiguous()
            else:
                numbers.setdefault(str(index), {})[name] = value
    meta = {"kind": type(optimizer).__name__, "param_groups": state["param_groups"], "numbers": numbers}
    return save_tensors(tensors, metadata={OPTIMIZER_META_KEY: json.dumps(meta)})


def optimizer_from_bytes(optimizer: torch.optim.Optimizer, data: bytes) -> None:
    """Load :func:`optimizer_to_bytes`'s state into ``optimizer`` (of the same kind, over the same network).

    The state (momentum buffers, Adam's moments and steps) is the saved one;
    the learning rate stays the one ``optimizer`` was made with, since the
    rate is the training's setting, not its state (a run's ``lr_schedule``
    changes it between generations).
    """
    rates = [group["lr"] for group in optimizer.param_groups]
    (length,) = struct.unpack("<Q", data[:8])
    meta = json.loads(json.loads(data[8 : 8 + length])["__metadata__"][OPTIMIZER_META_KEY])
    if meta["kind"] != type(optimizer).__name__:
        raise ValueError(f"the saved optimiser state is {meta['kind']}'s, not {type(optimizer).__name__}'s")
    state: dict[int, dict[str, Any]] = {}
    for key, tensor in load_tensors(data).items():  # torch's load_state_dict moves them to the parameters' device
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = tensor
    for index, entries in meta["numbers"].items():
        state.setdefault(int(index), {}).update(entries)
    # JSON made Adam's betas, a tuple, a list.
    groups = [{k: tuple(v) if k == "betas" else v for k, v in group.items()} for group in meta["param_groups"]]
    optimizer.load_state_dict({"state": state, "param_groups": groups})
    for group, rate in zip(optimizer.param_groups, rates, strict=True):
        group["lr"] = rate


def train_network(
    network: torch.nn.Module,
    game: Game,
    planes: np.ndarray,
    pi: np.ndarray,
    z: np.ndarray,
    config: LearnerConfig | None = None,
    *,
    seed: int = 0,
    optimizer: torch.optim.Optimizer | None = None,
) -> list[dict[str, Any]]:
    """Train ``network`` in place for ``config.epochs`` passes over the samples; per epoch its mean losses.

    The order of the samples, the symmetries and torch's own randomness all
    come from ``seed``, so the same samples and seed give the same weights.
    ``optimizer`` (from :func:`make_optimizer`, perhaps with the state of the
    previous generation's training loaded) goes on where it stopped; without
    one a fresh optimiser starts. The network must be on the config's device
    before an optimiser is made for it.
    """
    config = config or LearnerConfig()
    if not len(planes) == len(pi) == len(z):
        raise ValueError(f"planes, pi and z differ in length: {len(planes)}, {len(pi)}, {len(z)}")
    dev = select_device(config.device)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    network.to(dev).train()
    if optimizer is None:
        optimizer = make_optimizer(network, config)
    history: list[dict[str, Any]] = []
    n = len(planes)
    for epoch in range(1, config.epochs + 1):
        if config.augment:
            ep_planes, ep_pi = augment(game, planes, pi, rng)
        else:
            ep_planes, ep_pi = planes, pi
        order = rng.permutation(n)
        sums = np.zeros(3)
        seen = 0
        batches = [order[i : i + config.batch_size] for i in range(0, n, config.batch_size)]
        if len(batches) > 1 and len(batches[-1]) == 1:  # batch norm cannot train on one sample: join the last two
            batches[-2:] = [np.concatenate(batches[-2:])]
        for rows in batches:
            if len(rows) < 2:
                continue
            x = fast_layout(torch.from_numpy(np.ascontiguousarray(ep_planes[rows], dtype=np.float32)).to(dev), dev)
            p = torch.from_numpy(np.ascontiguousarray(ep_pi[rows], dtype=np.float32)).to(dev)
            t = torch.from_numpy(np.ascontiguousarray(z[rows], dtype=np.float32)).to(dev)
            total, v_loss, p_loss = zero_loss(network, x, p, t)
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            sums += len(rows) * np.array([total.item(), v_loss.item(), p_loss.item()])
            seen += len(rows)
        means = sums / max(seen, 1)
        history.append(
            {
                "epoch": epoch,
                "loss": float(means[0]),
                "value_loss": float(means[1]),
                "policy_loss": float(means[2]),
                "samples": seen,
            }
        )
    network.eval()
    return history
