"""A residual CNN with batch norm: the modern option, and the body of the Zero network (ch. 14).

The AlphaGo Zero layout (dlgo's ``alphago_zero.py``, after the paper): a
3×3 conv-BN-ReLU stem, then ``blocks`` residual blocks (conv-BN-ReLU-conv-BN,
plus the block's input, ReLU), all with ``channels`` filters, then

- a policy head: 1×1 conv to ``policy_channels`` (2), BN, ReLU, dense to the
  move logits; or, with ``policy_head="conv"``, a 1×1 conv to one logit per
  point instead of the dense layer (no pass move). No weight of that network
  depends on the board size, so a network trained on 19×19 also plays
  13×13 or 9×9 (KataGo's nets are built so); the dense head ties it to one
  size;
- optionally a value head: 1×1 conv to 1, BN, ReLU, dense ``value_hidden``
  (256), ReLU, dense 1, tanh.

``build_network("residual", ...)`` returns the policy-only network (logits,
what supervised training and the policy agent use);
``build_network("residual-dual", ...)`` the two-headed one of
:func:`dual_residual_network`, whose ``forward`` returns ``(logits, value)``
with ``value`` of shape ``(batch,)`` in [-1, 1] (what PUCT's network
evaluator reads, through :mod:`fuseki.nets.batcher`).

Sizes: the book's demo is 4 blocks of 64; AlphaGo Zero used 20 or 40 blocks
of 256; AlphaZero 19 of 256. Convolutions before batch norm have no bias (BN
makes it redundant); dlgo's policy head used a 3×3 conv, the paper's a 1×1 --
we follow the paper.

>>> import torch
>>> net = build_network("residual", in_planes=7, size=9, num_moves=81, blocks=2, channels=16)
>>> net(torch.zeros(3, 7, 9, 9)).shape
torch.Size([3, 81])
>>> conv = build_network("residual", in_planes=7, size=9, num_moves=81, blocks=1, channels=8, policy_head="conv")
>>> conv(torch.zeros(2, 7, 9, 9)).shape, conv(torch.zeros(2, 7, 13, 13)).shape
(torch.Size([2, 81]), torch.Size([2, 169]))
>>> dual = dual_residual_network(in_planes=7, size=9, num_moves=82, blocks=1, channels=8)
>>> logits, value = dual(torch.zeros(3, 7, 9, 9))
>>> logits.shape, value.shape
(torch.Size([3, 82]), torch.Size([3]))
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from fuseki.nets.registry import build_network  # noqa: F401 (the doctests use it)
from fuseki.util.errors import InputError

__all__ = ["POLICY_HEADS", "ConvBN", "ResidualBlock", "ResidualNet", "dual_residual_network", "residual_network"]

#: The policy heads: ``dense`` (AlphaGo Zero's, one board size) and ``conv`` (one logit a point, any size).
POLICY_HEADS = ("dense", "conv")


class ConvBN(nn.Module):
    """Conv (no bias), batch norm, optional ReLU."""

    def __init__(self, in_channels: int, out_channels: int, kernel: int, relu: bool = True) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.bn(self.conv(x))
        return F.relu(x) if self.relu else x


class ResidualBlock(nn.Module):
    """Two 3×3 conv-BN layers with the input added back before the last ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.first = ConvBN(channels, channels, 3)
        self.second = ConvBN(channels, channels, 3, relu=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.second(self.first(x)))


class ResidualNet(nn.Module):
    """Stem, residual tower, policy head and (with ``value_head=True``) a value head."""

    def __init__(
        self,
        in_planes: int,
        size: int,
        num_moves: int,
        blocks: int = 4,
        channels: int = 64,
        policy_channels: int = 2,
        value_head: bool = False,
        value_hidden: int = 256,
        policy_head: str = "dense",
    ) -> None:
        super().__init__()
        if blocks < 0 or channels < 1 or policy_channels < 1 or value_hidden < 1:
            raise InputError("blocks must be at least 0, and channels and head widths at least 1")
        if policy_head not in POLICY_HEADS:
            raise InputError(f"policy_head must be one of {', '.join(POLICY_HEADS)}, got {policy_head!r}")
        self.stem = ConvBN(in_planes, channels, 3)
        self.tower = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        if policy_head == "conv":
            if num_moves != size * size:
                raise InputError(
                    f"policy_head 'conv' gives one logit a point: {size * size} moves on {size}x{size}, "
                    f"not {num_moves} (an encoder with a pass move needs the dense head)"
                )
            self.policy = nn.Sequential(
                ConvBN(channels, policy_channels, 1), nn.Conv2d(policy_channels, 1, 1), nn.Flatten()
            )
        else:
            self.policy = nn.Sequential(
                ConvBN(channels, policy_channels, 1), nn.Flatten(), nn.Linear(policy_channels * size * size, num_moves)
            )
        self.value: nn.Module | None = None
        if value_head:
            self.value = nn.Sequential(
                ConvBN(channels, 1, 1),
                nn.Flatten(),
                nn.Linear(size * size, value_hidden),
                nn.ReLU(),
                nn.Linear(value_hidden, 1),
                nn.Tanh(),
            )

    def body(self, x: torch.Tensor) -> torch.Tensor:
        """The shared trunk's features, ``(batch, channels, size, size)``."""
        return self.tower(self.stem(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        logits = self.policy(h)
        if self.value is None:
            return logits
        return logits, self.value(h).squeeze(-1)


def residual_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    blocks: int = 4,
    channels: int = 64,
    policy_channels: int = 2,
    policy_head: str = "dense",
) -> nn.Module:
    return ResidualNet(in_planes, size, num_moves, blocks, channels, policy_channels, policy_head=policy_head)


def dual_residual_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    blocks: int = 4,
    channels: int = 64,
    policy_channels: int = 2,
    value_hidden: int = 256,
) -> ResidualNet:
    """The two-headed network of AlphaGo Zero: ``forward`` returns ``(logits, value)``."""
    return ResidualNet(in_planes, size, num_moves, blocks, channels, policy_channels, True, value_hidden)
