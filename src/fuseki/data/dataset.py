"""Read the shards of ``fuseki data process`` as torch datasets, through memory maps.

The book's ``DataGenerator`` (ch. 7) globbed ``*train_features_*.npy`` (so it
read stale files, and its test generator read the *training* files), loaded
each chunk whole, converted it to float32 and one-hot labels, and dropped each
chunk's last partial batch. Here:

- only the shards listed in ``manifest.json`` for the asked split are read, and
  each is opened with ``np.load(mmap_mode="r")``: the OS pages in what is used;
- labels stay class indices (``int64`` tensors, what ``cross_entropy`` takes);
- features stay ``uint8`` until a batch is made; ``float32=True`` converts the
  batch, never the data set;
- :class:`ShardStream` (an ``IterableDataset``) shuffles the shard order per
  epoch and positions within a window of shards, by seed, and yields whole
  batches (last partial batch included unless ``drop_last``);
- :class:`ShardDataset` is map-style, for random access and torch samplers.

>>> import tempfile, pathlib
>>> from fuseki.go import GameState, game_to_sgf
>>> from fuseki.data.processor import process_games, register_test_encoder
>>> src, out = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
>>> _ = (src / "g.sgf").write_bytes(game_to_sgf(GameState.new(5).apply_moves([(2, 2), (1, 1), (3, 3)])))
>>> _ = process_games([src], out, encoder=register_test_encoder(), size=5, test_fraction=0.0)
>>> data = ShardDataset(out, "train")
>>> len(data), data[0][0].shape, data[0][0].dtype, int(data[0][1])
(3, torch.Size([1, 5, 5]), torch.uint8, 12)
>>> [tuple(x.shape) for x, y in ShardStream(out, "train", batch_size=2, float32=True)]
[(2, 1, 5, 5), (1, 1, 5, 5)]
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

from fuseki.data.processor import load_manifest, verify_shard
from fuseki.util.errors import InputError

__all__ = ["ShardDataset", "ShardSet", "ShardStream", "to_float32"]


def to_float32(batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch's features as float32 (labels unchanged)."""
    features, labels = batch
    return features.to(torch.float32), labels


class ShardSet:
    """The shards of one split of a processed folder, as the manifest lists them.

    ``verify=True`` re-hashes every file against the manifest first (sizes are
    always checked). Files in the folder that the manifest does not list are
    never opened.
    """

    def __init__(self, folder: str | os.PathLike[str], split: str = "train", *, verify: bool = False) -> None:
        if split not in ("train", "test"):
            raise InputError(f"split must be 'train' or 'test', got {split!r}")
        self.folder = Path(folder)
        self.split = split
        self.manifest = load_manifest(self.folder)
        self.entries = [e for e in self.manifest["shards"] if e["split"] == split and e["positions"] > 0]
        for entry in self.entries:
            problem = verify_shard(self.folder, entry, checksums=verify)
            if problem is not None:
                raise InputError(f"shard {entry['name']}: {problem}")
        self.sizes = [int(e["positions"]) for e in self.entries]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes, dtype=np.int64)]).tolist()
        self.shape = tuple(self.manifest["feature_shape"])
        self.num_moves = int(self.manifest["num_moves"])
        self._maps: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def complete(self) -> bool:
        """Did the run that wrote the folder finish?"""
        return bool(self.manifest.get("complete"))

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def arrays(self, shard: int) -> tuple[np.ndarray, np.ndarray]:
        """Memory maps of shard ``shard``'s features and labels (opened once per process)."""
        maps = self._maps.get(shard)
        if maps is None:
            files = self.entries[shard]["files"]
            features = np.load(self.folder / files["features"]["name"], mmap_mode="r", allow_pickle=False)
            labels = np.load(self.folder / files["labels"]["name"], mmap_mode="r", allow_pickle=False)
            if features.shape != (self.sizes[shard], *self.shape) or labels.shape != (self.sizes[shard],):
                raise InputError(f"shard {self.entries[shard]['name']} does not have the shape its manifest says")
            maps = self._maps[shard] = (features, labels)
        return maps

    def locate(self, index: int) -> tuple[int, int]:
        """Position ``index`` of the split -> ``(shard, row)``."""
        if not 0 <= index < len(self):
            raise IndexError(f"position {index} out of range (the {self.split} split has {len(self)})")
        shard = bisect.bisect_right(self.offsets, index) - 1
        return shard, index - int(self.offsets[shard])

    def __getstate__(self) -> dict[str, Any]:  # DataLoader workers reopen the maps
        state = self.__dict__.copy()
        state["_maps"] = {}
        return state


class ShardDataset(Dataset):
    """Map-style: ``data[i] -> (features uint8 (planes, N, N), label int64)``.

    With ``float32=True`` each item's features are float32; for speed prefer
    uint8 items and :func:`to_float32` on the batch.
    """

    def __init__(
        self, folder: str | os.PathLike[str], split: str = "train", *, float32: bool = False, verify: bool = False
    ) -> None:
        self.shards = ShardSet(folder, split, verify=verify)
        self.float32 = float32

    def __len__(self) -> int:
        return len(self.shards)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if index < 0:
            index += len(self)
        shard, row = self.shards.locate(index)
        features, labels = self.shards.arrays(shard)
        x = torch.from_numpy(np.array(features[row]))
        return (x.to(torch.float32) if self.float32 else x), torch.tensor(int(labels[row]), dtype=torch.int64)


class ShardStream(IterableDataset):
    """Batches streamed from the shards, shuffled by seed; use with ``DataLoader(batch_size=None)``.

    Each epoch (see :meth:`set_epoch`) takes the shards in an order drawn from
    ``(seed, epoch)``, reads ``window`` shards at a time, shuffles their
    positions together and yields ``(features, labels)`` batches of
    ``batch_size``; what is left over joins the next window. With
    ``shuffle=False`` the order is the manifest's. DataLoader workers each take
    every ``num_workers``-th shard of the epoch's order.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        split: str = "train",
        *,
        batch_size: int = 128,
        shuffle: bool = True,
        seed: int = 0,
        window: int = 4,
        float32: bool = False,
        drop_last: bool = False,
        verify: bool = False,
    ) -> None:
        if batch_size < 1 or window < 1:
            raise InputError("batch size and window must be at least 1")
        self.shards = ShardSet(folder, split, verify=verify)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.window = window
        self.float32 = float32
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose shuffle the next iteration uses."""
        self.epoch = epoch

    def __len__(self) -> int:
        """Batches per epoch (with one worker)."""
        n = len(self.shards)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _batch(self, features: np.ndarray, labels: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.from_numpy(np.ascontiguousarray(features))
        return (x.to(torch.float32) if self.float32 else x), torch.from_numpy(labels.astype(np.int64))

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        rng = np.random.default_rng([self.seed, self.epoch])
        order = np.arange(len(self.shards.entries))
        if self.shuffle:
            order = rng.permutation(order)
        info = get_worker_info()
        if info is not None:
            order = order[info.id :: info.num_workers]
        carry_x = np.empty((0, *self.shards.shape), dtype=np.uint8)
        carry_y = np.empty(0, dtype=np.int16)
        for start in range(0, len(order), self.window):
            parts_x, parts_y = [carry_x], [carry_y]
            for shard in order[start : start + self.window]:
                features, labels = self.shards.arrays(int(shard))
                parts_x.append(np.asarray(features))
                parts_y.append(np.asarray(labels))
            xs, ys = np.concatenate(parts_x), np.concatenate(parts_y)
            if self.shuffle:
                perm = rng.permutation(len(ys))
                xs, ys = xs[perm], ys[perm]
            full = len(ys) - len(ys) % self.batch_size
            for b in range(0, full, self.batch_size):
                yield self._batch(xs[b : b + self.batch_size], ys[b : b + self.batch_size])
            carry_x, carry_y = xs[full:], ys[full:]
        if len(carry_y) and not self.drop_last:
            yield self._batch(carry_x, carry_y)
