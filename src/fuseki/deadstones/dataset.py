"""Block datasets: one row per block (string) of a finished game, its features and whether it is dead.

The thesis (Guisov 2006, §1.2.1, p. 15) caches "the characteristic vectors
of the blocks" of all final positions and trains on them full-batch; its
full set is 367,726 blocks from 10,247 games (§2.2, p. 34). We keep the
same thing in one ``.npz`` file, read with ``np.load(allow_pickle=False)``
(so a file cannot run code), with these arrays (``n`` blocks):

==============  ==============  ===================================================
key             dtype, shape    meaning
==============  ==============  ===================================================
``features_a``  float32 [n,33]  feature set A (the thesis's 33 selected features)
``features_b``  float32 [n,89]  feature set B (all 89 features)
``dead``        uint8 [n]       1 if the block is dead, 0 if alive
``game``        int32 [n]       game index (0, 1, ...): "% of games correct" groups by it
``size``        int8 [n]        board size of the game
``color``       int8 [n]        the block's colour: 1 black, 2 white (``fuseki.go.kernels``)
``stones``      int16 [n]       stones in the block
``meta``        0-d unicode     a JSON object: source, labeller, games, date, ...
==============  ==============  ===================================================

The order of rows matters: :func:`split_every_tenth` holds out every 10th
row for testing, as the thesis's training factory does (§1.2.1, p. 15).

>>> import numpy as np, tempfile, os
>>> n = 3
>>> data = BlockDataset(np.zeros((n, 33), np.float32), np.zeros((n, 89), np.float32),
...     dead=[1, 0, 0], game=[0, 0, 1], size=[9, 9, 9], color=[1, 2, 1], stones=[1, 5, 3],
...     meta={"source": "doctest", "labeller": "hand"})
>>> path = os.path.join(tempfile.mkdtemp(), "blocks.npz")
>>> save_block_dataset(path, data)
>>> back = load_block_dataset(path)
>>> len(back), back.num_games, back.meta["games"], back.dead.tolist()
(3, 2, 2, [1, 0, 0])
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import zipfile
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fuseki.util.atomic import write_atomic
from fuseki.util.errors import InputError

__all__ = [
    "BLACK",
    "WHITE",
    "FORMAT",
    "KEYS",
    "BlockDataset",
    "load_block_dataset",
    "merge_block_datasets",
    "save_block_dataset",
    "split_every_tenth",
    "held_out_mask",
]

#: Block colours, the project's board convention (``fuseki.go.kernels``: EMPTY 0, BLACK 1, WHITE 2).
BLACK, WHITE = 1, 2
#: The ``format`` entry of ``meta``.
FORMAT = "fuseki-blocks"
VERSION = 1
#: Array key -> (dtype, features per row or None for a vector).
KEYS: dict[str, tuple[type[np.generic], int | None]] = {
    "features_a": (np.float32, 33),
    "features_b": (np.float32, 89),
    "dead": (np.uint8, None),
    "game": (np.int32, None),
    "size": (np.int8, None),
    "color": (np.int8, None),
    "stones": (np.int16, None),
}


@dataclasses.dataclass(frozen=True, eq=False)
class BlockDataset:
    """The blocks of a set of finished games; arrays are converted to the file's dtypes and checked.

    ``meta`` gets ``games`` (the number of distinct games), ``date`` (today,
    UTC) and ``format`` if missing.
    """

    features_a: np.ndarray
    features_b: np.ndarray
    dead: np.ndarray
    game: np.ndarray
    size: np.ndarray
    color: np.ndarray
    stones: np.ndarray
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        arrays = {}
        for key, (dtype, width) in KEYS.items():
            raw = np.asarray(getattr(self, key))
            if width is not None and (raw.ndim != 2 or raw.shape[1] != width):
                raise InputError(f"block dataset: {key} must have shape [n, {width}], got {list(raw.shape)}")
            if width is None and raw.ndim != 1:
                raise InputError(f"block dataset: {key} must be a vector [n], got shape {list(raw.shape)}")
            if raw.size and np.issubdtype(raw.dtype, np.number) and not np.issubdtype(dtype, np.floating):
                info = np.iinfo(dtype)
                if not np.all(np.isfinite(raw)) or raw.min() < info.min or raw.max() > info.max:
                    raise InputError(f"block dataset: {key} has values outside {np.dtype(dtype).name}")
                if np.issubdtype(raw.dtype, np.floating) and np.any(raw != np.round(raw)):
                    raise InputError(f"block dataset: {key} must hold integers")
            try:
                arrays[key] = np.ascontiguousarray(raw, dtype=dtype)
            except (TypeError, ValueError):
                raise InputError(f"block dataset: {key} is not numeric") from None
        n = len(arrays["dead"])
        wrong = [f"{k} has {len(v)}" for k, v in arrays.items() if len(v) != n]
        if wrong:
            raise InputError(f"block dataset: every array needs one row per block ({n}), but " + ", ".join(wrong))
        for key in ("features_a", "features_b"):
            if not np.all(np.isfinite(arrays[key])):
                raise InputError(f"block dataset: {key} holds NaN or infinity")
        if np.any(arrays["dead"] > 1):
            raise InputError("block dataset: dead must be 0 (alive) or 1 (dead)")
        if np.any((arrays["color"] != BLACK) & (arrays["color"] != WHITE)):
            raise InputError(f"block dataset: color must be {BLACK} (black) or {WHITE} (white)")
        if np.any(arrays["game"] < 0):
            raise InputError("block dataset: game indices must be >= 0")
        if np.any(arrays["size"] < 2):
            raise InputError("block dataset: board sizes must be >= 2")
        if np.any(arrays["stones"] < 1):
            raise InputError("block dataset: a block has at least one stone")
        if not isinstance(self.meta, dict):
            raise InputError("block dataset: meta must be a dict")
        meta = dict(self.meta)
        meta.setdefault("format", FORMAT)
        meta["version"] = meta.get("version", VERSION)
        meta["games"] = int(len(np.unique(arrays["game"])))
        meta.setdefault("date", datetime.datetime.now(datetime.timezone.utc).date().isoformat())
        try:
            json.dumps(meta, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise InputError(f"block dataset: meta must be plain JSON: {e}") from None
        for key, value in arrays.items():
            value.setflags(write=False)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "meta", meta)

    def __len__(self) -> int:
        return int(self.dead.shape[0])

    @property
    def num_games(self) -> int:
        """Distinct game indices."""
        return int(self.meta["games"])

    def features(self, feature_set: str) -> np.ndarray:
        """``features_a`` for ``"A"``, ``features_b`` for ``"B"``."""
        if feature_set == "A":
            return self.features_a
        if feature_set == "B":
            return self.features_b
        raise InputError(f"unknown feature set {feature_set!r}; choose A (33 features) or B (89)")

    def subset(self, index: npt.ArrayLike) -> BlockDataset:
        """The rows at ``index`` (integer indices or a boolean mask), in that order; same meta."""
        idx = np.asarray(index)
        arrays = {key: getattr(self, key)[idx] for key in KEYS}
        return BlockDataset(**arrays, meta={k: v for k, v in self.meta.items() if k != "games"})

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by file key (without ``meta``)."""
        return {key: getattr(self, key) for key in KEYS}


def held_out_mask(n: int, every: int = 10) -> np.ndarray:
    """Boolean mask of the held-out rows: every ``every``-th row, i.e. rows ``every-1, 2·every-1, ...``.

    The thesis's training factory "treats every tenth characteristic vector
    as a test one" (§1.2.1, p. 15).

    >>> np.flatnonzero(held_out_mask(25)).tolist()
    [9, 19]
    """
    if n < 0 or every < 2:
        raise InputError(f"held_out_mask needs n >= 0 and every >= 2, got n={n}, every={every}")
    return (np.arange(n) % every) == every - 1


def split_every_tenth(data: BlockDataset, every: int = 10) -> tuple[BlockDataset, BlockDataset]:
    """``(train, test)``: every ``every``-th block (in file order) goes to test, the rest to train."""
    mask = held_out_mask(len(data), every)
    return data.subset(~mask), data.subset(mask)


def save_block_dataset(path: str | os.PathLike[str], data: BlockDataset, *, compress: bool = True) -> None:
    """Write ``data`` to ``path`` (``.npz``) atomically: a reader sees the old file or the new one."""
    if not isinstance(data, BlockDataset):
        raise TypeError("save_block_dataset needs a BlockDataset")
    arrays: dict[str, Any] = dict(data.arrays())
    arrays["meta"] = np.array(json.dumps(data.meta, sort_keys=True, allow_nan=False))
    saver = np.savez_compressed if compress else np.savez
    write_atomic(path, lambda f: saver(f, **arrays))


def load_block_dataset(path: str | os.PathLike[str]) -> BlockDataset:
    """Read a block dataset; any problem (missing, truncated, foreign, wrong shapes) is a one-line ``ValueError``."""
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise InputError(f"{name}: no such block dataset file")
    try:
        with np.load(name, allow_pickle=False) as npz:
            missing = [k for k in (*KEYS, "meta") if k not in npz.files]
            if missing:
                raise InputError(f"{name}: not a block dataset: missing key(s) {', '.join(missing)}")
            raw = {key: npz[key] for key in (*KEYS, "meta")}
    except ValueError as e:
        if str(e).startswith(name):
            raise
        raise InputError(f"{name}: not a block dataset (cannot read it as .npz without pickles: {e})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
        raise InputError(f"{name}: truncated or corrupt block dataset ({type(e).__name__}: {e})") from None
    meta_array = raw.pop("meta")
    if meta_array.shape != () or meta_array.dtype.kind != "U":
        raise InputError(f"{name}: corrupt block dataset: meta must be a 0-d unicode array holding JSON")
    try:
        meta = json.loads(str(meta_array[()]))
        if not isinstance(meta, dict):
            raise InputError("not an object")
    except ValueError:
        raise InputError(f"{name}: corrupt block dataset: meta is not a JSON object") from None
    for key, (dtype, _) in KEYS.items():
        if raw[key].dtype != np.dtype(dtype):
            expected = np.dtype(dtype).name
            raise InputError(f"{name}: corrupt block dataset: {key} is {raw[key].dtype}, expected {expected}")
    if meta.get("format", FORMAT) != FORMAT:
        raise InputError(f"{name}: not a block dataset (meta format {meta.get('format')!r})")
    if isinstance(meta.get("version"), int) and meta["version"] > VERSION:
        raise InputError(f"{name}: block dataset version {meta['version']} is newer than this fuseki reads ({VERSION})")
    try:
        return BlockDataset(**raw, meta=meta)
    except ValueError as e:
        raise InputError(f"{name}: {e}") from None


def merge_block_datasets(parts: Sequence[BlockDataset], *, meta: dict[str, Any] | None = None) -> BlockDataset:
    """One dataset with the rows of ``parts`` in order; games renumbered so that no two parts share one.

    Within each part, game indices are renumbered 0, 1, ... in order of
    first appearance, then offset by the games of the parts before it.
    ``meta`` defaults to ``{"source": "merge", "parts": [each part's meta]}``.
    """
    if not parts:
        raise InputError("merge_block_datasets needs at least one dataset")
    games = []
    offset = 0
    for part in parts:
        if not isinstance(part, BlockDataset):
            raise TypeError("merge_block_datasets takes BlockDataset objects")
        _, first, inverse = np.unique(part.game, return_index=True, return_inverse=True)
        order = np.argsort(np.argsort(first))  # rank of each unique id by its first appearance
        games.append(order[inverse].astype(np.int64) + offset)
        offset += len(first)
    arrays = {key: np.concatenate([getattr(p, key) for p in parts]) for key in KEYS if key != "game"}
    merged_meta = dict(meta) if meta is not None else {"source": "merge", "parts": [p.meta for p in parts]}
    return BlockDataset(**arrays, game=np.concatenate(games), meta=merged_meta)
