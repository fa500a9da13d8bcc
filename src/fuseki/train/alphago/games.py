"""Games as flat move arrays, for the Numba trainers that replay them on raw board buffers.

The SL policy reads encoded shards (``fuseki data process``); the rollout
policy's trainer replays the same games itself, because its features are
computed from the board buffer as the rollouts compute them. It takes the
split of the SL shards (``split.json``), so that both policies are measured
on the same held-out games.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from fuseki.data.processor import SkipGame, random_opening_moves, read_game
from fuseki.data.sources import GameReader

__all__ = ["MoveArrays", "load_move_arrays"]


@dataclasses.dataclass(frozen=True)
class MoveArrays:
    """Many games of one board size: ``moves[starts[g] : starts[g] + lengths[g]]`` is game ``g``.

    A move is an unpadded index (``size*size`` = pass). ``targets[i]`` is 1
    when move ``i`` is an example (not a random opening move, a player that
    ``players`` keeps), 0 when it is only played.
    """

    size: int
    moves: np.ndarray  # int32
    targets: np.ndarray  # int8
    starts: np.ndarray  # int64
    lengths: np.ndarray  # int64
    ids: tuple[str, ...]
    skipped: dict[str, int]

    @property
    def games(self) -> int:
        return len(self.ids)

    @property
    def examples(self) -> int:
        return int(self.targets.sum())


def load_move_arrays(game_ids: Iterable[str], size: int, *, players: str | None = None) -> MoveArrays:
    """Read the games ``game_ids`` (ids of :mod:`fuseki.data.sources`) into :class:`MoveArrays`.

    Games of another size, with setup stones, or that do not read are left
    out and counted in ``skipped`` by reason.
    """
    pattern = re.compile(players) if players else None
    ids = list(game_ids)
    moves: list[int] = []
    targets: list[int] = []
    starts: list[int] = []
    lengths: list[int] = []
    kept: list[str] = []
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    with GameReader(ids) as reader:
        for gid in ids:
            try:
                record: Any = read_game(reader.read(gid))
            except SkipGame as e:
                skip(e.kind)
                continue
            if record.size != size:
                skip("board_size")
                continue
            if record.setup_black or record.setup_white:
                skip("setup_stones")
                continue
            learn_b = pattern is None or bool(pattern.search(record.black))
            learn_w = pattern is None or bool(pattern.search(record.white))
            opening = random_opening_moves(record.comment)
            start = len(moves)
            for number, (color, move) in enumerate(record.moves, 1):
                moves.append(size * size if not move.is_play else move.point.row * size + move.point.col)
                learn = learn_b if color.letter == "B" else learn_w
                targets.append(1 if (learn and number > opening and move.is_play) else 0)
            starts.append(start)
            lengths.append(len(moves) - start)
            kept.append(gid)
    return MoveArrays(
        size=size,
        moves=np.asarray(moves, dtype=np.int32),
        targets=np.asarray(targets, dtype=np.int8),
        starts=np.asarray(starts, dtype=np.int64),
        lengths=np.asarray(lengths, dtype=np.int64),
        ids=tuple(kept),
        skipped=skipped,
    )
