"""Actor-critic learning on self-play experience (book ch. 12): a policy head and a value head, trained together.

Listing 12.7 trains the two-headed network
(:class:`fuseki.nets.rl.ActorCriticNetwork`) with two losses, weighted
``[1.0, 0.5]``:

- the policy (actor): Keras' cross-entropy against a target that holds the
  move's *advantage* (reward minus the value the agent estimated when it
  chose the move, listing 12.3) at the chosen move, i.e.
  ``-advantage * log π(a | s)``; a surprising win counts more than a win
  that was expected;
- the value (critic): the mean squared error of ``V(s)`` to the reward, as in
  Q-learning (ch. 11).

::

    loss = 1.0 * mean(-advantage * log π(a | s)) + 0.5 * mean((V(s) - reward) ** 2)

Book settings (:data:`AC_BOOK`): plain SGD, one epoch, no clipnorm;
learning rate 0.01 and batches of 1024 as in the section 12.4 experiment
(``train_ac.py --lr 0.01 --bs 1024``) that produced the book's 60/100,
51/100 and 62/100 results (listing 12.7's defaults are lr 0.1, batch 128).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fuseki.train.policy_gradient import BookSettings, RLTrainConfig, RLTrainResult, policy_gradient_loss, train_rl
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    import torch

__all__ = ["AC_BOOK", "POLICY_WEIGHT", "VALUE_WEIGHT", "actor_critic_loss", "train_actor_critic"]

#: Listing 12.7's ``loss_weights=[1.0, 0.5]``.
POLICY_WEIGHT = 1.0
VALUE_WEIGHT = 0.5

#: Section 12.4's run.
AC_BOOK = BookSettings(
    lr=0.01,
    clipnorm=None,
    batch_size=1024,
    epochs=1,
    source="ch. 12: loss weights 1.0/0.5 (listing 12.7), SGD lr 0.01, batch 1024, one epoch (section 12.4)",
)


def actor_critic_loss(
    logits: torch.Tensor,
    values: torch.Tensor,
    actions: torch.Tensor,
    rewards: torch.Tensor,
    advantages: torch.Tensor,
    *,
    policy_weight: float = POLICY_WEIGHT,
    value_weight: float = VALUE_WEIGHT,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(total, policy loss, value loss)``: advantage-weighted cross-entropy and value MSE, weighted 1.0 and 0.5.

    >>> import torch
    >>> total, pol, val = actor_critic_loss(torch.zeros(1, 4), torch.tensor([0.0]), torch.tensor([2]),
    ...                                     torch.tensor([1.0]), torch.tensor([1.0]))
    >>> round(float(pol), 4), float(val), round(float(total), 4)
    (1.3863, 1.0, 1.8863)
    """
    policy = policy_gradient_loss(logits, actions, advantages)
    value = ((values.float() - rewards) ** 2).mean()
    return policy_weight * policy + value_weight * value, policy, value


def _loss(model: Any, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    out = model(batch["states"])
    if not isinstance(out, tuple) or len(out) != 2:
        raise InputError("actor-critic needs a network with a policy and a value head (--network ac)")
    logits, values = out
    total, policy, value = actor_critic_loss(logits, values, batch["actions"], batch["rewards"], batch["advantages"])
    return total, {"loss": total.detach(), "policy_loss": policy.detach(), "value_loss": value.detach()}


def train_actor_critic(config: RLTrainConfig, progress: Callable[[dict[str, Any]], None] | None = None) -> RLTrainResult:
    """Actor-critic (ch. 12) on the experience files of ``config``; writes an ``ac`` agent file."""
    return train_rl(
        config,
        kind="ac",
        book=AC_BOOK,
        loss_fn=_loss,
        algorithm="actor-critic (1.0 * -advantage * log pi(a|s) + 0.5 * (V(s) - reward)^2, book ch. 12)",
        progress=progress,
    )
