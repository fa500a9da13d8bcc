"""The thesis's block classifiers: fully connected sigmoid networks named by their layer sizes.

Guisov (2006, §1.4, p. 21) uses multilayer perceptrons with the sigmoid as
the only activation, one output, and names a network by its layer sizes:
``33-2-1``, ``33-12-1``, ``33-16-8-4-1``, ``33-32-1`` and ``89-32-1``
(chapter 2). The input width is the feature set: 33 for set A, 89 for set B
(conclusion, p. 40: "characteristic vector (A ~ 33, B ~ 89)").

Choices the thesis leaves open, and ours:

- **Output meaning.** The thesis's output is 0 for dead and 1 for alive
  (chapter 1, p. 13). Ours is the probability that the block is *dead*, which is
  what a scorer asks for; the sigmoid is symmetric, so the two are the same
  network with the last layer's sign flipped, and every RMS is unchanged.
- **Input scaling.** Features "are scaled, for example by their maximum and
  minimum values" (§1.4, p. 20). The network holds a min-max scaling to
  [0, 1], fitted on the training split (:meth:`DeadStoneMLP.fit_scaling`),
  as buffers, so a saved model carries it.
- **Initial weights.** Not stated. We draw every weight and bias uniformly
  from ``±1/sqrt(fan_in)`` (what ``torch.nn.Linear`` does by default), from a
  seeded generator, so a run is reproducible. With inputs in [0, 1] this
  keeps the first sigmoids out of saturation.
- **float64.** RPROP reads only the *sign* of each gradient component, and
  full-batch gradients are sums over up to 330,000 blocks; near a minimum
  those sums are small differences of large numbers, where float32 rounding
  flips signs and makes the step sizes shrink for nothing. The thesis's C++
  used doubles. These networks have at most ~3,000 weights, so float64 costs
  little; :data:`DTYPE` is the default (MPS, which has no float64, would need
  ``dtype=torch.float32``).

>>> net = DeadStoneMLP("33-32-1", seed=0)
>>> net.shape_text, net.num_inputs, net.feature_set, net.num_parameters()
('33-32-1', 33, 'A', 1121)
>>> import torch
>>> net(torch.zeros(4, 33, dtype=torch.float64)).shape
torch.Size([4])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from fuseki.util.errors import InputError

__all__ = [
    "DTYPE",
    "FEATURE_SETS",
    "THESIS_SHAPES",
    "DeadStoneMLP",
    "feature_set_for",
    "parse_shape",
    "shape_text",
]

#: The dtype of weights and training arithmetic (see the module docstring).
DTYPE = torch.float64
#: Feature set name -> features per block (thesis, conclusion p. 40; §1.3.2).
FEATURE_SETS: dict[str, int] = {"A": 33, "B": 89}
#: The networks of the thesis's chapter 2, in its order.
THESIS_SHAPES = ("33-2-1", "33-12-1", "33-16-8-4-1", "33-32-1", "89-32-1")


def parse_shape(shape: str | Sequence[int]) -> tuple[int, ...]:
    """Layer sizes from ``"33-32-1"`` (or a sequence of ints); at least input and output, the output 1.

    >>> parse_shape("33-16-8-4-1")
    (33, 16, 8, 4, 1)
    >>> parse_shape("33-0-1")
    Traceback (most recent call last):
    ...
    fuseki.util.errors.InputError: bad network shape '33-0-1': layer sizes must be positive integers like 33-32-1
    """
    if isinstance(shape, str):
        text = shape.strip()
        try:
            sizes = tuple(int(part) for part in text.split("-"))
        except ValueError:
            raise InputError(f"bad network shape {shape!r}: write layer sizes joined by '-', like 33-32-1") from None
    else:
        text = "-".join(str(s) for s in shape)
        if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
            raise InputError(f"bad network shape {shape!r}: layer sizes must be integers")
        sizes = tuple(int(s) for s in shape)
    if len(sizes) < 2 or any(s < 1 for s in sizes):
        raise InputError(f"bad network shape {text!r}: layer sizes must be positive integers like 33-32-1")
    if sizes[-1] != 1:
        raise InputError(f"bad network shape {text!r}: a block classifier has one output (dead or alive)")
    return sizes


def shape_text(sizes: Sequence[int]) -> str:
    """``(33, 32, 1)`` -> ``"33-32-1"``."""
    return "-".join(str(int(s)) for s in sizes)


def feature_set_for(num_inputs: int) -> str | None:
    """The feature set with this many features per block (``"A"``, ``"B"``), or None."""
    return next((name for name, n in FEATURE_SETS.items() if n == num_inputs), None)


class DeadStoneMLP(nn.Module):
    """A sigmoid MLP of the given shape whose output is P(block is dead); input min-max scaling inside.

    ``forward(x)`` takes raw (unscaled) features ``[n, num_inputs]`` and
    returns ``[n]`` probabilities. ``seed`` (or ``generator``) fixes the
    initial weights.
    """

    input_low: torch.Tensor
    input_scale: torch.Tensor

    def __init__(
        self,
        shape: str | Sequence[int],
        *,
        seed: int | None = 0,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = DTYPE,
    ) -> None:
        super().__init__()
        self.sizes = parse_shape(shape)
        self.layers = nn.ModuleList(
            nn.Linear(a, b, dtype=dtype) for a, b in zip(self.sizes[:-1], self.sizes[1:], strict=True)
        )
        self.register_buffer("input_low", torch.zeros(self.sizes[0], dtype=dtype))
        self.register_buffer("input_scale", torch.ones(self.sizes[0], dtype=dtype))
        if generator is None and seed is not None:
            generator = torch.Generator().manual_seed(int(seed))
        self.reset_parameters(generator)

    @property
    def shape_text(self) -> str:
        """The thesis's name of the shape, ``"33-32-1"``."""
        return shape_text(self.sizes)

    @property
    def num_inputs(self) -> int:
        """Features per block."""
        return self.sizes[0]

    @property
    def feature_set(self) -> str | None:
        """``"A"`` for 33 inputs, ``"B"`` for 89, else None."""
        return feature_set_for(self.num_inputs)

    def num_parameters(self) -> int:
        """Weights and biases (the scaling buffers are not trained)."""
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Every weight and bias uniform in ``±1/sqrt(fan_in)`` (drawn in layer order from ``generator``)."""
        for layer in self.layers:
            bound = 1.0 / math.sqrt(layer.in_features)
            for tensor in (layer.weight, layer.bias):
                values = torch.rand(tensor.shape, generator=generator, dtype=torch.float64) * (2 * bound) - bound
                tensor.copy_(values.to(tensor.dtype))

    @torch.no_grad()
    def fit_scaling(self, features: np.ndarray | torch.Tensor) -> None:
        """Set the min-max scaling from training features ``[n, num_inputs]``: each column to [0, 1].

        A constant column is only shifted (scale 1), so it maps to 0.
        """
        x = torch.as_tensor(np.asarray(features) if not isinstance(features, torch.Tensor) else features)
        if x.ndim != 2 or x.shape[1] != self.num_inputs or x.shape[0] == 0:
            raise InputError(f"fit_scaling needs features [n>0, {self.num_inputs}], got {tuple(x.shape)}")
        x = x.to(torch.float64)
        low = x.min(dim=0).values
        span = x.max(dim=0).values - low
        scale = torch.where(span > 0, 1.0 / torch.where(span > 0, span, torch.ones_like(span)), torch.ones_like(span))
        self.input_low.copy_(low.to(self.input_low.dtype))
        self.input_scale.copy_(scale.to(self.input_scale.dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """P(dead) for each row of raw features ``x`` ``[n, num_inputs]`` -> ``[n]``."""
        h = (x.to(self.input_low.dtype) - self.input_low) * self.input_scale
        for layer in self.layers:
            h = torch.sigmoid(layer(h))
        return h[:, 0]
