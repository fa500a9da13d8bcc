"""Draw a reproducible sample of games and split it into train and test, by game.

The book's ``Sampler`` splits KGS games by year (test games are from before
2014) and draws with Python's global ``random``; ours splits by *game id* and
depends on nothing but the ids and the seed:

- Whether a game is a test game is a property of the game itself: the SHA-256
  of its portable name (its id without the path of its source,
  ``fuseki.data.sources``), read as a number in [0, 1), is below
  ``test_fraction``. It does
  not depend on the seed or on how many games are drawn, so two runs with the
  same fraction never disagree about a game: a game that was ever used for
  testing is never trained on, whatever the sample size or seed.
- Within each side, games are drawn in the order of SHA-256 of ``seed`` and
  the portable name. The same seed draws the same games on every machine and
  NumPy version, wherever the sources lie, and a larger sample contains the
  smaller one.
- A fixed test set (the ``test`` list of an earlier :class:`Split`) can be
  given instead; it is used as is and its games are kept out of training.

The :class:`Split` records both lists; the processor stores it next to the
shards, so the split can be checked and reused.

>>> ids = [f"game-{i}.sgf" for i in range(100)]
>>> split = sample_games(ids, 20, test_fraction=0.25, seed=1)
>>> len(split.train), len(split.test), set(split.train) & set(split.test)
(15, 5, set())
>>> sample_games(ids, 20, test_fraction=0.25, seed=1) == split
True
>>> set(sample_games(ids, 10, test_fraction=0.25, seed=1).train) <= set(split.train)
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fuseki.util.atomic import write_json_atomic
from fuseki.util.errors import InputError

__all__ = ["Split", "draw_key", "is_test_game", "read_test_list", "sample_games", "split_value"]


def split_value(game_id: str) -> float:
    """A number in [0, 1) fixed by the game id alone; below the test fraction means test."""
    digest = hashlib.sha256(b"fuseki-test-split\0" + game_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def is_test_game(game_id: str, test_fraction: float) -> bool:
    """Is ``game_id`` on the test side for ``test_fraction``?"""
    return split_value(game_id) < test_fraction


def draw_key(game_id: str, seed: int) -> bytes:
    """The order in which a seed draws games: ascending SHA-256 of seed and id."""
    return hashlib.sha256(f"{seed}\0{game_id}".encode()).digest()


@dataclasses.dataclass(frozen=True)
class Split:
    """Train and test game ids, disjoint, each in drawing order."""

    train: tuple[str, ...]
    test: tuple[str, ...]
    seed: int = 0
    test_fraction: float = 0.0
    #: ``True`` when the test list was given, not drawn.
    fixed_test: bool = False

    def __post_init__(self) -> None:
        both = set(self.train) & set(self.test)
        if both:
            raise InputError(f"game {min(both)!r} is in both the train and the test set")
        for name, ids in (("train", self.train), ("test", self.test)):
            if len(set(ids)) != len(ids):
                raise InputError(f"the {name} list repeats a game")

    @property
    def games(self) -> int:
        return len(self.train) + len(self.test)

    def side(self, name: str) -> tuple[str, ...]:
        """``"train"`` or ``"test"`` -> that list."""
        if name not in ("train", "test"):
            raise InputError(f"split side must be 'train' or 'test', got {name!r}")
        return self.train if name == "train" else self.test

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "test_fraction": self.test_fraction,
            "fixed_test": self.fixed_test,
            "train": list(self.train),
            "test": list(self.test),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Split:
        return cls(
            train=tuple(d["train"]),
            test=tuple(d["test"]),
            seed=int(d.get("seed", 0)),
            test_fraction=float(d.get("test_fraction", 0.0)),
            fixed_test=bool(d.get("fixed_test", False)),
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the split as JSON, atomically."""
        write_json_atomic(path, self.to_dict())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Split:
        """Read a split written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def read_test_list(path: str | os.PathLike[str]) -> list[str]:
    """Test games from a file: a split JSON (its ``test_names``, else its ``test`` ids) or one a line.

    A split written by ``fuseki data process`` holds the portable names of its
    test games (``test_names``), which match the same games wherever their
    source now lies; an entry of a plain list may be an id or a portable name.
    """
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        try:
            d = json.loads(text)
            return list(d["test_names"] if "test_names" in d else d["test"])
        except (ValueError, KeyError, TypeError) as e:
            raise InputError(f"{path}: not a split file with a test list ({e})") from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _resolve_test_games(test_games: Sequence[str], pool: list[str], names: Mapping[str, str]) -> list[str]:
    """Map each entry (an id, else a portable name) to the id of a game in ``pool``."""
    by_name: dict[str, list[str]] = {}
    for g in pool:
        by_name.setdefault(names.get(g, g), []).append(g)
    ids = set(pool)
    test: list[str] = []
    for entry in dict.fromkeys(test_games):
        if entry in ids:
            test.append(entry)
            continue
        found = by_name.get(entry, [])
        if not found:
            raise InputError(f"test game {entry!r} is not among the games of the sources")
        if len(found) > 1:
            raise InputError(f"test game {entry!r} names {len(found)} games of the sources ({found[0]!r}, {found[1]!r}); give ids")
        test.append(found[0])
    return list(dict.fromkeys(test))


def sample_games(
    game_ids: Iterable[str],
    games: int | None = None,
    *,
    test_fraction: float = 0.1,
    seed: int = 0,
    test_games: Sequence[str] | None = None,
    names: Mapping[str, str] | None = None,
) -> Split:
    """Draw ``games`` games (all when ``None``) and split them into train and test.

    Without ``test_games``, ``round(games * test_fraction)`` test games are
    drawn from the games whose :func:`split_value` is below ``test_fraction``
    and the rest from the others (if one side runs short, the sample is
    smaller). With ``test_games`` (ids or portable names), those are the test
    set (each must be among ``game_ids``) and the other ``games -
    len(test_games)`` are drawn for training; ``test_fraction`` is then only
    recorded.

    ``names`` maps an id to its portable name
    (:attr:`fuseki.data.sources.GameRef.portable`); the split and the draw
    hash that name, so the sample does not depend on where the sources lie.
    Games of equal names are ordered by id.
    """
    names = names or {}

    def key(g: str) -> str:
        return names.get(g, g)

    if not 0.0 <= test_fraction < 1.0:
        raise InputError(f"test fraction must be in [0, 1), got {test_fraction}")
    pool = list(dict.fromkeys(game_ids))
    if games is not None and games < 0:
        raise InputError(f"number of games must not be negative, got {games}")

    def drawn(ids: Iterable[str]) -> list[str]:
        return sorted(ids, key=lambda g: (draw_key(key(g), seed), g))

    if test_games is not None:
        test = _resolve_test_games(test_games, pool, names)
        total = len(pool) if games is None else games
        if total < len(test):
            raise InputError(f"{total} games asked for, but the fixed test set alone has {len(test)}")
        taken = set(test)
        train = drawn(g for g in pool if g not in taken)[: total - len(test)]
        return Split(tuple(train), tuple(test), seed, test_fraction, fixed_test=True)

    is_test = {g: is_test_game(key(g), test_fraction) for g in pool}  # one hash a game
    test_pool = drawn(g for g in pool if is_test[g])
    train_pool = drawn(g for g in pool if not is_test[g])
    if games is None:
        return Split(tuple(train_pool), tuple(test_pool), seed, test_fraction)
    n_test = min(len(test_pool), math.floor(games * test_fraction + 0.5))
    n_train = min(len(train_pool), games - n_test)
    return Split(tuple(train_pool[:n_train]), tuple(test_pool[:n_test]), seed, test_fraction)
