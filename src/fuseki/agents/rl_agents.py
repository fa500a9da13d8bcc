"""The learning agents of the book's reinforcement-learning chapters: PolicyAgent, QAgent, ACAgent.

Each follows the :class:`~fuseki.agents.base.Agent` protocol
(``select_move(state) -> Move``) and, when a collector is attached
(:meth:`set_collector`, as in listing 9.17), records every decision it makes
into an :class:`~fuseki.data.experience.ExperienceCollector`.

- :class:`PolicyAgent` (ch. 9-10, listing 9.12): a policy network's move
  probabilities, clipped to ``[1e-5, 1 - 1e-5]`` (the book's ``clip_probs``),
  then one draw among the acceptable moves.
- :class:`QAgent` (ch. 11, listings 11.5-11.7): a two-input action-value
  network ``Q(s, a)`` (:class:`fuseki.nets.rl.QNetwork`); ε-greedy: with
  probability ε the moves are ranked at random, otherwise by value, and the
  first acceptable one is played. It evaluates board points only and passes
  when none is acceptable, as the book's does.
- :class:`ACAgent` (ch. 12, listing 12.6): a network with a policy and a value
  head (:class:`fuseki.nets.rl.ActorCriticNetwork`); moves are drawn like the
  policy agent's (clip 1e-6, listing 12.6) and the value estimate of the
  position is recorded with the decision, so that the collector can compute
  advantages.

*Acceptable* is the book's rule everywhere: legal and not filling one of the
agent's own eyes; with no such point the agent passes. (An encoder with a
pass class, ``zero``, lets the policy choose pass too.) Drawing once from the
probabilities restricted to the acceptable moves is distributed exactly like
the book's ranked draw without replacement, and costs one draw.

``epsilon`` is the book's ``set_temperature`` (ch. 10-11): the chance that a
move is chosen uniformly among the acceptable ones instead of by the network.
For the policy and actor-critic agents this is the extra randomness section
10.3.3 suggests (0.5-1 % of moves); for the Q agent it is the ε of ε-greedy
(the book starts around 0.5 and lowers it as the agent improves).

:func:`load_rl_agent` builds the right agent from an agent file by the
``kind`` stored in it (``policy``, ``q``, ``ac``); a supervised policy file
(kind ``policy``) loads as a :class:`PolicyAgent`, so RL can start from it.

>>> import torch
>>> from fuseki.encoders import get_encoder
>>> from fuseki.go.state import GameState
>>> from fuseki.nets.registry import build_network
>>> enc = get_encoder("oneplane", 5)
>>> bot = ACAgent(build_network("ac", in_planes=1, size=5, num_moves=25, layers=[[4, 3]], board_hidden=8,
...               policy_hidden=8, value_hidden=8), enc, seed=1)
>>> state = GameState.new(5)
>>> state.is_legal(bot.select_move(state))
True
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from fuseki.agents.agent_file import AgentFileError, load_agent_file, read_agent_info
from fuseki.agents.deep_learning import clip_probs
from fuseki.nets.inference import inference
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.agents.agent_file import AgentFileInfo
    from fuseki.data.experience import ExperienceCollector
    from fuseki.encoders.base import Encoder
    from fuseki.go.state import GameState, Move

__all__ = [
    "AC_EPS",
    "KINDS",
    "POLICY_EPS",
    "ACAgent",
    "PolicyAgent",
    "QAgent",
    "acceptable_moves",
    "load_rl_agent",
    "make_rl_agent",
]

#: Agent-file kinds and the agent class each loads as.
KINDS = ("policy", "q", "ac")
#: The clipping of ch. 9's ``clip_probs`` (listing 9.6's ``min_p = 1e-5``).
POLICY_EPS = 1e-5
#: The clipping of the actor-critic agent (listing 12.6's ``eps = 1e-6``).
AC_EPS = 1e-6


def acceptable_moves(state: GameState, encoder: Encoder, *, with_pass: bool | None = None) -> np.ndarray:
    """Move indices the book's agents may choose: legal points that are not the mover's own eye.

    With ``with_pass`` (default: when the encoder has a pass class) pass
    (``size * size``) is added while the game goes on. Sorted, so that a
    seeded draw does not depend on the order of :meth:`GameState.legal_points`.
    """
    n2 = state.size * state.size
    legal = state.legal_points()
    color = state.next_player
    is_eye = state.is_eye
    points = sorted(int(p) for p in legal if p < n2 and not is_eye(int(p), color))
    if with_pass is None:
        with_pass = encoder.num_moves > n2
    if with_pass and len(legal):
        points.append(n2)
    return np.asarray(points, dtype=np.int64)


def _check_epsilon(epsilon: float) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not (0.0 <= epsilon <= 1.0):
        raise InputError(f"the exploration temperature (epsilon) must be from 0 to 1, got {epsilon!r}")
    return float(epsilon)


class _LearningAgent:
    """What the three agents share: the encoder, the collector, ε, the seeded generator, the device."""

    kind = ""

    def __init__(
        self,
        model: Any,
        encoder: Encoder,
        *,
        epsilon: float = 0.0,
        seed: int | None = None,
        collector: ExperienceCollector | None = None,
        name: str | None = None,
        info: AgentFileInfo | None = None,
    ) -> None:
        self.model = model
        self.encoder = encoder
        self.epsilon = _check_epsilon(epsilon)
        self.collector = collector
        self.name = name or self.kind
        #: The agent file's metadata when loaded from one.
        self.info = info
        self._rng = np.random.default_rng(seed)
        model.eval()

    @property
    def board_size(self) -> int:
        """The one board size this agent plays (its encoder's)."""
        return int(self.encoder.size)

    def set_collector(self, collector: ExperienceCollector | None) -> None:
        """The book's ``set_collector`` (listing 9.17): where decisions are recorded (``None``: nowhere)."""
        self.collector = collector

    def set_temperature(self, temperature: float) -> None:
        """The book's ``set_temperature``: the chance of a uniformly random acceptable move (ε)."""
        self.epsilon = _check_epsilon(temperature)

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's random generator (self-play reseeds per game, so games do not depend on order)."""
        self._rng = np.random.default_rng(seed)

    def _device(self) -> Any:
        param = next(iter(self.model.parameters()), None)
        return param.device if param is not None else "cpu"

    def _encode(self, state: GameState) -> np.ndarray:
        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        if state.size != self.encoder.size:
            n = self.encoder.size
            raise InputError(
                f"this {self.name} agent plays {n}x{n} only (its network reads encoder {self.encoder.name!r} "
                f"on that size), not {state.size}x{state.size}"
            )
        return self.encoder.encode(state)

    def _tensor(self, planes: np.ndarray) -> Any:
        import torch

        return torch.from_numpy(planes[None]).to(device=self._device(), dtype=torch.float32)

    def _move(self, state: GameState, index: int) -> Move:
        from fuseki.go.state import Move

        if index >= state.size * state.size:
            return Move.pass_turn()
        return Move.play(self.encoder.decode_point_index(index))

    def _draw(self, candidates: np.ndarray, weights: np.ndarray | None) -> int:
        """One candidate: uniform with probability ε (or without weights), else in proportion to ``weights``."""
        explore = self.epsilon > 0 and self._rng.random() < self.epsilon
        if weights is None or explore:
            return int(candidates[int(self._rng.integers(len(candidates)))])
        cum = np.cumsum(weights)
        i = int(np.searchsorted(cum, self._rng.random() * cum[-1], side="right"))
        return int(candidates[min(i, len(candidates) - 1)])

    def __repr__(self) -> str:
        source = f", file={os.path.basename(self.info.path)!r}" if self.info is not None and self.info.path else ""
        return (
            f"{type(self).__name__}(encoder={self.encoder.name!r}, size={self.encoder.size}, "
            f"epsilon={self.epsilon:g}{source})"
        )


class PolicyAgent(_LearningAgent):
    """Plays by sampling its policy network's move probabilities (book ch. 9-10)."""

    kind = "policy"

    def __init__(self, model: Any, encoder: Encoder, *, clip: float = POLICY_EPS, **options: Any) -> None:
        if not (isinstance(clip, (int, float)) and 0 <= clip < 0.5):
            raise InputError(f"clip must be from 0 to 0.5, got {clip!r}")
        super().__init__(model, encoder, **options)
        self.clip = float(clip)

    def move_probabilities(self, planes: np.ndarray) -> np.ndarray:
        """Softmax of the network's logits for one encoded position, clipped as the book does (float64)."""
        with inference(self._device()):
            logits = self.model(self._tensor(planes))
        return _probs(logits[0].float().cpu().numpy(), self.clip)

    def select_move(self, state: GameState) -> Move:
        planes = self._encode(state)
        candidates = acceptable_moves(state, self.encoder)
        if len(candidates) == 0:
            return self._move(state, state.size * state.size)
        probs = self.move_probabilities(planes)
        index = self._draw(candidates, probs[candidates])
        if self.collector is not None:
            self.collector.record_decision(planes, index)
        return self._move(state, index)


class ACAgent(_LearningAgent):
    """Plays by sampling the policy head and records the value head's estimate (book ch. 12)."""

    kind = "ac"

    def __init__(self, model: Any, encoder: Encoder, *, clip: float = AC_EPS, **options: Any) -> None:
        if not (isinstance(clip, (int, float)) and 0 <= clip < 0.5):
            raise InputError(f"clip must be from 0 to 0.5, got {clip!r}")
        super().__init__(model, encoder, **options)
        self.clip = float(clip)

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, float]:
        """The clipped move probabilities and the value estimate (in [-1, 1]) of one encoded position."""
        with inference(self._device()):
            logits, value = self.model(self._tensor(planes))
        return _probs(logits[0].float().cpu().numpy(), self.clip), float(value[0])

    def select_move(self, state: GameState) -> Move:
        planes = self._encode(state)
        candidates = acceptable_moves(state, self.encoder)
        if len(candidates) == 0:
            return self._move(state, state.size * state.size)
        probs, value = self.evaluate(planes)
        index = self._draw(candidates, probs[candidates])
        if self.collector is not None:
            self.collector.record_decision(planes, index, estimated_value=value)
        return self._move(state, index)


class QAgent(_LearningAgent):
    """ε-greedy over the action values of the acceptable board points (book ch. 11)."""

    kind = "q"

    def action_values(self, planes: np.ndarray, points: np.ndarray) -> np.ndarray:
        """``Q(s, a)`` for one encoded position and each point index in ``points``."""
        import torch

        with inference(self._device()):
            actions = torch.from_numpy(np.asarray(points, dtype=np.int64)).to(self._device())
            values = self.model.action_values(self._tensor(planes), actions)
        return values.float().cpu().numpy()

    def select_move(self, state: GameState) -> Move:
        planes = self._encode(state)
        candidates = acceptable_moves(state, self.encoder, with_pass=False)
        if len(candidates) == 0:
            return self._move(state, state.size * state.size)
        if self.epsilon > 0 and self._rng.random() < self.epsilon:
            index = int(candidates[int(self._rng.integers(len(candidates)))])
        else:
            values = self.action_values(planes, candidates)
            index = int(candidates[int(np.argmax(values))])
        if self.collector is not None:
            self.collector.record_decision(planes, index)
        return self._move(state, index)


def _probs(logits: np.ndarray, clip: float) -> np.ndarray:
    z = logits.astype(np.float64)
    z -= z.max()
    e = np.exp(z)
    p = e / e.sum()
    return clip_probs(p, clip) if clip else p


_CLASSES: dict[str, type[_LearningAgent]] = {"policy": PolicyAgent, "q": QAgent, "ac": ACAgent}


def load_rl_agent(path_or_name: str | os.PathLike[str], **options: Any) -> PolicyAgent | QAgent | ACAgent:
    """The learning agent stored in an agent file (path or models name), chosen by its ``kind``.

    ``options`` go to the agent (``epsilon``, ``seed``, ``collector``;
    ``clip`` for policy and actor-critic agents). A supervised policy file
    loads as a :class:`PolicyAgent`. Raises
    :class:`~fuseki.agents.agent_file.AgentFileError` for a bad file or an
    unknown kind.
    """
    info = read_agent_info(path_or_name)
    cls = _CLASSES.get(info.kind)
    if cls is None:
        raise AgentFileError(f"{info.path}: a {info.kind!r} agent file; reinforcement-learning agents are {', '.join(KINDS)}")
    model, info = load_agent_file(path_or_name)
    if "clip" in options and cls is QAgent:
        raise InputError("a Q agent has no clip option (it chooses by value, not by probability)")
    return cls(model, info.make_encoder(), info=info, **options)  # type: ignore[return-value]


def make_rl_agent(model: str | None = None, epsilon: float = 0.0, seed: int | None = None) -> _LearningAgent:
    """The registry's ``rl``: :func:`load_rl_agent` on ``model`` (a path or a name)."""
    if model is None:
        raise InputError("agent 'rl' needs a model: --model FILE (a policy, q or ac agent file)")
    if isinstance(epsilon, str):
        try:
            epsilon = float(epsilon)
        except ValueError:
            raise InputError(f"epsilon must be a number, got {epsilon!r}") from None
    if not math.isfinite(float(epsilon)):
        raise InputError(f"epsilon must be a finite number, got {epsilon!r}")
    return load_rl_agent(model, epsilon=epsilon, seed=seed)

