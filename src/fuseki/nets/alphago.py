"""AlphaGo's policy and value networks (book ch. 13, listings 13.1-13.3; Silver et al. 2016, Methods).

The SL (and RL) policy network, on the 48 planes of :mod:`fuseki.encoders.alphago`:

- layer 1: zero padding and ``filters`` convolutions of 5×5, ReLU;
- layers 2 to ``layers - 1``: ``filters`` convolutions of 3×3, ReLU;
- the last layer: one 1×1 convolution with a different bias for each point,
  then (in the loss or the agent) a softmax over the points.

The paper has 13 layers and 192 filters (``layers=13, filters=192``, the
defaults here, 3.9 million weights on 9×9); its Extended Data Table 3 also
tries 128 and 256 filters. The book's listing 13.1 adds the 3×3 layers with
``for i in range(2, 12)``, which makes 11 convolutions before the last one,
not 12: one fewer than its text and the paper say. We follow the paper.

The value network, on the 49 planes (``alphago49``, the player-colour plane
added): the policy network's first ``layers - 1`` layers, one more 3×3
layer, a 1×1 convolution to one filter (ReLU), a dense layer of ``hidden``
(256) ReLU units and one tanh output: ``value`` in [-1, 1] for the player
to move. Its ``forward`` returns ``(batch,)``.

Both adapt to any board size; on a 9×9 board and a CPU the pipeline uses
fewer layers and filters (``fuseki alphago train --sl-layers/--sl-filters``).

>>> import torch
>>> policy = alphago_policy_network(in_planes=48, size=9, num_moves=81, layers=3, filters=8)
>>> policy(torch.zeros(2, 48, 9, 9)).shape
torch.Size([2, 81])
>>> value = alphago_value_network(in_planes=49, size=9, num_moves=81, layers=3, filters=8, hidden=16)
>>> value(torch.zeros(2, 49, 9, 9)).shape
torch.Size([2])
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from fuseki.util.errors import InputError

__all__ = [
    "AlphaGoPolicyNet",
    "AlphaGoValueNet",
    "alphago_policy_network",
    "alphago_value_network",
    "copy_policy_body",
]


def _check(layers: int, filters: int, first_kernel: int, kernel: int) -> None:
    if layers < 2:
        raise InputError(f"an AlphaGo network needs at least 2 layers, got {layers}")
    if filters < 1:
        raise InputError(f"filters must be at least 1, got {filters}")
    for k in (first_kernel, kernel):
        if k < 1 or k % 2 == 0:
            raise InputError(f"kernel sizes must be odd and positive, got {k}")


def _body(in_planes: int, layers: int, filters: int, first_kernel: int, kernel: int) -> nn.ModuleList:
    """The ``layers - 1`` convolutions the two networks share (zero padding keeps the board size)."""
    convs = [nn.Conv2d(in_planes, filters, first_kernel, padding=first_kernel // 2)]
    convs += [nn.Conv2d(filters, filters, kernel, padding=kernel // 2) for _ in range(layers - 2)]
    return nn.ModuleList(convs)


class AlphaGoPolicyNet(nn.Module):
    """Conv 5×5, then 3×3 convs, all ReLU; a 1×1 conv to one plane with a bias per point: move logits."""

    def __init__(self, in_planes: int, size: int, layers: int, filters: int, first_kernel: int, kernel: int) -> None:
        super().__init__()
        self.convs = _body(in_planes, layers, filters, first_kernel, kernel)
        self.head = nn.Conv2d(filters, 1, 1, bias=False)
        self.position_bias = nn.Parameter(torch.zeros(size * size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = F.relu(conv(x))
        return self.head(x).flatten(1) + self.position_bias


class AlphaGoValueNet(nn.Module):
    """The policy body, one more 3×3 conv, a 1×1 conv to one plane, dense ``hidden`` ReLU, dense 1 tanh."""

    def __init__(self, in_planes: int, size: int, layers: int, filters: int, first_kernel: int, kernel: int, hidden: int) -> None:
        super().__init__()
        self.convs = _body(in_planes, layers, filters, first_kernel, kernel)
        self.extra = nn.Conv2d(filters, filters, kernel, padding=kernel // 2)
        self.reduce = nn.Conv2d(filters, 1, 1)
        self.hidden = nn.Linear(size * size, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = F.relu(conv(x))
        x = F.relu(self.extra(x))
        x = F.relu(self.reduce(x)).flatten(1)
        x = F.relu(self.hidden(x))
        return torch.tanh(self.out(x)).reshape(-1)


def alphago_policy_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    layers: int = 13,
    filters: int = 192,
    first_kernel: int = 5,
    kernel: int = 3,
) -> AlphaGoPolicyNet:
    """The SL/RL policy network: ``layers`` layers (the last the 1×1 output), ``filters`` wide."""
    _check(layers, filters, first_kernel, kernel)
    if num_moves != size * size:
        raise InputError(f"the AlphaGo policy network predicts the {size * size} points (no pass), not {num_moves} moves")
    return AlphaGoPolicyNet(in_planes, size, layers, filters, first_kernel, kernel)


def alphago_value_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    layers: int = 13,
    filters: int = 192,
    first_kernel: int = 5,
    kernel: int = 3,
    hidden: int = 256,
) -> AlphaGoValueNet:
    """The value network: the policy's first ``layers - 1`` layers, then the value head (``num_moves`` unused)."""
    del num_moves  # one value, whatever the encoder's move count
    _check(layers, filters, first_kernel, kernel)
    if hidden < 1:
        raise InputError(f"hidden must be at least 1, got {hidden}")
    return AlphaGoValueNet(in_planes, size, layers, filters, first_kernel, kernel, hidden)


def copy_policy_body(policy: AlphaGoPolicyNet, value: AlphaGoValueNet) -> None:
    """Start ``value``'s shared layers from ``policy``'s (the 49th input plane, the player's colour, at 0).

    The two networks have the same first ``layers - 1`` convolutions (book
    listing 13.1). A value network trained from random weights on a few
    tens of thousands of positions (one a game) learned nothing here: ten
    ReLU layers and one scalar target give it too weak a signal to find its
    features, and it settled on the mean outcome (MSE 0.989 against 0.991 for
    the constant; ``docs/alphago.md``). Started from the policy's features,
    which already see strings, liberties and ladders, it only has to learn
    to weigh them.
    """
    if len(policy.convs) != len(value.convs):
        raise ValueError(f"the policy has {len(policy.convs)} shared layers, the value network {len(value.convs)}")
    with torch.no_grad():
        for i, (src, dst) in enumerate(zip(policy.convs, value.convs)):
            if src.weight.shape[0] != dst.weight.shape[0] or src.weight.shape[2:] != dst.weight.shape[2:]:
                raise ValueError(f"layer {i + 1}: the policy's and the value network's shapes differ")
            if i == 0:
                dst.weight.zero_()
                planes = min(src.weight.shape[1], dst.weight.shape[1])
                dst.weight[:, :planes] = src.weight[:, :planes]
            else:
                dst.weight.copy_(src.weight)
            dst.bias.copy_(src.bias)
