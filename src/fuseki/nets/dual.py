"""Two-headed (policy and value) networks of the two books' small Zero experiments, as they built them.

The Zero loop's own network is AlphaGo Zero's residual tower
(:func:`fuseki.nets.residual.dual_residual_network`). The experiments we
reproduce used smaller, older designs, and a reproduction that swapped in
the residual net would measure a different network:

- :class:`ConvDualNet`, the book's chapter 14 demo (``zero_demo.py``,
  listing 14.14): ``layers`` plain 3×3 convolutions of ``channels`` filters
  with ReLU (no batch norm, no skip connections); a policy head of a 1×1
  conv to 2 planes (ReLU), flattened, dense to the moves; a value head of a
  1×1 conv to 1 plane (ReLU), flattened, dense ``value_hidden`` (ReLU),
  dense 1, tanh. The demo: 4 layers of 64, value head 256.
- :class:`MLPDualNet`, Klein's HexapawnZero (*Neural Networks for Chess*,
  ch. 5, ``sup_network.py``): the planes flattened, ``layers`` dense layers
  of ``hidden`` units with ReLU, then a dense policy head and a dense value
  head with tanh. Klein: 5 layers of 128.

Both return ``(logits, value)`` like the residual dual net, so PUCT's
network evaluator, the learner and the Zero network file take them as they
are; the softmax of the books' policy outputs is in the loss and the
evaluator. Weights start as Keras starts them (Glorot uniform, zero biases:
:func:`fuseki.nets.book.keras_init`), because both books trained in Keras.

>>> import torch
>>> logits, value = ConvDualNet(11, 9, 82)(torch.zeros(2, 11, 9, 9))
>>> logits.shape, value.shape
(torch.Size([2, 82]), torch.Size([2]))
>>> logits, value = MLPDualNet(2 * 9, 27)(torch.zeros(3, 2, 3, 3))
>>> logits.shape, value.shape
(torch.Size([3, 27]), torch.Size([3]))
"""

from __future__ import annotations

import torch
from torch import nn

from fuseki.nets.book import keras_init
from fuseki.util.errors import InputError

__all__ = ["ConvDualNet", "MLPDualNet", "conv_dual_network", "mlp_dual_network"]


class ConvDualNet(nn.Module):
    """The book's chapter 14 demo network: plain ReLU convolutions and the two heads (see the module notes)."""

    def __init__(self, in_planes: int, size: int, num_moves: int, layers: int = 4, channels: int = 64, value_hidden: int = 256) -> None:
        super().__init__()
        if layers < 1 or channels < 1 or value_hidden < 1:
            raise InputError("the conv network needs at least one layer, one channel and one value unit")
        convs: list[nn.Module] = []
        width = in_planes
        for _ in range(layers):
            convs += [nn.Conv2d(width, channels, 3, padding=1), nn.ReLU()]
            width = channels
        self.body = nn.Sequential(*convs)
        self.policy = nn.Sequential(nn.Conv2d(channels, 2, 1), nn.ReLU(), nn.Flatten(), nn.Linear(2 * size * size, num_moves))
        self.value = nn.Sequential(
            nn.Conv2d(channels, 1, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(size * size, value_hidden),
            nn.ReLU(),
            nn.Linear(value_hidden, 1),
            nn.Tanh(),
        )
        keras_init(self)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.policy(h), self.value(h).squeeze(-1)


class MLPDualNet(nn.Module):
    """Klein's HexapawnZero network: dense ReLU layers on the flattened planes and the two heads."""

    def __init__(self, in_features: int, num_moves: int, layers: int = 5, hidden: int = 128) -> None:
        super().__init__()
        if layers < 1 or hidden < 1:
            raise InputError("the MLP needs at least one layer of at least one unit")
        dense: list[nn.Module] = [nn.Flatten()]
        width = in_features
        for _ in range(layers):
            dense += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        self.body = nn.Sequential(*dense)
        self.policy = nn.Linear(hidden, num_moves)
        self.value = nn.Sequential(nn.Linear(hidden, 1), nn.Tanh())
        keras_init(self)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.policy(h), self.value(h).squeeze(-1)


def conv_dual_network(
    *, in_planes: int, size: int, num_moves: int, layers: int = 4, channels: int = 64, value_hidden: int = 256
) -> nn.Module:
    return ConvDualNet(in_planes, size, num_moves, layers, channels, value_hidden)


def mlp_dual_network(*, in_planes: int, size: int, num_moves: int, layers: int = 5, hidden: int = 128) -> nn.Module:
    """Klein's MLP on ``in_planes × size × size`` inputs (square planes; :class:`MLPDualNet` takes any shape)."""
    return MLPDualNet(in_planes * size * size, num_moves, layers, hidden)
