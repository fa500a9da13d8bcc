"""The thesis's classifier at work: dead stones of a finished position, and agreement with GNU Go (spec T4).

:func:`nn_final_status` does what the thesis's program does at the end of a
game: a static pass first (a block in atari is dead), then the network
classifies every other block from its features (P(dead) above 0.5 is dead).
Its answer has the shape of :func:`fuseki.go.ownership.final_status`, so the
GTP engine, the match runner and the web UI can use either estimate; the
network knows nothing of seki, so its ``seki`` list is always empty.

The classifier is a model file (:mod:`fuseki.deadstones.model`) found by path,
or by name in the ``deadstones/`` subfolder of the models folders
(``$FUSEKI_MODELS``, then the package's ``fuseki/models/``), kept apart from
the agent files there; :data:`DEFAULT_MODEL` is the small one that ships
with fuseki.

:func:`agreement` measures how often an estimate names the same dead stones
as GNU Go's ``final_status_list dead`` on finished games: the share of
blocks with the same status and the share of games where every block agrees.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fuseki.data.sources import list_games, read_games
from fuseki.deadstones.features import block_features, find_blocks
from fuseki.go.coords import Point
from fuseki.go.sgf import SgfError, read_sgf
from fuseki.util import models
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.deadstones.model import DeadStoneClassifier
    from fuseki.go.state import GameState

__all__ = [
    "DEFAULT_MODEL",
    "METHODS",
    "agreement",
    "final_status_estimator",
    "load_dead_stone_model",
    "nn_dead_stones",
    "nn_final_status",
]

#: The dead-stone estimates a frontend can choose: ``playouts`` (Benson, playout ownership and the seki
#: rule of :mod:`fuseki.go.ownership`) and ``network`` (the thesis's classifier).
METHODS = ("playouts", "network")

#: The model that ships in ``fuseki/models/`` (trained by ``fuseki deadstones train``; see docs/deadstones.md).
DEFAULT_MODEL = "deadstones-33-32-1"
_SUFFIX = ".safetensors"


def _resolve(name_or_path: str | os.PathLike[str]) -> Path:
    path = Path(name_or_path)
    if path.exists():
        return path
    name = str(name_or_path)
    for folder in models.models_dirs():
        for candidate in (folder / "deadstones" / name, folder / "deadstones" / (name + _SUFFIX), folder / name):
            if candidate.is_file():
                return candidate
    raise InputError(f"no dead-stone model {name!r}: not a file, and not in the models folders")


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime: float) -> "DeadStoneClassifier":
    from fuseki.deadstones.model import load_classifier

    return load_classifier(path)


def load_dead_stone_model(name_or_path: str | os.PathLike[str] = DEFAULT_MODEL) -> "DeadStoneClassifier":
    """The classifier in a model file (by path or name), loaded once per process and file version."""
    path = _resolve(name_or_path)
    return _load_cached(str(path.resolve()), path.stat().st_mtime)


def nn_final_status(
    state: "GameState", model: "DeadStoneClassifier | str | None" = None, *, threshold: float = 0.5
) -> dict[str, list[Point]]:
    """Every stone as ``"alive"``, ``"dead"`` or ``"seki"`` (always empty), by the static rule and the network."""
    classifier = load_dead_stone_model(model or DEFAULT_MODEL) if model is None or isinstance(model, str) else model
    blocks, features = block_features(state, classifier.feature_set)
    dead_mask = np.array([b.in_atari for b in blocks], dtype=bool)
    ask = ~dead_mask
    if ask.any():
        dead_mask[ask] = classifier.predict(features[ask]) > threshold
    dead: list[Point] = []
    alive: list[Point] = []
    for block, is_dead in zip(blocks, dead_mask):
        (dead if is_dead else alive).extend(block.points)
    return {"alive": sorted(alive), "dead": sorted(dead), "seki": []}


def nn_dead_stones(state: "GameState", model: "DeadStoneClassifier | str | None" = None) -> list[Point]:
    """The dead stones by the classifier, sorted by (row, col); pass them to ``state.score(dead=...)``."""
    return nn_final_status(state, model)["dead"]


def final_status_estimator(
    method: str = "playouts", *, model: "str | os.PathLike[str] | None" = None, playouts: int = 200, seed: int | None = 0
) -> Callable[["GameState"], dict[str, list[Point]]]:
    """A ``final_status``-like function for ``method`` (one of :data:`METHODS`), checked now, not at the end of a game.

    ``model`` (``network`` only) is a model file or name; the default is the
    shipped one. A bad method or an unreadable model raises ``ValueError``.
    """
    if method == "playouts":
        if model is not None:
            raise InputError("a dead-stone model applies to the network estimate only")
        from fuseki.go.ownership import final_status

        return lambda state: final_status(state, playouts=playouts, seed=seed)
    if method == "network":
        classifier = load_dead_stone_model(model if model is not None else DEFAULT_MODEL)
        return lambda state: nn_final_status(state, classifier)
    raise InputError(f"unknown dead-stone estimate {method!r}; choose one of {', '.join(METHODS)}")


Estimator = Callable[["GameState"], Iterable[Point]]


def agreement(
    states: Iterable["GameState"],
    estimators: dict[str, Estimator],
    reference: Callable[["GameState"], frozenset[Point]],
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Each estimator's agreement with ``reference`` (GNU Go) over ``states``: blocks and whole games.

    A block agrees when the estimator and the reference give it the same
    status (dead or not); a game agrees when all its blocks do. The time each
    estimator takes is reported too.
    """
    totals = {name: {"blocks_agree": 0, "games_agree": 0, "seconds": 0.0} for name in estimators}
    blocks_total = games = 0
    for n, state in enumerate(states, 1):
        blocks = find_blocks(state)
        truth = reference(state)
        ref = [all(p in truth for p in b.points) for b in blocks]
        blocks_total += len(blocks)
        games += 1
        for name, estimate in estimators.items():
            t0 = time.perf_counter()
            dead = set(estimate(state))
            totals[name]["seconds"] += time.perf_counter() - t0
            ours = [all(p in dead for p in b.points) for b in blocks]
            same = sum(a == b for a, b in zip(ours, ref))
            totals[name]["blocks_agree"] += same
            totals[name]["games_agree"] += int(same == len(blocks))
        if progress is not None:
            progress(n)
    result: dict[str, Any] = {"games": games, "blocks": blocks_total, "estimators": {}}
    for name, t in totals.items():
        result["estimators"][name] = {
            "blocks_agree": t["blocks_agree"],
            "blocks_agree_pct": round(100 * t["blocks_agree"] / blocks_total, 2) if blocks_total else None,
            "games_agree": t["games_agree"],
            "games_agree_pct": round(100 * t["games_agree"] / games, 2) if games else None,
            "ms_per_game": round(1000 * t["seconds"] / games, 2) if games else None,
        }
    return result


def finished_states(sources: Sequence[str | os.PathLike[str]], *, skip: int = 0, games: int | None = None) -> Iterable["GameState"]:
    """Final positions of the games in ``sources`` that ended with two passes (after the first ``skip`` games)."""
    refs = list_games(sources)[skip:]
    used = 0
    for _, data in read_games(refs):
        if games is not None and used >= games:
            return
        try:
            record = read_sgf(data)
            state = record.replay()
        except (SgfError, ValueError):
            continue
        if state.is_over() and state.resigned is None and "+R" not in record.result.upper():
            used += 1
            yield state
