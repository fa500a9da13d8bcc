"""Leaf evaluators for PUCT (:mod:`fuseki.search.puct`): priors over the actions and a value.

An AlphaGo-style search asks, for each new leaf, two things: how promising
each move is (the prior ``P``) and who is winning (the value ``v``). The
answers come from an :class:`Evaluator`, so one search serves AlphaGo Zero
(a network), AlphaGo (a network's priors, and a value mixed from the network
and a rollout), and pure Monte Carlo (uniform priors, rollout values).

Conventions, shared by every evaluator here:

- ``evaluate(states)`` takes a batch and returns ``(priors, values)``:
  ``priors`` is float32 ``(len(states), game.num_actions)``, 0 at illegal
  actions and summing to 1 over the legal ones; ``values`` is float32
  ``(len(states),)`` in [-1, 1] **from the point of view of the player to
  move** in each state.
- A finished state gets its exact value, ``returns()[current_player]``, and
  all-zero priors, whatever the evaluator.
- Evaluators that need only a position's planes and legal actions also offer
  ``evaluate_planes(planes, masks)``: float32 ``(B, *game.planes_shape)`` and
  bool ``(B, num_actions)`` in, the same ``(priors, values)`` out. The Numba
  Go search (:mod:`fuseki.search.go.zeropuct`) writes its leaves that way,
  with no state objects to hand over.

>>> from fuseki.games import TicTacToe, TicTacToeState
>>> game = TicTacToe()
>>> priors, values = UniformEvaluator(game).evaluate([TicTacToeState.from_string("XX. OO. ...")])
>>> [round(float(p), 2) for p in priors[0]], values.tolist()
([0.0, 0.0, 0.2, 0.0, 0.0, 0.2, 0.2, 0.2, 0.2], [0.0])
>>> s = TicTacToeState.from_string("XXO OO. X.X")  # O to move: 5 wins, 7 draws
>>> _, values = RolloutEvaluator(game, rollouts=200, seed=1).evaluate([s])
>>> round(float(values[0]), 1)  # half the random games win, half draw
0.5
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from fuseki.games.base import Game
from fuseki.search.uct import RolloutPolicy, random_rollout_policy, rollout

__all__ = [
    "Evaluator",
    "MixedEvaluator",
    "NetworkEvaluator",
    "RolloutEvaluator",
    "UniformEvaluator",
    "terminal_value",
    "uniform_priors",
]


@runtime_checkable
class Evaluator(Protocol):
    """Batch of states -> (priors ``(B, num_actions)``, values ``(B,)`` for the player to move)."""

    game: Game

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]: ...


def terminal_value(state: Any) -> float:
    """The exact value of a finished game for the player whose turn it would be."""
    return float(state.returns()[state.current_player])


def uniform_priors(game: Game, states: Sequence[Any]) -> np.ndarray:
    """Equal priors over each state's legal actions (all zero for a finished state)."""
    priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
    for i, state in enumerate(states):
        actions = game.legal_actions(state)
        if len(actions):
            priors[i, actions] = 1.0 / len(actions)
    return priors


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0: PUCT as plain tree search.

    With exact terminal values this is enough to find short forced wins; it
    is the baseline that any learned evaluator must beat.
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        values = np.array([terminal_value(s) if s.is_over() else 0.0 for s in states], dtype=np.float32)
        return uniform_priors(self.game, states), values

    def evaluate_planes(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Uniform priors over each row's legal actions and value 0 (the planes are not read)."""
        masks = np.asarray(masks, dtype=bool)
        counts = masks.sum(axis=1, keepdims=True)
        priors = np.divide(masks, counts, out=np.zeros(masks.shape), where=counts > 0).astype(np.float32)
        return priors, np.zeros(len(masks), dtype=np.float32)


class RolloutEvaluator:
    """Uniform priors and the mean result of ``rollouts`` random games from the state.

    ``playout`` picks the rollout:

    - ``"random"`` (any game): :func:`fuseki.search.uct.rollout` with
      ``policy`` (uniformly random legal moves by default) and an optional
      ``max_length`` after which the game counts as a draw; driven by a
      ``random.Random(seed)``;
    - ``"light"`` or ``"heavy"`` (Go only, through :class:`fuseki.games.go.GoGame`):
      the Numba playouts of the Go MCTS (the book's no-own-eye random moves,
      or Michi's capture/pattern playouts with the Go MCTS's default
      probabilities), at most three times the board's points long, scored by
      area against komi as the Go MCTS scores them. ``seed`` seeds Numba's
      generator, which is one per process (shared with the Go MCTS).
    """

    def __init__(
        self,
        game: Game,
        *,
        rollouts: int = 1,
        seed: int | None = None,
        policy: RolloutPolicy = random_rollout_policy,
        max_length: int | None = None,
        playout: str = "random",
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        if playout not in ("random", "light", "heavy"):
            raise ValueError(f"playout must be 'random', 'light' or 'heavy', got {playout!r}")
        self.game = game
        self.rollouts = rollouts
        self.policy = policy
        self.max_length = max_length
        self.playout = playout
        self.rng = random.Random(seed)
        self._go: _GoPlayouts | None = None
        if playout != "random":
            self._go = _GoPlayouts(game, playout, seed)

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        values = np.empty(len(states), dtype=np.float32)
        for i, state in enumerate(states):
            values[i] = terminal_value(state) if state.is_over() else self.value(state)
        return uniform_priors(self.game, states), values

    def value(self, state: Any) -> float:
        """Mean rollout result in [-1, 1] for the player to move in ``state`` (not finished)."""
        player = state.current_player
        total = 0.0
        for _ in range(self.rollouts):
            if self._go is not None:
                total += self._go.value(state)
            else:
                rewards = rollout(state, self.rng, self.policy, self.max_length)
                total += 2.0 * rewards[player] - 1.0
        return total / self.rollouts


class _GoPlayouts:
    """The Go MCTS's Numba playouts run from a :class:`fuseki.games.go.GoGameState`."""

    def __init__(self, game: Any, playout: str, seed: int | None) -> None:
        # Imported here for start-up time: the Numba modules are only needed for Go.
        from fuseki.go import kernels as K
        from fuseki.search.go.reader import READER_DEPTH, reader_stack
        from fuseki.search.go import playouts as P
        from fuseki.search.go.gomcts import MCTSConfig

        if not hasattr(game, "size") or not game.name.startswith("go"):
            raise ValueError(f"{playout!r} playouts are Go's; game {game.name!r} can use playout='random'")
        self.K, self.P = K, P
        self.heavy = playout == "heavy"
        self.config = MCTSConfig()
        n = game.size
        self.max_moves = self.config.max_game_factor * n * n
        self.amaf = np.zeros((n + 2) ** 2, dtype=np.int32)
        self.cand = np.zeros(8 * (n + 2) ** 2, dtype=np.int32)
        self.kinds = np.zeros(P.NKINDS, dtype=np.int64)
        self.ladder = reader_stack(n, depth=min(READER_DEPTH, 4 * n))
        self.ladder_nodes = self.config.playout_ladder_nodes if self.config.ladders else 0
        if seed is not None:
            K.seed_kernels(int(seed))

    def value(self, state: Any) -> float:
        go = state.go
        buf = go.buffer.copy()
        self.amaf[:] = 0
        if self.heavy:
            c = self.config
            n = go.size
            prev = go.parent.last_index if go.parent is not None else None
            last2 = int(self.K.PAD[n, prev]) if prev is not None and prev < n * n else -1
            self.P.heavy_playout(
                buf,
                self.max_moves,
                self.amaf,
                last2,
                c.p_capture,
                c.p_pat3,
                c.p_selfatari,
                c.p_selfatari_random,
                self.cand,
                0,
                self.kinds,
                *self.ladder,
                self.ladder_nodes,
            )
        else:
            self.P.light_playout(buf, self.max_moves, self.amaf, 0)
        margin = float(self.P.playout_score(buf)) - go.rules.komi  # Black's area minus White's, minus komi
        black = 1.0 if margin > 0 else -1.0 if margin < 0 else 0.0
        return black if state.current_player == 0 else -black


class NetworkEvaluator:
    """A two-headed network's priors and value, many states per forward pass.

    ``network`` maps ``(B, *game.planes_shape)`` float32 planes to ``(logits
    (B, num_actions), value (B,))`` (e.g. ``build_network("residual-dual",
    ...)``). The batch goes through :class:`fuseki.nets.batcher.Batcher`
    (CUDA when present, softmax over the legal actions). Finished states are
    not sent to the network; they get their exact value.
    """

    def __init__(self, game: Game, network: Any, *, device: Any = None, max_batch: int = 256, precision: str = "fp32") -> None:
        # Imported here: torch is an optional, heavy dependency that search/ must not need to import.
        from fuseki.nets.batcher import Batcher

        self.game = game
        self.batcher = Batcher(network, device=device, max_batch=max_batch, precision=precision)

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        game = self.game
        priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
        values = np.zeros(len(states), dtype=np.float32)
        live = [i for i, s in enumerate(states) if not s.is_over()]
        for i, s in enumerate(states):
            if s.is_over():
                values[i] = terminal_value(s)
        if live:
            planes = np.stack([game.planes(states[i]) for i in live])
            masks = np.stack([game.legal_mask(states[i]) for i in live])
            p, v = self.batcher(planes, masks)
            priors[live] = p
            values[live] = v
        return priors, values

    def evaluate_planes(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The network on ready-made planes and legal masks (one forward pass per ``max_batch`` rows)."""
        return self.batcher(planes, masks)


class MixedEvaluator:
    """AlphaGo's leaf evaluation: the network's priors, and value ``λ·v_net + (1 − λ)·z_rollout``.

    AlphaGo (2016) found λ = 0.5 best. ``network`` and ``rollout`` are any
    evaluators (usually a :class:`NetworkEvaluator` and a
    :class:`RolloutEvaluator`) for the same game.
    """

    def __init__(self, network: Evaluator, rollout: Evaluator, lam: float = 0.5) -> None:
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {lam}")
        if network.game.name != rollout.game.name or network.game.num_actions != rollout.game.num_actions:
            raise ValueError(f"the network evaluator is for {network.game.name}, the rollout one for {rollout.game.name}")
        self.game = network.game
        self.network = network
        self.rollout = rollout
        self.lam = lam

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors, v = self.network.evaluate(states)
        if self.lam == 1.0:
            return priors, v
        _, z = self.rollout.evaluate(states)
        values = (self.lam * v + (1.0 - self.lam) * z).astype(np.float32)
        return priors, values
