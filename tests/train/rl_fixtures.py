"""The tiny experience the RL trainers' tests share: two 5x5 decisions, one game each.

Imported as ``from rl_fixtures import ...`` (pytest puts this folder on
``sys.path``, as ``tests/data/sgf_corpus.py`` is used).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from fuseki.encoders import get_encoder
from fuseki.go.state import GameState, Move
from fuseki.data.experience import ExperienceBuffer, ExperienceCollector

ENC = get_encoder("oneplane", 5)
STATES = [GameState.new(5), GameState.new(5).apply_moves([Move.play((2, 2))])]
ACTIONS = (12, 6)


def experience(
    path,
    rewards: Sequence[float] = (1.0, -1.0),
    actions: Sequence[int] = ACTIONS,
    values: Sequence[float] | None = None,
    agent: str = "",
) -> ExperienceBuffer:
    """Two decisions, ``actions[i]`` in ``STATES[i]`` with ``rewards[i]`` (and estimated ``values[i]``), saved to ``path``."""
    c = ExperienceCollector(ENC, agent=agent)
    for i, (state, action, reward) in enumerate(zip(STATES, actions, rewards)):
        c.begin_episode()
        c.record_decision(ENC.encode(state), action, estimated_value=0.0 if values is None else values[i])
        c.complete_episode(reward)
    buf = c.to_buffer()
    buf.save(path)
    return buf


def encoded(states: Sequence[GameState] = STATES) -> torch.Tensor:
    """The states as one float batch for a network."""
    return torch.from_numpy(np.stack([ENC.encode(s) for s in states])).float()
