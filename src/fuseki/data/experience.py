"""Experience for reinforcement learning: what an agent saw, did and got (book ch. 9 and 12).

The book's two classes, with its names:

- :class:`ExperienceCollector` follows one agent through games. The self-play
  driver calls :meth:`~ExperienceCollector.begin_episode` and
  :meth:`~ExperienceCollector.complete_episode` around each game; the agent
  calls :meth:`~ExperienceCollector.record_decision` for each move it
  chooses, with the encoded position, the move index and (actor-critic) its
  own estimate of the position's value. At the end of a game every decision
  of that game gets the game's reward (+1 won, -1 lost, from the mover's point
  of view: listing 9.16) and an *advantage*, reward minus estimated value
  (listing 12.3).
- :class:`ExperienceBuffer` holds parallel arrays: ``states`` (uint8
  ``[N, C, H, W]``, the encoder's planes), ``actions`` (int64 ``[N]``, the
  encoder's move index: ``row * size + col``, ``size * size`` for pass where
  the encoder has a pass class), ``rewards`` and ``advantages`` (float32
  ``[N]``), optionally ``pi`` (float32 ``[N, size * size + 1]``: a search's
  visit distribution over the moves, pass last, one row per decision, each
  summing to 1, the target of AlphaGo Zero's policy head), plus metadata: the
  encoder's name, the board size, the agent and the number of games.

What differs from the book: the states stay ``uint8`` (the book's arrays
are float64, eight times larger), the file is an ``.npz`` archive instead of
HDF5, written atomically (a reader sees the old file or the new one), and it
is read with ``allow_pickle=False``: the metadata is a JSON text stored as a
0-d unicode array, so loading a file runs no code. A truncated or foreign
file raises :class:`ExperienceError`, a ``ValueError`` with a one-line
message. :func:`combine_experience` merges buffers from several workers and
checks that they agree (the book's version concatenates blindly).

>>> import numpy as np
>>> c = ExperienceCollector("oneplane", 5)
>>> c.begin_episode()
>>> c.record_decision(np.zeros((1, 5, 5), np.uint8), 12, estimated_value=0.25)
>>> c.complete_episode(reward=1)
>>> buf = c.to_buffer()
>>> len(buf), buf.rewards.tolist(), buf.advantages.tolist(), buf.games
(1, [1.0], [0.75], 1)
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.util.atomic import write_atomic
from fuseki.util.errors import FusekiError

__all__ = [
    "EXPERIENCE_FORMAT",
    "EXPERIENCE_VERSION",
    "ExperienceBuffer",
    "ExperienceCollector",
    "ExperienceError",
    "combine_experience",
    "load_experience",
    "load_experiences",
    "num_actions",
]

#: The ``format`` field of the metadata of every experience file.
EXPERIENCE_FORMAT = "fuseki-experience"
#: The newest layout version this fuseki reads. Version 2 adds the optional
#: ``pi`` array; a file without ``pi`` is still written as version 1, so an
#: older fuseki reads it, while one with ``pi`` is refused there instead of
#: being read without its visit distributions.
EXPERIENCE_VERSION = 2
_ARRAYS = ("states", "actions", "rewards", "advantages")
#: How far a row of ``pi`` may sum from 1 (float32 rounding of normalised visit counts).
PI_TOLERANCE = 1e-3


class ExperienceError(FusekiError, ValueError):
    """An experience file that cannot be used (missing, truncated, foreign, too new), or buffers that do not agree."""


def num_actions(board_size: int) -> int:
    """Go's moves as indices: every point (``row * size + col``) and pass (``size * size``)."""
    return board_size * board_size + 1


class ExperienceBuffer:
    """Parallel arrays of decisions: states, actions, rewards, advantages, optional ``pi``, and what produced them.

    ``metadata`` holds ``agent`` (a description of the agent, e.g. its file
    and checksum), ``games`` (how many games the decisions come from) and
    anything else JSON (the self-play settings, the game results).
    """

    def __init__(
        self,
        states: np.ndarray,
        actions: np.ndarray,
        rewards: np.ndarray,
        advantages: np.ndarray | None = None,
        *,
        encoder: str,
        board_size: int,
        metadata: Mapping[str, Any] | None = None,
        pi: np.ndarray | None = None,
    ) -> None:
        states = np.asarray(states)
        if states.dtype != np.uint8:
            if states.size and (not np.all(np.isfinite(states)) or states.min() < 0 or states.max() > 255
                                or np.any(states != np.round(states))):
                raise ExperienceError("states must be uint8 planes (whole numbers from 0 to 255)")
            states = states.astype(np.uint8)
        n = len(states)
        if states.ndim != 4:
            raise ExperienceError(f"states must have shape [N, C, H, W], got {states.shape}")
        if not isinstance(board_size, (int, np.integer)) or not 2 <= int(board_size) <= 25:
            raise ExperienceError(f"board size must be from 2 to 25, got {board_size!r}")
        if states.shape[2:] != (board_size, board_size) and n:
            raise ExperienceError(f"states are {states.shape[2]}x{states.shape[3]}, the board is {board_size}x{board_size}")
        if not isinstance(encoder, str) or not encoder:
            raise ExperienceError("an experience buffer needs its encoder's name")
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        rewards = np.asarray(rewards, dtype=np.float32).reshape(-1)
        advantages = (
            np.zeros(n, dtype=np.float32) if advantages is None else np.asarray(advantages, dtype=np.float32).reshape(-1)
        )
        for name, arr in (("actions", actions), ("rewards", rewards), ("advantages", advantages)):
            if len(arr) != n:
                raise ExperienceError(f"{name} has {len(arr)} entries for {n} states")
        if n and (actions.min() < 0 or actions.max() > board_size * board_size):
            raise ExperienceError(f"actions must be move indices from 0 to {board_size * board_size} (pass)")
        if not (np.all(np.isfinite(rewards)) and np.all(np.isfinite(advantages))):
            raise ExperienceError("rewards and advantages must be finite numbers")
        if pi is not None:
            pi = _check_pi(pi, n, int(board_size))
        self.states = states
        self.actions = actions
        self.rewards = rewards
        self.advantages = advantages
        #: Visit distributions, ``[N, size * size + 1]`` float32, or ``None`` when not recorded.
        self.pi = pi
        self.encoder = encoder
        self.board_size = int(board_size)
        self.metadata: dict[str, Any] = dict(metadata or {})

    def __len__(self) -> int:
        return len(self.states)

    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.states.shape[1:]) or "-"
        return (
            f"ExperienceBuffer({len(self)} decisions, {shape} planes, encoder={self.encoder!r}, "
            f"size={self.board_size}, games={self.games})"
        )

    @property
    def games(self) -> int:
        """How many games the decisions come from (``metadata["games"]``, 0 when unknown)."""
        return int(self.metadata.get("games", 0))

    @property
    def agent(self) -> str:
        """A description of the agent that made the decisions (``metadata["agent"]``)."""
        return str(self.metadata.get("agent", ""))

    # ---- files -------------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The JSON object stored next to the arrays."""
        return {
            "format": EXPERIENCE_FORMAT,
            "version": 1 if self.pi is None else 2,
            "encoder": self.encoder,
            "board_size": self.board_size,
            "positions": len(self),
            **{k: v for k, v in self.metadata.items() if k not in ("format", "version", "encoder", "board_size", "positions")},
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the buffer to ``path`` (an ``.npz`` archive, compressed) atomically."""
        try:
            text = json.dumps(self.header(), sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ExperienceError(f"experience metadata must be plain JSON: {e}") from None
        arrays = {
            "states": self.states,
            "actions": self.actions,
            "rewards": self.rewards,
            "advantages": self.advantages,
            "metadata": np.array(text),
        }
        if self.pi is not None:
            arrays["pi"] = self.pi
        write_atomic(path, lambda f: np.savez_compressed(f, **arrays))

    # The book's name for writing (``serialize``), kept for readers of the book.
    serialize = save

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ExperienceBuffer:
        """Read a buffer written by :meth:`save`; raises :class:`ExperienceError` for anything else."""
        p = Path(path)
        if p.is_dir():
            raise ExperienceError(f"{p}: is a directory, not an experience file")
        if not p.exists():
            raise ExperienceError(f"{p}: no such experience file")
        try:
            with np.load(p, allow_pickle=False) as data:
                missing = [k for k in (*_ARRAYS, "metadata") if k not in data.files]
                if missing:
                    raise ExperienceError(f"{p}: not a fuseki experience file (it lacks {', '.join(missing)})")
                meta_arr = data["metadata"]
                arrays = {k: data[k] for k in _ARRAYS}
                pi = data["pi"] if "pi" in data.files else None
        except ExperienceError:
            raise
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as e:
            what = "truncated or corrupt" if p.stat().st_size else "empty"
            raise ExperienceError(f"{p}: not a readable experience file ({what}: {e})") from None
        try:
            meta = json.loads(str(meta_arr[()])) if meta_arr.shape == () and meta_arr.dtype.kind == "U" else None
        except ValueError:
            meta = None
        if not isinstance(meta, dict) or meta.get("format") != EXPERIENCE_FORMAT:
            raise ExperienceError(f"{p}: not a fuseki experience file (no {EXPERIENCE_FORMAT} metadata)")
        version = meta.get("version")
        if not isinstance(version, int) or version < 1:
            raise ExperienceError(f"{p}: corrupt experience file: bad version {version!r}")
        if version > EXPERIENCE_VERSION:
            raise ExperienceError(
                f"{p}: written by a newer fuseki (experience format {version}; this one reads {EXPERIENCE_VERSION})"
            )
        if arrays["states"].dtype != np.uint8:
            raise ExperienceError(f"{p}: corrupt experience file: states are {arrays['states'].dtype}, not uint8")
        if meta.get("positions") != len(arrays["states"]):
            raise ExperienceError(f"{p}: corrupt experience file: {len(arrays['states'])} states, the header says {meta.get('positions')}")
        if version == 1 and pi is not None:
            raise ExperienceError(f"{p}: corrupt experience file: a version 1 file with a pi array")
        if version >= 2 and pi is None:
            raise ExperienceError(f"{p}: corrupt experience file: version {version} without its pi array")
        extra = {k: v for k, v in meta.items() if k not in ("format", "version", "encoder", "board_size", "positions")}
        try:
            return cls(**arrays, encoder=meta.get("encoder"), board_size=meta.get("board_size"), metadata=extra, pi=pi)
        except ExperienceError as e:
            raise ExperienceError(f"{p}: corrupt experience file: {e}") from None


def load_experience(path: str | os.PathLike[str]) -> ExperienceBuffer:
    """The book's ``load_experience`` (listing 9.15): one experience file."""
    return ExperienceBuffer.load(path)


def load_experiences(paths: Sequence[str | os.PathLike[str]]) -> ExperienceBuffer:
    """Several experience files merged into one buffer (:func:`combine_experience`); at least one path."""
    if not paths:
        raise ExperienceError("no experience files given")
    buffers = [ExperienceBuffer.load(p) for p in paths]
    if len(buffers) == 1:
        return buffers[0]
    try:
        return combine_experience(buffers)
    except ExperienceError as e:
        raise ExperienceError(f"these experience files do not go together: {e}") from None


def combine_experience(buffers: Iterable[ExperienceBuffer | ExperienceCollector]) -> ExperienceBuffer:
    """Concatenate buffers (or collectors) in order: the book's ``combine_experience`` (listings 9.21, 12.4).

    The buffers must share the encoder, board size and plane shape. The merged
    metadata counts the games of all of them; the agent is kept when it is the
    same everywhere and listed otherwise; other keys are kept when they agree.
    Visit distributions (``pi``) are kept when every buffer with decisions has
    them; buffers with and without ``pi`` do not combine (the merged ``pi``
    would have holes).
    """
    items = [b.to_buffer() if isinstance(b, ExperienceCollector) else b for b in buffers]
    if not items:
        raise ExperienceError("nothing to combine: no experience buffers")
    first = items[0]
    shapes = {b.states.shape[1:] for b in items if len(b)}
    for b in items[1:]:
        if (b.encoder, b.board_size) != (first.encoder, first.board_size):
            raise ExperienceError(
                f"encoder {b.encoder!r} on {b.board_size}x{b.board_size} does not match "
                f"{first.encoder!r} on {first.board_size}x{first.board_size}"
            )
    if len(shapes) > 1:
        raise ExperienceError(f"the states have different shapes: {sorted(shapes)}")
    with_pi = [b.pi is not None for b in items if len(b)]
    if any(with_pi) and not all(with_pi):
        raise ExperienceError("some buffers have visit distributions (pi) and some do not")
    pi = None
    if any(with_pi):
        width = num_actions(first.board_size)
        pi = np.concatenate([b.pi if b.pi is not None else np.zeros((0, width), np.float32) for b in items])
    shape = next(iter(shapes)) if shapes else first.states.shape[1:]
    states = np.concatenate([b.states.reshape((-1, *shape)) for b in items]) if shapes else first.states
    agents = list(dict.fromkeys(b.agent for b in items if b.agent))
    metadata: dict[str, Any] = {}
    for key in items[0].metadata:
        values = [b.metadata.get(key) for b in items]
        if key not in ("games", "agent") and all(v == values[0] for v in values):
            metadata[key] = values[0]
    metadata["games"] = sum(b.games for b in items)
    if agents:
        metadata["agent"] = agents[0] if len(agents) == 1 else "; ".join(agents)
    return ExperienceBuffer(
        states,
        np.concatenate([b.actions for b in items]),
        np.concatenate([b.rewards for b in items]),
        np.concatenate([b.advantages for b in items]),
        encoder=first.encoder,
        board_size=first.board_size,
        metadata=metadata,
        pi=pi,
    )


def _check_pi(pi: Any, n: int, board_size: int) -> np.ndarray:
    """``pi`` as float32 ``[n, size * size + 1]`` rows of probabilities, else :class:`ExperienceError`."""
    width = num_actions(board_size)
    arr = np.asarray(pi, dtype=np.float32)
    if arr.shape != (n, width):
        raise ExperienceError(f"pi must have shape [{n}, {width}] (one row per decision, pass last), got {arr.shape}")
    if n and (not np.all(np.isfinite(arr)) or arr.min() < 0):
        raise ExperienceError("pi must hold finite, non-negative probabilities")
    sums = arr.sum(axis=1, dtype=np.float64)
    if n and np.any(np.abs(sums - 1.0) > PI_TOLERANCE):
        worst = int(np.argmax(np.abs(sums - 1.0)))
        raise ExperienceError(f"each row of pi must sum to 1; row {worst} sums to {sums[worst]:.6g}")
    return arr


class ExperienceCollector:
    """Records one agent's decisions game by game and gives each the game's reward and an advantage.

    ``encoder`` is an :class:`~fuseki.encoders.base.Encoder` or a name (then
    pass ``board_size``); it labels the buffer. ``agent`` describes the agent
    in the buffer's metadata.
    """

    def __init__(self, encoder: Any, board_size: int | None = None, *, agent: str = "") -> None:
        if isinstance(encoder, str):
            if board_size is None:
                raise ValueError("give the board size with an encoder name")
            self.encoder_name, self.board_size = encoder, int(board_size)
        else:
            self.encoder_name, self.board_size = str(encoder.name), int(encoder.size)
        self.agent = agent
        self.states: list[np.ndarray] = []
        self.actions: list[int] = []
        self.rewards: list[float] = []
        self.advantages: list[float] = []
        self.pis: list[np.ndarray | None] = []
        #: Completed episodes (games).
        self.episodes = 0
        self._current_states: list[np.ndarray] = []
        self._current_actions: list[int] = []
        self._current_values: list[float] = []
        self._current_pis: list[np.ndarray | None] = []

    def begin_episode(self) -> None:
        """Start a game: forget any decisions of an unfinished one."""
        self._current_states = []
        self._current_actions = []
        self._current_values = []
        self._current_pis = []

    def record_decision(
        self, state: np.ndarray, action: int, estimated_value: float = 0.0, *, pi: np.ndarray | None = None
    ) -> None:
        """One decision: the encoded position (uint8 planes), the move index, the agent's value estimate.

        ``pi`` is the search's visit distribution over the ``size * size + 1``
        moves (pass last), for agents that search; a buffer holds ``pi`` for
        every decision or for none.
        """
        value = float(estimated_value)
        if not math.isfinite(value):
            raise ValueError(f"the estimated value must be a finite number, got {estimated_value!r}")
        row = None if pi is None else _check_pi(np.asarray(pi).reshape(1, -1), 1, self.board_size)[0]
        self._current_states.append(np.asarray(state, dtype=np.uint8))
        self._current_actions.append(int(action))
        self._current_values.append(value)
        self._current_pis.append(row)

    def complete_episode(self, reward: float) -> None:
        """End the game: every decision of it gets ``reward`` and the advantage ``reward - estimated value``."""
        r = float(reward)
        if not math.isfinite(r):
            raise ValueError(f"the reward must be a finite number, got {reward!r}")
        self.states += self._current_states
        self.actions += self._current_actions
        self.rewards += [r] * len(self._current_states)
        self.advantages += [r - v for v in self._current_values]
        self.pis += self._current_pis
        self.episodes += 1
        self.begin_episode()

    @property
    def pending(self) -> int:
        """Decisions recorded in the game under way (not yet in the buffer)."""
        return len(self._current_states)

    def to_buffer(self, **metadata: Any) -> ExperienceBuffer:
        """The completed games as an :class:`ExperienceBuffer`; ``metadata`` is added to its metadata."""
        if self.states:
            states = np.stack(self.states)
        else:
            states = np.zeros((0, 0, self.board_size, self.board_size), dtype=np.uint8)
        meta: dict[str, Any] = {"games": self.episodes}
        if self.agent:
            meta["agent"] = self.agent
        meta.update(metadata)
        given = [row is not None for row in self.pis]
        if any(given) and not all(given):
            raise ExperienceError(f"{sum(given)} of {len(given)} decisions have a visit distribution (pi); all or none")
        pi = np.stack(self.pis) if self.pis and all(given) else None  # type: ignore[arg-type]
        return ExperienceBuffer(
            states,
            np.asarray(self.actions, dtype=np.int64),
            np.asarray(self.rewards, dtype=np.float32),
            np.asarray(self.advantages, dtype=np.float32),
            encoder=self.encoder_name,
            board_size=self.board_size,
            metadata=meta,
            pi=pi,
        )
