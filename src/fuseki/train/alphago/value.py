"""Training AlphaGo's value network: regression of the game's outcome, mean squared error.

``v(s)`` in [-1, 1] (tanh) is trained to the outcome ``z`` (+1 when the
player to move at ``s`` won, -1 when he lost) of the game the position came
from, one position per game (:mod:`fuseki.train.alphago.value_data`). The
paper reports MSE 0.226 on its training positions and 0.234 on its test
positions (30 million positions from as many games); the same network
trained on whole KGS games overfitted, 0.19 against 0.37.

Every tenth position is held out (each position comes from its own game,
so no held-out position shares a game with a training one). Each batch is shown under a random one of the board's eight
symmetries. Metrics per epoch: MSE on the training batches (while the
weights change, as Keras reports it) and on the held-out positions, on the
outcome's own ±1 scale, beside the MSE of always answering the training
mean (a value network that learns nothing).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["ValueTrainConfig", "train_value_network", "value_mse"]


@dataclasses.dataclass(frozen=True)
class ValueTrainConfig:
    """Optimiser settings (ours: the paper's were SGD at 0.003, 50 million batches of 32)."""

    epochs: int = 10
    batch_size: int = 128
    lr: float = 3e-4
    weight_decay: float = 1e-4
    test_every: int = 10  #: every this-many-th position (each from its own game) is held out
    augment: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.test_every < 2:
            raise ValueError("epochs and batch size must be at least 1, test_every at least 2")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError("lr must be a positive number")


def value_mse(model: Any, features: np.ndarray, z: np.ndarray, device: Any, batch: int = 1024) -> float:
    """Mean squared error of ``model`` against ``z`` on the ±1 scale."""
    import torch

    model.eval()
    total = 0.0
    with torch.inference_mode():
        for i in range(0, len(z), batch):
            x = torch.from_numpy(features[i : i + batch]).to(device, dtype=torch.float32)
            v = model(x).float().cpu().numpy()
            total += float(((v - z[i : i + batch].astype(np.float32)) ** 2).sum())
    return total / max(len(z), 1)


def train_value_network(
    model: Any,
    features: np.ndarray,
    z: np.ndarray,
    chunk: np.ndarray,
    config: ValueTrainConfig = ValueTrainConfig(),
    device: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Train ``model`` in place on ``(features, z)``; one metrics row per epoch."""
    import torch

    from fuseki.train.symmetry import dihedral_permutations, inverse_permutations
    from fuseki.util.device import select_device

    dev = select_device(device)
    torch.manual_seed(config.seed)
    test = (np.arange(len(z)) % config.test_every) == 0
    train_idx = np.nonzero(~test)[0]
    test_idx = np.nonzero(test)[0]
    if len(train_idx) == 0 or len(test_idx) == 0:
        raise ValueError(f"too few value positions to hold out one in {config.test_every}: {len(z)} positions")
    x_test, z_test = features[test_idx], z[test_idx]
    z_train = z[train_idx].astype(np.float32)
    baseline_train = float(np.mean((z_train - z_train.mean()) ** 2))
    baseline_test = float(np.mean((z_test.astype(np.float32) - z_train.mean()) ** 2))
    model.to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    n = features.shape[-1]
    perms = torch.as_tensor(dihedral_permutations(n), device=dev)
    inverse = torch.as_tensor(inverse_permutations(dihedral_permutations(n)), device=dev)
    gen = torch.Generator().manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    steps = config.epochs * max(1, math.ceil(len(train_idx) / config.batch_size))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    history: list[dict[str, Any]] = []
    for epoch in range(1, config.epochs + 1):
        t0 = time.perf_counter()
        model.train()
        order = rng.permutation(train_idx)
        total, count = 0.0, 0
        for i in range(0, len(order), config.batch_size):
            idx = np.sort(order[i : i + config.batch_size])
            x = torch.from_numpy(features[idx]).to(dev, dtype=torch.float32)
            target = torch.from_numpy(z[idx].astype(np.float32)).to(dev)
            if config.augment:
                from fuseki.train.symmetry import augment_batch

                dummy = torch.zeros(len(idx), dtype=torch.long, device=dev)
                x, _ = augment_batch(x, dummy, perms, inverse, gen)
            v = model(x)
            loss = torch.mean((v - target) ** 2)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        seconds = time.perf_counter() - t0
        test_mse = value_mse(model, x_test, z_test, dev)
        row = {
            "epoch": epoch,
            "train_mse": total / count,
            "test_mse": test_mse,
            "train_positions": int(len(train_idx)),
            "test_positions": int(len(test_idx)),
            "baseline_train_mse": baseline_train,
            "baseline_test_mse": baseline_test,
            "seconds": round(seconds, 2),
        }
        history.append(row)
        if progress is not None:
            progress(
                f"value network epoch {epoch}/{config.epochs}: train MSE {row['train_mse']:.3f}, "
                f"test MSE {test_mse:.3f} (constant guess {baseline_test:.3f}), {seconds:.1f} s"
            )
    # The training MSE of the finished network, measured like the test MSE (not averaged while it learned).
    history[-1]["final_train_mse"] = value_mse(model, features[train_idx], z[train_idx], dev)
    model.eval()
    return history
