"""The book's ``DeepLearningAgent`` (ch. 8): a move-prediction network that plays.

The agent encodes the position, asks the network for move probabilities and
turns them into a move, as in listings 8.2-8.4:

1. probabilities: ``softmax(logits / temperature)`` (the book's model ends in
   a softmax; ``temperature=1`` is that);
2. ``cube=True``: ``probs ** 3``, the book's way to favour the likely moves;
3. ``clip=1e-6``: the book's clipping, ``np.clip(probs, eps, 1 - eps)``, so no
   move has probability 0 or 1, then renormalising (:func:`clip_probs`);
4. only legal moves that do not fill one of the agent's own eyes (the book's
   ``is_point_an_eye`` rule, :meth:`GameState.is_eye`) are candidates; with
   none left, the agent passes;
5. ``mode="sample"`` draws a candidate in proportion to its probability;
   ``mode="argmax"`` takes the most probable one.

The book draws a random ranking of *all* moves (``np.random.choice`` without
replacement, weighted) and plays the first acceptable one. The first
acceptable move of such a ranking is distributed exactly like one draw from
the probabilities restricted to the acceptable moves, which is what we do:
one draw instead of a permutation and a validity test per move.

Defaults are the book's (sampling, cube, clip 1e-6, temperature 1).
Encoders with a pass class (``zero``) let the network choose pass too.

>>> import torch
>>> from fuseki.encoders import get_encoder
>>> from fuseki.go.state import GameState
>>> enc = get_encoder("oneplane", 5)
>>> net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(25, 25))
>>> bot = DeepLearningAgent(net, enc, mode="argmax")
>>> state = GameState.new(5)
>>> state.is_legal(bot.select_move(state))
True
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fuseki.agents.agent_file import AgentFileError, available_models, load_agent_file
from fuseki.agents.base import board_size_problem
from fuseki.encoders import get_encoder
from fuseki.nets.inference import inference
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from fuseki.agents.agent_file import AgentFileInfo
    from fuseki.encoders.base import Encoder
    from fuseki.go.state import GameState, Move

__all__ = [
    "DEFAULT_POLICY_MODELS",
    "DeepLearningAgent",
    "MODES",
    "ShippedPolicyAgent",
    "clip_probs",
    "default_policy_installed",
    "default_policy_path",
    "default_policy_paths",
    "load_prediction_agent",
    "make_policy_agent",
]

#: How a move is chosen from the probabilities.
MODES = ("sample", "argmax")
#: The book's clipping epsilon in ch. 8 (listing 8.3); ch. 9's ``clip_probs`` uses 1e-5.
BOOK_EPS = 1e-6
#: The policy networks shipped in ``fuseki/models/``, by the board size each was trained for: what
#: ``policy`` plays when no model is named (9x9: GNU Go's games; 19x19: fox-9d's human games).
DEFAULT_POLICY_MODELS: dict[int, str] = {9: "policy-9x9", 19: "policy-19x19"}


def clip_probs(probs: np.ndarray, eps: float = BOOK_EPS) -> np.ndarray:
    """The book's clipping: every value into ``[eps, 1 - eps]``, then renormalised (along the last axis).

    >>> clip_probs(np.array([1.0, 0.0]), eps=0.1).tolist()
    [0.9, 0.1]
    """
    clipped = np.clip(np.asarray(probs, dtype=np.float64), eps, 1.0 - eps)
    return clipped / clipped.sum(axis=-1, keepdims=True)


class DeepLearningAgent:
    """Plays the moves a policy network predicts (an :class:`~fuseki.agents.base.Agent`).

    ``model`` maps a float tensor ``(batch, planes, N, N)`` to move logits
    ``(batch, encoder.num_moves)``; ``encoder`` turns positions into its
    input. With ``any_size`` the network plays every board size (no weight
    of it depends on the size: :attr:`AgentFileInfo.any_size`), each read
    by the same encoder built for that size; otherwise only the encoder's.
    ``clip`` is the clipping epsilon (``None`` or 0: no clipping); ``cube`` raises the probabilities to the third power before clipping, as
    the book does. ``seed`` makes sampling reproducible.
    """

    def __init__(
        self,
        model: Any,
        encoder: Encoder,
        *,
        temperature: float = 1.0,
        mode: str = "sample",
        cube: bool = True,
        clip: float | None = BOOK_EPS,
        seed: int | None = None,
        name: str = "policy",
        info: AgentFileInfo | None = None,
        any_size: bool = False,
    ) -> None:
        self.check_options(temperature=temperature, mode=mode, cube=cube, clip=clip)
        self.model = model
        self.encoder = encoder
        self.any_size = bool(any_size)
        self._encoders: dict[int, Encoder] = {int(encoder.size): encoder}
        self.temperature = float(temperature)
        self.mode = mode
        self.cube = cube
        self.clip = float(clip) if clip else None
        self.name = name
        #: The agent file's metadata when loaded from one.
        self.info = info
        self._rng = np.random.default_rng(seed)
        model.eval()

    @staticmethod
    def check_options(
        temperature: float = 1.0, mode: str = "sample", cube: bool = True, clip: float | None = BOOK_EPS
    ) -> None:
        """Refuse a bad option with one clear line (before any network is loaded)."""
        if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature > 0):
            raise InputError(f"temperature must be a positive number, got {temperature!r}")
        if mode not in MODES:
            raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if clip is not None and not (isinstance(clip, (int, float)) and 0 <= clip < 0.5):
            raise InputError(f"clip must be from 0 to 0.5 (or None), got {clip!r}")
        if not isinstance(cube, bool):
            raise InputError(f"cube must be true or false, got {cube!r}")

    @property
    def board_size(self) -> int | None:
        """The one board size this agent plays (its encoder's); ``None`` when it plays any (``agent_board_sizes``)."""
        return None if self.any_size else int(self.encoder.size)

    def plays(self, size: int) -> bool:
        """Whether it plays a ``size`` board."""
        return self.any_size or int(size) == self.encoder.size

    def encoder_for(self, size: int) -> Encoder:
        """The encoder of a ``size`` board (built once a size); a clear error for a size the network cannot play."""
        enc = self._encoders.get(int(size))
        if enc is None:
            if not self.any_size:
                raise InputError(
                    f"this {self.name} agent plays {self.encoder.size}x{self.encoder.size} only "
                    f"(its network was trained with encoder {self.encoder.name!r} on that size), "
                    f"not {size}x{size}"
                )
            enc = self._encoders[int(size)] = get_encoder(self.encoder.name, int(size))
        return enc

    # ---- the network ------------------------------------------------------

    def logits(self, states: Sequence[GameState]) -> np.ndarray:
        """The network's move logits for a batch of positions, ``float32 (len(states), num_moves)``."""
        import torch

        if not states:
            return np.zeros((0, self.encoder.num_moves), dtype=np.float32)
        sizes = {state.size for state in states}
        if len(sizes) != 1:
            raise InputError(f"one board size a batch, got {sorted(sizes)}")
        encoder = self.encoder_for(sizes.pop())
        planes = np.stack([encoder.encode(s) for s in states])
        param = next(iter(self.model.parameters()), None)
        device = param.device if param is not None else "cpu"
        with inference(device, len(states)):
            x = torch.from_numpy(planes).to(device=device, dtype=torch.float32)
            out = self.model(x)
        return out.float().cpu().numpy()

    def predict(self, states: Sequence[GameState]) -> np.ndarray:
        """The network's move probabilities (softmax of the logits), ``(len(states), num_moves)``.

        The book's ``predict``, batched: one forward pass for many positions.
        """
        return _softmax(self.logits(states).astype(np.float64))

    def move_probabilities(self, states: Sequence[GameState]) -> np.ndarray:
        """The probabilities the agent chooses from, before legality: temperature, cube, clip (float64)."""
        probs = _softmax(self.logits(states).astype(np.float64) / self.temperature)
        if self.cube:
            probs = probs**3  # unnormalised, as in the book: the clip sees the cubed values
        if self.clip:
            return clip_probs(probs, self.clip)
        return probs / probs.sum(axis=-1, keepdims=True)

    # ---- choosing ---------------------------------------------------------

    def candidates(self, state: GameState) -> np.ndarray:
        """Move indices the agent may play: legal, not its own eye (and pass where the encoder has a pass class)."""
        n2 = state.size * state.size
        legal = state.legal_points()
        color = state.next_player
        is_eye = state.is_eye
        points = [int(p) for p in legal if p < n2 and not is_eye(int(p), color)]
        if self.encoder_for(state.size).num_moves > n2 and len(legal):
            points.append(n2)
        return np.asarray(points, dtype=np.int64)

    def select_move(self, state: GameState) -> Move:
        from fuseki.go.state import Move

        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        probs = self.move_probabilities([state])[0]
        index = self._choose(state, probs)
        n = state.size
        if index >= n * n:
            return Move.pass_turn()
        return Move.play(self.encoder_for(n).decode_point_index(index))

    def _choose(self, state: GameState, probs: np.ndarray) -> int:
        """The chosen move index (``size * size``: pass) from the agent's probabilities."""
        cands = self.candidates(state)
        if len(cands) == 0:
            return state.size * state.size
        weights = probs[cands]
        if self.mode == "argmax":
            return int(cands[int(np.argmax(weights))])
        cum = np.cumsum(weights)
        i = int(np.searchsorted(cum, self._rng.random() * cum[-1], side="right"))
        return int(cands[min(i, len(cands) - 1)])

    def analyze(self, state: GameState, top: int = 5) -> dict[str, Any]:
        """The most probable acceptable moves: ``(index, vertex, network probability, choice probability)``.

        The network probability is the plain softmax; the choice probability
        is what ``select_move`` draws with (temperature, cube, clip,
        restricted to the candidates). With ``mode="argmax"`` the first entry
        is the move it plays.
        """
        from fuseki.go.coords import to_gtp

        raw = self.predict([state])[0]
        probs = self.move_probabilities([state])[0]
        cands = self.candidates(state)
        n = state.size
        rows = []
        if len(cands):
            choice = probs[cands] / probs[cands].sum()
            order = np.argsort(-choice, kind="stable")[:top]
            for j in order:
                index = int(cands[j])
                vertex = "pass" if index >= n * n else to_gtp(self.encoder_for(n).decode_point_index(index), n)
                rows.append((index, vertex, float(raw[index]), float(choice[j])))
        return {
            "top": rows,
            "candidates": int(len(cands)),
            "mode": self.mode,
            "temperature": self.temperature,
            "pass_probability": float(raw[n * n]) if raw.shape[0] > n * n else None,
        }

    def __repr__(self) -> str:
        source = f", file={os.path.basename(self.info.path)!r}" if self.info is not None and self.info.path else ""
        return (
            f"DeepLearningAgent(encoder={self.encoder.name!r}, size={'any' if self.any_size else self.encoder.size}, "
            f"mode={self.mode!r}, "
            f"temperature={self.temperature:g}, cube={self.cube}, clip={self.clip}{source})"
        )


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def load_prediction_agent(path_or_name: str | os.PathLike[str], **options: Any) -> DeepLearningAgent:
    """The book's ``load_prediction_agent``: a :class:`DeepLearningAgent` from an agent file (path or name).

    ``options`` go to :class:`DeepLearningAgent` (``temperature``, ``mode``, ...).
    """
    model, info = load_agent_file(path_or_name)
    if info.kind != "policy":
        raise AgentFileError(f"{info.path}: a {info.kind!r} agent file, not a policy network")
    return DeepLearningAgent(model, info.make_encoder(), info=info, any_size=info.any_size, **options)


def make_policy_agent(
    model: str | None = None,
    temperature: float = 1.0,
    mode: str = "sample",
    cube: bool = True,
    clip: float | None = BOOK_EPS,
    seed: int | None = None,
) -> DeepLearningAgent | ShippedPolicyAgent:
    """The registry's ``policy``: :func:`load_prediction_agent` on ``model`` (a path or a name).

    Without ``model`` it plays the shipped networks (:data:`DEFAULT_POLICY_MODELS`),
    each on its own board size, so that ``--bot policy`` alone works on 9x9
    and on 19x19; where none is installed the error lists the models that are.
    """
    options: dict[str, Any] = {"temperature": temperature, "mode": mode, "cube": cube, "clip": clip, "seed": seed}
    if model is None:
        shipped = default_policy_paths()
        if not shipped:
            names = ", ".join(available_models()) or "none installed"
            defaults = ", ".join(repr(n) for n in DEFAULT_POLICY_MODELS.values())
            raise InputError(
                f"agent 'policy' needs a model: --model FILE or a model name ({names}); "
                f"the defaults ({defaults}) are not installed"
            )
        return ShippedPolicyAgent(shipped, **options)
    return load_prediction_agent(model, **options)


class ShippedPolicyAgent:
    """``policy`` without a model file: the shipped network of the board being played.

    A network plays the one board size it was trained for, and the sizes
    players use most (9x9 and 19x19) each have their own shipped network. One
    bot that holds them all lets ``fuseki gtp`` answer a controller's
    ``boardsize`` with the right network before it knows the size, instead of
    refusing every board but one. A size's network is loaded the first time
    that size is played (reading a file costs a few hundred milliseconds).
    """

    def __init__(self, paths: dict[int, Path], **options: Any) -> None:
        if not paths:
            raise InputError("no shipped policy network to play")
        DeepLearningAgent.check_options(**{k: v for k, v in options.items() if k != "seed"})
        self.name = "policy"
        self.paths = dict(sorted(paths.items()))
        self._options = options
        self._agents: dict[int, DeepLearningAgent] = {}

    @property
    def board_sizes(self) -> tuple[int, ...]:
        """The sizes it plays: one per shipped network (``agent_board_sizes`` reads this)."""
        return tuple(self.paths)

    def agent_for(self, size: int) -> DeepLearningAgent:
        """The network for ``size`` (loaded once); a clear error for a size without one."""
        agent = self._agents.get(size)
        if agent is None:
            if size not in self.paths:
                raise InputError(board_size_problem(self.name, self.board_sizes, size))
            agent = load_prediction_agent(self.paths[size], **self._options)
            if not agent.plays(size):
                raise AgentFileError(
                    f"{self.paths[size]}: the shipped policy for {size}x{size} was trained on "
                    f"{agent.encoder.size}x{agent.encoder.size}"
                )
            self._agents[size] = agent
        return agent

    def select_move(self, state: GameState) -> Move:
        return self.agent_for(state.size).select_move(state)

    def predict(self, states: Sequence[GameState]) -> np.ndarray:
        """:meth:`DeepLearningAgent.predict` with the network of the states' board (one size a batch)."""
        return self._batch_agent(states).predict(states)

    def move_probabilities(self, states: Sequence[GameState]) -> np.ndarray:
        """:meth:`DeepLearningAgent.move_probabilities` with the network of the states' board."""
        return self._batch_agent(states).move_probabilities(states)

    def analyze(self, state: GameState, top: int = 5) -> dict[str, Any]:
        """:meth:`DeepLearningAgent.analyze` with the network of ``state``'s board."""
        return self.agent_for(state.size).analyze(state, top)

    def _batch_agent(self, states: Sequence[GameState]) -> DeepLearningAgent:
        sizes = {s.size for s in states}
        if len(sizes) != 1:
            raise InputError(f"one board size a batch, got {sorted(sizes) or 'no positions'}")
        return self.agent_for(sizes.pop())

    def __repr__(self) -> str:
        files = ", ".join(f"{size}x{size}: {os.path.basename(path)}" for size, path in self.paths.items())
        return f"ShippedPolicyAgent({files})"


def default_policy_paths() -> dict[int, Path]:
    """The shipped policy networks that are installed, by board size (:data:`DEFAULT_POLICY_MODELS`).

    The models are trained apart from the code and may be missing from a
    checkout. Only the models folders are searched (``$FUSEKI_MODELS``, then
    the package's), not the working directory, so a stray file named
    ``policy-9x9`` there cannot stand in for one.
    """
    installed = available_models()
    return {size: installed[name] for size, name in DEFAULT_POLICY_MODELS.items() if name in installed}


def default_policy_path(size: int) -> Path | None:
    """Where the shipped policy network for ``size`` is installed, or ``None`` (none for that size, or missing)."""
    return default_policy_paths().get(size)


def default_policy_installed(size: int | None = None) -> bool:
    """Whether a shipped policy network is there to be played (on ``size``; ``None``: on any size)."""
    return bool(default_policy_paths()) if size is None else default_policy_path(size) is not None
