"""The book's reinforcement-learning networks in PyTorch: the Q network (ch. 11) and the actor-critic network (ch. 12).

Registered by name (see :func:`fuseki.nets.build_network`):

======  ==============================================================  ==============
name    layers (every conv keeps the board size, ReLU)                   the book
======  ==============================================================  ==============
``q``   board: conv 64 5×5, conv 64 3×3, flatten, dense 512 (linear);    listing 11.4
        action: one-hot over the board points; concatenated, dense 256
        ReLU, dense 1 tanh -> Q(s, a) in [-1, 1]
``ac``  conv 64 3×3 ×3, flatten, dense 512 (linear); policy: dense 512    listing 12.5
        ReLU, dense moves (logits); value: dense 512 ReLU, dense 1 tanh
======  ==============================================================  ==============

Unlike the policy networks of :mod:`fuseki.nets.book`, these do not map a
board to move logits alone, so they are registered with ``outputs="q"`` and
``outputs="ac"`` (:func:`fuseki.nets.registry.network_outputs`), their agent
files carry that ``kind``, and :func:`fuseki.agents.rl_agents.load_rl_agent`
builds the matching agent. The forward passes:

- :class:`QNetwork`: ``forward(board, action_onehot) -> (batch,)`` values.
  The action input is a one-hot vector over the ``size * size`` points, as
  in the book (its Q agent never evaluates pass). :meth:`QNetwork.action_values`
  runs the board trunk once and the small head for many candidate moves.
- :class:`ActorCriticNetwork`: ``forward(board) -> (logits, value)`` with
  logits ``(batch, num_moves)`` and the value ``(batch,)`` in [-1, 1]. The
  book's policy output ends in a softmax; here it lives in the loss and in
  the agent, as for every other policy network.

The book's ``Dense(512)`` after the flattened convolutions has no activation
in both listings; we keep it linear. Weights start as Keras starts them
(Glorot uniform, zero biases) unless ``init="torch"``.

>>> import torch
>>> q = build_network("q", in_planes=1, size=5, num_moves=25)
>>> q(torch.zeros(3, 1, 5, 5), torch.eye(25)[:3]).shape
torch.Size([3])
>>> ac = build_network("ac", in_planes=1, size=5, num_moves=25)
>>> [t.shape for t in ac(torch.zeros(2, 1, 5, 5))]
[torch.Size([2, 25]), torch.Size([2])]
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from fuseki.nets.book import keras_init
from fuseki.nets.registry import build_network  # noqa: F401 (the doctests use it)
from fuseki.util.errors import InputError

__all__ = ["ActorCriticNetwork", "QNetwork", "ac_network", "q_network"]


def _trunk(in_planes: int, layers: Sequence[Sequence[int]]) -> tuple[nn.Sequential, int]:
    """Same-size convolutions with ReLU (the book's ``ZeroPadding2D`` + ``Conv2D``); returns them and their width."""
    modules: list[nn.Module] = []
    channels = in_planes
    if not layers:
        raise InputError("layers must list at least one (filters, kernel) convolution")
    for entry in layers:
        if len(entry) != 2:
            raise InputError(f"each layer is (filters, kernel), got {entry!r}")
        filters, kernel = int(entry[0]), int(entry[1])
        if filters < 1 or kernel < 1 or kernel % 2 != 1:
            raise InputError(f"a layer needs at least one filter and an odd kernel, got {entry!r}")
        modules += [nn.Conv2d(channels, filters, kernel, padding=kernel // 2), nn.ReLU()]
        channels = filters
    return nn.Sequential(*modules), channels


def _check(init: str, **widths: int) -> None:
    if init not in ("keras", "torch"):
        raise InputError(f"init must be 'keras' or 'torch', got {init!r}")
    for name, value in widths.items():
        if int(value) < 1:
            raise InputError(f"{name} must be at least 1, got {value}")


class QNetwork(nn.Module):
    """Listing 11.4: the two-input action-value network ``Q(s, a)``, a value in [-1, 1]."""

    def __init__(
        self,
        in_planes: int,
        size: int,
        layers: Sequence[Sequence[int]] = ((64, 5), (64, 3)),
        board_hidden: int = 512,
        hidden: int = 256,
        init: str = "keras",
    ) -> None:
        super().__init__()
        _check(init, board_hidden=board_hidden, hidden=hidden)
        self.num_actions = size * size
        self.trunk, channels = _trunk(in_planes, layers)
        self.board = nn.Sequential(nn.Flatten(), nn.Linear(channels * size * size, board_hidden))
        self.head = nn.Sequential(
            nn.Linear(self.num_actions + board_hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1), nn.Tanh()
        )
        if init == "keras":
            keras_init(self)

    def board_features(self, board: torch.Tensor) -> torch.Tensor:
        """The book's ``processed_board``: ``(batch, board_hidden)``."""
        return self.board(self.trunk(board))

    def head_values(self, features: torch.Tensor, action_onehot: torch.Tensor) -> torch.Tensor:
        """Q from board features and one-hot actions (the book concatenates the action first)."""
        return self.head(torch.cat([action_onehot, features], dim=1)).squeeze(1)

    def forward(self, board: torch.Tensor, action_onehot: torch.Tensor) -> torch.Tensor:
        return self.head_values(self.board_features(board), action_onehot)

    def action_values(self, board: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of one position ``board`` (``(1, C, N, N)``) for each point index in ``actions``.

        The convolutions run once; only the small head sees each candidate,
        where the book feeds the same board once per legal move.
        """
        features = self.board_features(board).expand(len(actions), -1)
        onehot = torch.zeros(len(actions), self.num_actions, dtype=features.dtype, device=features.device)
        onehot[torch.arange(len(actions), device=features.device), actions] = 1.0
        return self.head_values(features, onehot)


class ActorCriticNetwork(nn.Module):
    """Listing 12.5: a shared trunk, a policy head (move logits) and a value head (tanh)."""

    def __init__(
        self,
        in_planes: int,
        size: int,
        num_moves: int,
        layers: Sequence[Sequence[int]] = ((64, 3), (64, 3), (64, 3)),
        board_hidden: int = 512,
        policy_hidden: int = 512,
        value_hidden: int = 512,
        init: str = "keras",
    ) -> None:
        super().__init__()
        _check(init, board_hidden=board_hidden, policy_hidden=policy_hidden, value_hidden=value_hidden)
        self.trunk, channels = _trunk(in_planes, layers)
        self.board = nn.Sequential(nn.Flatten(), nn.Linear(channels * size * size, board_hidden))
        self.policy = nn.Sequential(nn.Linear(board_hidden, policy_hidden), nn.ReLU(), nn.Linear(policy_hidden, num_moves))
        self.value = nn.Sequential(nn.Linear(board_hidden, value_hidden), nn.ReLU(), nn.Linear(value_hidden, 1), nn.Tanh())
        if init == "keras":
            keras_init(self)

    def forward(self, board: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.board(self.trunk(board))
        return self.policy(features), self.value(features).squeeze(1)


def q_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    layers: Sequence[Sequence[int]] = ((64, 5), (64, 3)),
    board_hidden: int = 512,
    hidden: int = 256,
    init: str = "keras",
) -> nn.Module:
    del num_moves  # the action input covers the board points (the book's Q agent never evaluates pass)
    return QNetwork(in_planes, size, tuple(tuple(x) for x in layers), board_hidden, hidden, init)


def ac_network(
    *,
    in_planes: int,
    size: int,
    num_moves: int,
    layers: Sequence[Sequence[int]] = ((64, 3), (64, 3), (64, 3)),
    board_hidden: int = 512,
    policy_hidden: int = 512,
    value_hidden: int = 512,
    init: str = "keras",
) -> nn.Module:
    return ActorCriticNetwork(
        in_planes, size, num_moves, tuple(tuple(x) for x in layers), board_hidden, policy_hidden, value_hidden, init
    )
