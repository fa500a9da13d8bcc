"""The settings of an evaluation (:class:`EvalSettings`): everything that decides its games.

An evaluation folder is resumable only if the settings that decide its games
stay the same, so they are one frozen dataclass, saved as ``eval.json``
(:data:`SETTINGS_FILE`) and compared field by field on resume. The seeds of
game ``n`` come from :func:`game_seed`, never from the worker that plays it.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from typing import Any, ClassVar

from fuseki.arena.scoring import OwnershipScorer, check_dead_stones
from fuseki.arena.specs import AgentSpec, parse_agent_spec
from fuseki.engines.programs import resolve_command
from fuseki.go.coords import check_size
from fuseki.go.rules import Rules, Scoring
from fuseki.util.runs import RunMismatch
from fuseki.util.seeds import derive_seed
from fuseki.util.errors import InputError

__all__ = ["SETTINGS_FILE", "EvalSettings", "EvalSettingsMismatch", "game_seed", "referee_argv"]

#: The settings file in an evaluation's SGF folder.
SETTINGS_FILE = "eval.json"


def game_seed(seed: int, number: int, side: int) -> int:
    """The seed of game ``number``'s ``side`` (0: A, 1: B, 2: scoring, 3: kernels): :func:`derive_seed`.

    A game's seed never depends on which worker plays it.
    """
    return derive_seed(seed, number, side)



#: The SGF folder holds an evaluation with other settings; resuming would mix two of them (the one run-folder mismatch).
EvalSettingsMismatch = RunMismatch


@dataclasses.dataclass(frozen=True)
class EvalSettings:
    """Everything that decides the games of an evaluation (not their number, not the workers).

    ``referee``: ``None`` scores by :class:`OwnershipScorer` (dead stones by
    ``dead_stones``: ``playouts`` with ``dead_playouts`` playouts, or
    ``network`` with ``dead_stones_model``), else a GTP command whose
    ``final_score`` decides (and the same count of ours if it fails).
    ``terminate`` wraps in-process agents that do not end games by themselves
    in :class:`~fuseki.agents.termination.Terminating` (pass back when ahead,
    resign when hopeless). ``move_time`` bounds a GTP engine's ``genmove``;
    ``clock`` also sends it as ``time_settings 0 T 1`` (off by default: GNU Go
    with a clock ignores its level, see :attr:`fuseki.arena.match.MatchSettings.clock`).
    """

    agent_a: str
    agent_b: str
    size: int = 9
    komi: float = 7.5
    rules: str = "chinese"
    max_moves: int | None = None  #: ``None``: three times the board's area
    seed: int = 0
    referee: str | None = None
    dead_playouts: int = 200
    terminate: bool = False
    move_time: float = 10.0
    dead_stones: str = "playouts"
    dead_stones_model: str | None = None
    clock: bool = False

    #: Evaluation folders written before ``clock`` existed were played with a clock.
    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}

    def __post_init__(self) -> None:
        check_size(self.size)
        Rules.preset(self.rules)
        if not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi}")
        if self.max_moves is not None and self.max_moves < 1:
            raise InputError(f"max moves must be at least 1, got {self.max_moves}")
        if self.dead_playouts < 1:
            raise InputError(f"dead-stone playouts must be at least 1, got {self.dead_playouts}")
        if not (math.isfinite(self.move_time) and self.move_time > 0):
            raise InputError(f"move time must be a positive number of seconds, got {self.move_time}")
        if self.dead_stones == "none":
            raise InputError("dead-stone estimate 'none' is not offered here; choose playouts or network")
        check_dead_stones(self.dead_stones, self.dead_stones_model)

    def own_count(self, number: int) -> OwnershipScorer:
        """Our count for game ``number``: its playouts are seeded by the game, so it scores the same anywhere."""
        return OwnershipScorer(
            playouts=self.dead_playouts,
            seed=game_seed(self.seed, number, 2),
            dead_stones=self.dead_stones,
            model=self.dead_stones_model,
        )

    @property
    def move_cap(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size

    def specs(self) -> tuple[AgentSpec, AgentSpec]:
        return parse_agent_spec(self.agent_a), parse_agent_spec(self.agent_b)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalSettings:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def referee_argv(settings: EvalSettings) -> list[str]:
    """The referee's command line; GNU Go gets ``--chinese-rules`` under area scoring, as in ``fuseki match``."""
    if settings.referee is None:
        raise ValueError("these settings score games by our own count, not by a referee")
    argv = resolve_command(settings.referee)
    is_gnugo = os.path.basename(argv[0]) == "gnugo"
    if is_gnugo and Rules.preset(settings.rules).scoring is Scoring.AREA and "--chinese-rules" not in argv:
        argv.append("--chinese-rules")
    return argv
