"""The book's toy policy-learning problem, "Add It Up" (ch. 10, section 10.1, listings 10.1-10.4).

The game: two players take turns picking a number from 1 to 5; after 100
turns each adds up their own picks, and the larger total wins (a tie goes to
the second player, as ``simulate_game`` in listing 10.2 has it). Picking 5
every time is obviously best, which is the point: we can watch a learner
find it.

Both players use the same policy (self-play). After each game:

- ``method="book"`` (listing 10.4): for each number, ``net_wins`` = times the
  winner picked it minus times the loser did; ``policy[k] += lr * net_wins``,
  then the policy is clipped to [0, 1] and renormalised. The book's rate is
  ``learning_rate = 0.0001``; its figure 10.2 shows the worst choice (1)
  dropping out after about 1,000 games and the policy nearly always picking
  5 after about 2,000 more.
- ``method="gradient"``: the same game, with the policy as a softmax over
  five logits trained by :func:`~fuseki.train.policy_gradient.policy_gradient_loss`
  (every pick of the winner gets reward +1, of the loser -1) and plain SGD:
  the rule the book builds on in section 10.2, on a problem whose answer is
  known. The gradient of the mean loss over a game's 200 picks is
  ``-net_wins / 200`` per logit, listing 10.4's update in logit space.

:func:`train_add_it_up` returns the policy after every game and the reward
curve: the expected number picked per turn under the policy (3.0 for the
uniform start, 5.0 for the perfect policy).

>>> result = train_add_it_up(games=300, seed=1)
>>> float(result.expected[0]), bool(result.expected[-1] > result.expected[0])
(3.0, True)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from fuseki.train.policy_gradient import policy_gradient_loss
from fuseki.util.errors import InputError

__all__ = ["BOOK_LR", "CHOICES", "GRADIENT_LR", "TURNS", "AddItUpResult", "simulate_game", "train_add_it_up"]

#: The numbers a player may pick.
CHOICES = np.arange(1, 6)
#: Picks per player in one game.
TURNS = 100
#: Listing 10.4's ``learning_rate``.
BOOK_LR = 1e-4
#: Our SGD rate for the gradient variant (not from the book: the toy has no network there).
GRADIENT_LR = 0.2
METHODS = ("book", "gradient")


@dataclasses.dataclass(frozen=True)
class AddItUpResult:
    """The policy after each game (row 0: the uniform start) and the reward curve."""

    method: str
    lr: float
    seed: int
    #: ``(games + 1, 5)``: probabilities of picking 1..5.
    policies: np.ndarray
    #: 1 where the first player won each game, 0 where the second did.
    first_player_won: np.ndarray

    @property
    def expected(self) -> np.ndarray:
        """The reward curve: the expected pick per turn, ``policy · (1..5)``, after each game."""
        return self.policies @ CHOICES.astype(np.float64)

    def to_dict(self, every: int = 100) -> dict[str, Any]:
        """A summary: the settings, the final policy and every ``every``-th point of the curve."""
        curve = self.expected
        return {
            "method": self.method,
            "lr": self.lr,
            "seed": self.seed,
            "games": len(curve) - 1,
            "final_policy": [round(float(p), 4) for p in self.policies[-1]],
            "curve": [{"game": int(g), "expected_pick": round(float(curve[g]), 4)} for g in range(0, len(curve), every)],
        }


def simulate_game(policy: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    """Listing 10.2: ``(winner's counts of 1..5, loser's counts, first player won)`` for one game."""
    first = rng.choice(CHOICES, size=TURNS, p=policy)
    second = rng.choice(CHOICES, size=TURNS, p=policy)
    c1 = np.bincount(first, minlength=6)[1:]
    c2 = np.bincount(second, minlength=6)[1:]
    if first.sum() > second.sum():
        return c1, c2, True
    return c2, c1, False


def _normalize(policy: np.ndarray) -> np.ndarray:
    """Listing 10.4's ``normalize``: clip to [0, 1], then divide by the sum."""
    policy = np.clip(policy, 0, 1)
    return policy / np.sum(policy)


def train_add_it_up(
    games: int = 3000, *, lr: float | None = None, seed: int = 0, method: str = "book"
) -> AddItUpResult:
    """Play ``games`` self-play games of Add It Up, learning after each; returns the policies and the curve.

    ``lr`` defaults to the book's 0.0001 (``method="book"``) or
    :data:`GRADIENT_LR` (``method="gradient"``). The same seed gives the same
    result.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(f"games must be a whole number at least 1, got {games!r}")
    rate = (BOOK_LR if method == "book" else GRADIENT_LR) if lr is None else float(lr)
    if not (math.isfinite(rate) and rate > 0):
        raise InputError(f"the learning rate must be a positive number, got {lr!r}")
    rng = np.random.default_rng(seed)
    policies = np.empty((games + 1, 5))
    won = np.empty(games, dtype=np.int8)
    policy = np.full(5, 0.2)
    policies[0] = policy
    if method == "book":
        for g in range(games):
            win_counts, lose_counts, first = simulate_game(policy, rng)
            policy = _normalize(policy + rate * (win_counts - lose_counts))
            policies[g + 1] = policy
            won[g] = first
    else:
        policies, won = _train_gradient(games, rate, rng, policies, won)
    return AddItUpResult(method, rate, seed, policies, won)


def _train_gradient(
    games: int, lr: float, rng: np.random.Generator, policies: np.ndarray, won: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The gradient variant: a softmax policy, the policy-gradient loss, SGD (see the module docstring)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a 5-logit problem: threads only cost (and change nothing in the result)
    try:
        return _gradient_loop(games, lr, rng, policies, won)
    finally:
        torch.set_num_threads(threads)


def _gradient_loop(
    games: int, lr: float, rng: np.random.Generator, policies: np.ndarray, won: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    import torch

    logits = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.SGD([logits], lr=lr)
    rewards = torch.cat([torch.ones(TURNS), -torch.ones(TURNS)]).double()
    for g in range(games):
        policy = torch.softmax(logits.detach(), 0).numpy()
        policy = policy / policy.sum()
        first = rng.choice(CHOICES, size=TURNS, p=policy)
        second = rng.choice(CHOICES, size=TURNS, p=policy)
        first_won = bool(first.sum() > second.sum())
        winner, loser = (first, second) if first_won else (second, first)
        actions = torch.from_numpy(np.concatenate([winner, loser]) - 1)
        optimizer.zero_grad()
        loss = policy_gradient_loss(logits.expand(2 * TURNS, 5), actions, rewards)
        loss.backward()
        optimizer.step()
        policies[g + 1] = torch.softmax(logits.detach(), 0).numpy()
        won[g] = first_won
    return policies, won
