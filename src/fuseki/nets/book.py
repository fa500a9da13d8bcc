"""The book's move-prediction networks in PyTorch (ch. 6 and 7, ``dlgo/networks``).

Registered by name (see :func:`fuseki.nets.build_network`):

==========  ===========================================================  ======================
name        layers (every conv keeps the board size; ReLU unless noted)   the book
==========  ===========================================================  ======================
``fc``      flatten, dense 1000, dense 500 (sigmoid), dense moves        listing 6.14
``cnn``     conv 48 3×3, dropout .5, conv 48 3×3, max-pool 2×2, dropout  listing 6.25
            .5, dense 512, dropout .5, dense moves
``small``   conv 48 7×7, 3 × conv 32 5×5, dense 512, dense moves         listing 7.18, small.py
``medium``  2 × conv 64 5×5, 3 × conv 64 3×3, dense 512, dense moves     medium.py
``large``   2 × conv 64 7×7 / 5×5, 5×5 convs of 64, 48, 48, 32, 32,     large.py
            dense 1024, dense moves
==========  ===========================================================  ======================

Each network maps float ``(batch, in_planes, size, size)`` to move *logits*
``(batch, num_moves)``; the book's last layer is ``Dense(num_moves,
activation='softmax')`` added by the caller (listing 7.21), and here the softmax
lives in the loss (``cross_entropy``) and in the agent. How each layer was
carried over, and the deviations:

- ``ZeroPadding2D(p)`` followed by a ``'valid'`` ``Conv2D`` with a
  ``(2p+1)×(2p+1)`` kernel is exactly ``nn.Conv2d(padding=p)``: both pad with
  zeros, and the output keeps the input's size.
- Keras flattens ``channels_first`` tensors in the same (C, H, W) order as
  ``torch.flatten``; the ch. 6 networks were written ``channels_last``, which
  only permutes the dense layer's rows. Parameter counts match the book's
  ``model.summary()`` (``fc`` on 9×9: 623,081; ``cnn``: 456,545).
- Weights start as Keras starts them (``init="keras"``, the default): Glorot
  uniform weights and zero biases. ``init="torch"`` keeps PyTorch's defaults.
- ``fc``: the book trained it with sigmoid outputs and mean squared error
  (listing 6.14) and got 2.3% test accuracy. Here its output is logits for the
  cross-entropy the book moves to in section 6.5; ``activation="relu"`` gives
  the section 6.6 variant.
- The sizes adapt to any board and plane count: the dense layer after the
  convolutions has ``channels × size × size`` inputs.

>>> net = build_network("small", in_planes=1, size=9, num_moves=81)
>>> import torch
>>> net(torch.zeros(2, 1, 9, 9)).shape
torch.Size([2, 81])
>>> parameter_count(build_network("fc", in_planes=1, size=9, num_moves=81))
623081
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from fuseki.nets.registry import build_network  # noqa: F401 (the doctests use it)
from fuseki.util.errors import InputError

__all__ = [
    "BOOK_CONV_LAYERS",
    "BookCNN",
    "FullyConnected",
    "Chapter6CNN",
    "parameter_count",
    "keras_init",
    "book_cnn_factory",
    "cnn_network",
    "fc_network",
    "large_network",
    "medium_network",
    "small_network",
]

#: (filters, kernel) of each convolution of dlgo's small.py, medium.py and
#: large.py, and the width of their hidden dense layer. Each conv is preceded
#: by ``ZeroPadding2D(kernel // 2)`` in the book.
BOOK_CONV_LAYERS: dict[str, tuple[tuple[tuple[int, int], ...], int]] = {
    "small": (((48, 7), (32, 5), (32, 5), (32, 5)), 512),
    "medium": (((64, 5), (64, 5), (64, 3), (64, 3), (64, 3)), 512),
    "large": (((64, 7), (64, 5), (64, 5), (48, 5), (48, 5), (32, 5), (32, 5)), 1024),
}

_ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}


def parameter_count(model: nn.Module) -> int:
    """Trainable parameters, the number Keras' ``model.summary()`` prints."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def keras_init(model: nn.Module) -> nn.Module:
    """Keras' default start: Glorot-uniform weights and zero biases for every conv and dense layer."""
    for module in model.modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            nn.init.xavier_uniform_(module.weight)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
    return model


def _activation(name: str) -> nn.Module:
    try:
        return _ACTIVATIONS[name]()
    except KeyError:
        raise InputError(f"unknown activation {name!r}; choose one of {', '.join(_ACTIVATIONS)}") from None


def _check_init(init: str) -> None:
    if init not in ("keras", "torch"):
        raise InputError(f"init must be 'keras' or 'torch', got {init!r}")


def _check_dropout(dropout: float) -> None:
    if not 0.0 <= dropout < 1.0:
        raise InputError(f"dropout must be at least 0 and below 1, got {dropout}")


class FullyConnected(nn.Module):
    """Listing 6.14: the board flattened, two hidden dense layers (1000, 500), sigmoid."""

    def __init__(
        self,
        in_planes: int,
        size: int,
        num_moves: int,
        hidden: Sequence[int] = (1000, 500),
        activation: str = "sigmoid",
        dropout: float = 0.0,
        init: str = "keras",
    ) -> None:
        super().__init__()
        _check_init(init)
        _check_dropout(dropout)
        if not hidden or any(int(h) < 1 for h in hidden):
            raise InputError(f"hidden must list at least one positive layer width, got {hidden!r}")
        layers: list[nn.Module] = [nn.Flatten()]
        width = in_planes * size * size
        for h in hidden:
            layers += [nn.Linear(width, int(h)), _activation(activation)]
            if dropout:
                layers.append(nn.Dropout(dropout))
            width = int(h)
        layers.append(nn.Linear(width, num_moves))
        self.layers = nn.Sequential(*layers)
        if init == "keras":
            keras_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class Chapter6CNN(nn.Module):
    """Listing 6.25: two 3×3 convs of 48, max-pooling, dense 512, dropout 0.5 after each."""

    def __init__(
        self,
        in_planes: int,
        size: int,
        num_moves: int,
        filters: int = 48,
        hidden: int = 512,
        dropout: float = 0.5,
        pool: bool = True,
        init: str = "keras",
    ) -> None:
        super().__init__()
        _check_init(init)
        _check_dropout(dropout)
        side = size // 2 if pool else size  # Keras' MaxPooling2D, like nn.MaxPool2d, floors: 9 -> 4
        if side < 1:
            raise InputError(f"a {size}×{size} board is too small to pool")
        self.layers = nn.Sequential(
            nn.Conv2d(in_planes, filters, 3, padding=1),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Conv2d(filters, filters, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2) if pool else nn.Identity(),
            nn.Dropout(dropout),
            nn.Flatten(),
            nn.Linear(filters * side * side, hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, num_moves),
        )
        if init == "keras":
            keras_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class BookCNN(nn.Module):
    """dlgo's ``small``/``medium``/``large``: same-size convolutions with ReLU, one hidden dense layer.

    ``layers`` lists ``(filters, kernel)`` per convolution; each is padded by
    ``kernel // 2`` (the book's ``ZeroPadding2D``) so the board keeps its size.
    ``dropout`` (0 in the book) is applied after the hidden dense layer.
    """

    def __init__(
        self,
        in_planes: int,
        size: int,
        num_moves: int,
        layers: Sequence[tuple[int, int]],
        hidden: int,
        dropout: float = 0.0,
        init: str = "keras",
    ) -> None:
        super().__init__()
        _check_init(init)
        _check_dropout(dropout)
        modules: list[nn.Module] = []
        channels = in_planes
        for filters, kernel in layers:
            if kernel % 2 != 1:
                raise InputError(f"kernel sizes must be odd to keep the board size, got {kernel}")
            modules += [nn.Conv2d(channels, filters, kernel, padding=kernel // 2), nn.ReLU()]
            channels = filters
        modules += [nn.Flatten(), nn.Linear(channels * size * size, hidden), nn.ReLU()]
        if dropout:
            modules.append(nn.Dropout(dropout))
        modules.append(nn.Linear(hidden, num_moves))
        self.layers = nn.Sequential(*modules)
        if init == "keras":
            keras_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def fc_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    hidden: Sequence[int] = (1000, 500),
    activation: str = "sigmoid",
    dropout: float = 0.0,
    init: str = "keras",
) -> nn.Module:
    return FullyConnected(in_planes, size, num_moves, tuple(hidden), activation, dropout, init)


def cnn_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    filters: int = 48,
    hidden: int = 512,
    dropout: float = 0.5,
    pool: bool = True,
    init: str = "keras",
) -> nn.Module:
    return Chapter6CNN(in_planes, size, num_moves, filters, hidden, dropout, pool, init)


def book_cnn_factory(name: str) -> Callable[..., nn.Module]:
    """The factory of one of the book's three CNNs (``small``, ``medium``, ``large``, :data:`BOOK_CONV_LAYERS`)."""
    conv, default_hidden = BOOK_CONV_LAYERS[name]

    def factory(
        *,
        in_planes: int,
        size: int,
        num_moves: int,
        hidden: int = default_hidden,
        dropout: float = 0.0,
        init: str = "keras",
    ) -> nn.Module:
        return BookCNN(in_planes, size, num_moves, conv, hidden, dropout, init)

    factory.__name__ = f"{name}_network"
    return factory


small_network = book_cnn_factory("small")
medium_network = book_cnn_factory("medium")
large_network = book_cnn_factory("large")
