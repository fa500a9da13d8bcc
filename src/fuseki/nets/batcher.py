"""Batched inference: many positions in one forward pass of a two-headed network.

A search that evaluates its leaves one at a time pays a forward pass each,
and on a GPU that pass costs about the same for 1 position as for 256. So
the search collects leaves (with virtual loss, see :mod:`fuseki.search.puct`)
and hands them here together: the planes are stacked, sent through the
network once, and the policy logits are turned into probabilities over the
*legal* actions only (illegal ones get exactly 0; a softmax over all actions
would leak probability onto moves that cannot be played).

The network maps float32 planes ``(B, C, H, W)`` to ``(logits (B, A), value
(B,))`` -- the contract of ``dual_residual_network`` ("residual-dual" in the
registry) -- with ``value`` in [-1, 1] for the player to move.

Device: CUDA when torch sees a GPU, else the CPU (or Apple's MPS), unless
``device`` says otherwise (:func:`fuseki.util.device.select_device`). Small batches on the CPU run on one thread (see
:mod:`fuseki.nets.inference` for the measurement behind that rule).

Precision: ``"fp32"``, or ``"bf16"``: the forward pass under
``torch.autocast`` with bfloat16 (the outputs come back as float32). On a
CPU with bfloat16 dot products (AVX-512 BF16 or AMX, as the Zen 4 the
project first ran on has) a batched 4×64 residual net evaluates 2.2–2.7×
more positions per CPU second in Zero self-play (docs/zero.md); on a GPU it
is the usual inference precision. On a CPU without them (an Ice Lake Xeon:
AVX-512 but no BF16) torch emulates bfloat16, and the same net evaluates
about half as many positions as in float32. So the choice belongs to the
machine, not to the run: ``"auto"`` (:func:`resolve_precision`) takes bf16
where the hardware has it and fp32 elsewhere. Self-play may use it;
training never does.

Layout: on the CPU in float32, a batch of :data:`CHANNELS_LAST_MIN_BATCH`
or more positions goes in channels-last (NHWC) memory layout, which
oneDNN's convolutions take without reordering: the 4×64 residual net of
the 9×9 Zero run evaluated 1.2–1.7× more positions a second at batches of
4–256 on an Ice Lake core (self-play at the run's settings: 1.44× the moves
a CPU second), and 0.89× at a batch of 1, which therefore stays as it is
(``benchmarks/zero_layout.py``, docs/zero.md). The weights are
not touched (a network being trained keeps its own layout); the outputs
agree with the contiguous pass to float32 rounding (about 1e-6).

>>> import numpy as np
>>> from fuseki.nets.residual import dual_residual_network
>>> net = dual_residual_network(in_planes=2, size=3, num_moves=9, blocks=1, channels=4)
>>> batcher = Batcher(net, device="cpu")
>>> mask = np.zeros((1, 9), dtype=bool); mask[0, [0, 4]] = True
>>> priors, values = batcher(np.zeros((1, 2, 3, 3), dtype=np.float32), mask)
>>> priors.shape, round(float(priors[0].sum()), 5), float(priors[0, 1]), values.shape
((1, 9), 1.0, 0.0, (1,))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from fuseki.nets.inference import inference
from fuseki.util.device import select_device

__all__ = [
    "CHANNELS_LAST_MIN_BATCH",
    "PRECISIONS",
    "PRECISION_CHOICES",
    "Batcher",
    "fast_layout",
    "masked_softmax",
    "native_bf16",
    "resolve_precision",
    "wants_channels_last",
]

#: The forward pass's number formats (see the module notes).
PRECISIONS = ("fp32", "bf16")
#: What a user may ask for: a format, or ``"auto"`` (the machine's fast one).
PRECISION_CHOICES = ("auto", *PRECISIONS)
#: The smallest CPU float32 batch sent in channels-last layout (see the module notes).
CHANNELS_LAST_MIN_BATCH = 4


def fast_layout(x: torch.Tensor, device: torch.device, precision: str = "fp32") -> torch.Tensor:
    """``x`` in the memory layout that runs fastest for a batch of planes on ``device`` (see the module notes).

    Channels-last for a CPU float32 batch of :data:`CHANNELS_LAST_MIN_BATCH` or more positions, ``x`` as it
    is otherwise. The learner uses it for training too: the 9×9 run's 4×64 residual net trained 1.66× more
    samples a second at batch 256 with only its input channels-last, the weights left as they are
    (``benchmarks/results/zero_layout_train_9.json``, docs/zero.md).
    """
    return x.contiguous(memory_format=torch.channels_last) if wants_channels_last(x, device, precision) else x


def wants_channels_last(x: torch.Tensor, device: torch.device, precision: str = "fp32") -> bool:
    """The layout rule: a CPU float32 batch of planes with at least :data:`CHANNELS_LAST_MIN_BATCH` positions."""
    return x.dim() == 4 and device.type == "cpu" and precision == "fp32" and x.shape[0] >= CHANNELS_LAST_MIN_BATCH


def native_bf16(device: torch.device) -> bool:
    """Whether ``device`` computes bfloat16 in hardware, so that bf16 inference is faster than fp32 there.

    CUDA: torch's own check. CPU: AVX-512 BF16 or AMX tiles, read through
    torch's CPU feature probes (private helpers, hence ``getattr``: a torch
    without them reports no support, and ``auto`` falls back to fp32, which
    is always correct, only perhaps slower).
    """
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    if device.type == "cpu":
        probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
        return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)
    return False


def resolve_precision(precision: str, device: torch.device) -> str:
    """``precision`` itself, or for ``"auto"`` bf16 where ``device`` has it in hardware (:func:`native_bf16`), else fp32."""
    if precision not in PRECISION_CHOICES:
        raise ValueError(f"precision must be one of {', '.join(PRECISION_CHOICES)}, got {precision!r}")
    if precision == "auto":
        return "bf16" if native_bf16(device) else "fp32"
    return precision


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax of ``logits`` over the True entries of ``mask`` (row-wise); 0 elsewhere.

    A row with no True entry (a finished game) is all zeros rather than NaN.
    """
    masked = logits.masked_fill(~mask, float("-inf"))
    empty = ~mask.any(dim=-1, keepdim=True)
    masked = masked.masked_fill(empty, 0.0)
    return torch.softmax(masked, dim=-1).masked_fill(empty, 0.0)


class Batcher:
    """Runs a ``(logits, value)`` network on batches of planes, ``max_batch`` positions per pass.

    The network is put in eval mode (batch norm uses its running statistics,
    so a position's output does not depend on what else is in the batch) and
    moved to ``device`` (``None`` or ``"auto"``: CUDA if available, else the CPU).
    ``precision``: one of :data:`PRECISION_CHOICES`; ``self.precision`` is the format it resolved to.
    ``channels_last``: ``None`` (the rule of the module notes), True or
    False to force the layout of 4-dimensional planes (benchmarks, tests).
    """

    def __init__(
        self,
        network: torch.nn.Module,
        *,
        device: str | torch.device | None = None,
        max_batch: int = 256,
        precision: str = "fp32",
        channels_last: bool | None = None,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        # None or "auto": CUDA when torch sees a GPU (else MPS, else the CPU); a device that is not there is an error.
        if isinstance(device, torch.device):
            self.device = device
        else:
            self.device = select_device("auto" if device is None else device)
        self.precision = resolve_precision(precision, self.device)
        self.network = network.to(self.device).eval()
        self.max_batch = max_batch
        self.channels_last = channels_last
        #: Forward passes and positions evaluated so far (for reports and tests).
        self.passes = 0
        self.positions = 0

    def __call__(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``(B, A)`` float32 (0 off the mask, rows summing to 1) and values ``(B,)`` float32."""
        planes = np.asarray(planes, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if planes.ndim != 4 or masks.ndim != 2 or planes.shape[0] != masks.shape[0]:
            raise ValueError(f"expected planes (B, C, H, W) and masks (B, A), got {planes.shape} and {masks.shape}")
        n = planes.shape[0]
        priors = np.zeros(masks.shape, dtype=np.float32)
        values = np.zeros(n, dtype=np.float32)
        for start in range(0, n, self.max_batch):
            stop = min(n, start + self.max_batch)
            p, v = self._forward(planes[start:stop], masks[start:stop])
            priors[start:stop] = p
            values[start:stop] = v
        return priors, values

    def use_channels_last(self, x: torch.Tensor) -> bool:
        """Whether the planes ``x`` go to the network in channels-last layout (see the module notes)."""
        if x.dim() != 4:
            return False
        if self.channels_last is not None:
            return self.channels_last
        return wants_channels_last(x, self.device, self.precision)

    def _forward(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with inference(self.device, len(planes)):
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device)
            if self.use_channels_last(x):
                x = x.contiguous(memory_format=torch.channels_last)
            if self.precision == "bf16":
                with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
                    out: Any = self.network(x)
            else:
                out = self.network(x)
            if not (isinstance(out, tuple) and len(out) == 2):
                raise ValueError("the network must return (logits, value); a policy-only network cannot evaluate positions")
            logits, value = out
            if logits.shape != masks.shape:
                raise ValueError(f"the network gives {tuple(logits.shape)} logits for {masks.shape} actions")
            mask = torch.from_numpy(np.ascontiguousarray(masks)).to(self.device)
            priors = masked_softmax(logits.float(), mask)
            self.passes += 1
            self.positions += len(planes)
            return priors.cpu().numpy(), value.float().reshape(-1).cpu().numpy()
