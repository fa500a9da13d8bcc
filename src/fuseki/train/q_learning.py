"""Q-learning on self-play experience (book ch. 11): fit ``Q(s, a)`` to the game's reward.

Listing 11.8 trains the two-input action-value network
(:class:`fuseki.nets.rl.QNetwork`) as a regression: the inputs are the
encoded board and a one-hot vector of the move played, the target is the
reward of the game (+1 won, -1 lost, from the mover's point of view), and
the loss is the mean squared error::

    loss = mean((Q(s, a) - reward) ** 2)

Book settings (:data:`Q_BOOK`, listing 11.8's ``train(experience, lr=0.1,
batch_size=128)``): plain SGD with learning rate 0.1, batches of 128, one
epoch, no clipnorm (``SGD(lr=lr)``). The loop, the start (``--from`` or a
fresh ``--network q``) and the agent file are those of
:func:`fuseki.train.policy_gradient.train_rl`; the file's ``kind`` is ``"q"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fuseki.train.policy_gradient import BookSettings, RLTrainConfig, RLTrainResult, train_rl
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    import torch

__all__ = ["Q_BOOK", "q_loss", "train_q_learning"]

#: Listing 11.8.
Q_BOOK = BookSettings(
    lr=0.1, clipnorm=None, batch_size=128, epochs=1, source="ch. 11, listing 11.8: SGD(lr=0.1), mse, batch 128, one epoch"
)


def q_loss(values: torch.Tensor, rewards: torch.Tensor) -> torch.Tensor:
    """Mean squared error of ``Q(s, a)`` to the reward (Keras' ``mse``).

    >>> import torch
    >>> float(q_loss(torch.tensor([0.5, -0.5]), torch.tensor([1.0, -1.0])))
    0.25
    """
    return ((values.float() - rewards) ** 2).mean()


def _loss(model: Any, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    import torch

    if not hasattr(model, "head_values"):
        raise InputError("Q-learning needs a Q network (--network q)")
    actions = batch["actions"]
    onehot = torch.zeros(len(actions), model.num_actions, device=actions.device)
    onehot[torch.arange(len(actions), device=actions.device), actions] = 1.0
    loss = q_loss(model(batch["states"], onehot), batch["rewards"])
    return loss, {"loss": loss.detach()}


def train_q_learning(config: RLTrainConfig, progress: Callable[[dict[str, Any]], None] | None = None) -> RLTrainResult:
    """Q-learning (ch. 11) on the experience files of ``config``; writes a ``q`` agent file."""
    return train_rl(
        config,
        kind="q",
        book=Q_BOOK,
        loss_fn=_loss,
        algorithm="Q-learning (mse of Q(s, a) to the reward, book ch. 11)",
        max_action=lambda encoder: encoder.size * encoder.size,
        progress=progress,
    )
