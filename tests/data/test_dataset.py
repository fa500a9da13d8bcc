"""Torch datasets over the shards: memory maps, splits, seeded shuffling, float32 at batch time."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from sgf_corpus import write_games
from torch.utils.data import DataLoader

from fuseki.data.dataset import ShardDataset, ShardSet, ShardStream, to_float32
from fuseki.data.processor import load_manifest, process_games


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dataset")
    write_games(root / "games", 14, size=9, seed=11, moves=10)
    out = root / "shards"
    process_games([root / "games"], out, encoder="oneplane", size=9, test_fraction=0.3, seed=1, shard_games=3)
    return out


def all_rows(folder: Path, split: str) -> tuple[np.ndarray, np.ndarray]:
    entries = [e for e in load_manifest(folder)["shards"] if e["split"] == split]
    x = np.concatenate([np.load(folder / e["files"]["features"]["name"]) for e in entries])
    y = np.concatenate([np.load(folder / e["files"]["labels"]["name"]) for e in entries])
    return x, y


def as_counter(xs: np.ndarray, ys: np.ndarray) -> Counter:
    return Counter((x.tobytes(), int(y)) for x, y in zip(xs, ys))


def test_map_style_reads_the_shards_in_manifest_order(shards):
    x, y = all_rows(shards, "train")
    data = ShardDataset(shards, "train")
    assert len(data) == len(y) == load_manifest(shards)["totals"]["train"]["positions"]
    for i in (0, 7, len(data) - 1, -1):
        features, label = data[i]
        assert features.dtype == torch.uint8 and label.dtype == torch.int64
        assert np.array_equal(features.numpy(), x[i]) and int(label) == y[i]
    with pytest.raises(IndexError):
        data[len(data)]
    assert ShardDataset(shards, "train", float32=True)[3][0].dtype == torch.float32
    batch = next(iter(DataLoader(data, batch_size=16)))
    assert to_float32(batch)[0].dtype == torch.float32 and batch[0].dtype == torch.uint8


def test_memory_maps_are_used(shards):
    features, labels = ShardSet(shards, "train").arrays(0)
    assert isinstance(features, np.memmap) and isinstance(labels, np.memmap)


def test_train_and_test_are_separate(shards):
    train, test = ShardDataset(shards, "train"), ShardDataset(shards, "test")
    assert len(train) > 0 and len(test) > 0
    assert len(train) + len(test) == 14 * 10
    with pytest.raises(ValueError, match="split"):
        ShardSet(shards, "validation")


def test_stream_yields_every_position_once_per_epoch_shuffled_by_seed(shards):
    x, y = all_rows(shards, "train")
    stream = ShardStream(shards, "train", batch_size=8, seed=3, window=2, float32=True)
    batches = list(stream)
    assert len(batches) == len(stream) == -(-len(y) // 8)
    assert all(b[0].dtype == torch.float32 and b[1].dtype == torch.int64 for b in batches)
    xs = torch.cat([b[0] for b in batches]).to(torch.uint8).numpy()
    ys = torch.cat([b[1] for b in batches]).numpy()
    assert as_counter(xs, ys) == as_counter(x, y)
    assert not np.array_equal(ys, y)  # shuffled
    again = torch.cat([b[1] for b in ShardStream(shards, "train", batch_size=8, seed=3, window=2)]).numpy()
    assert np.array_equal(again, ys)  # reproducible
    stream.set_epoch(1)
    assert not np.array_equal(torch.cat([b[1] for b in stream]).numpy(), ys)  # another order per epoch


def test_stream_in_order_and_drop_last(shards):
    x, y = all_rows(shards, "test")
    stream = ShardStream(shards, "test", batch_size=5, shuffle=False, drop_last=True)
    batches = list(stream)
    assert len(batches) == len(y) // 5 == len(stream)
    assert np.array_equal(torch.cat([b[1] for b in batches]).numpy(), y[: len(batches) * 5])
    assert batches[0][0].dtype == torch.uint8


def test_stream_with_dataloader_workers_covers_each_position_once(shards):
    x, y = all_rows(shards, "train")
    loader = DataLoader(ShardStream(shards, "train", batch_size=16, seed=0), batch_size=None, num_workers=2)
    batches = list(loader)
    xs = torch.cat([b[0] for b in batches]).numpy()
    ys = torch.cat([b[1] for b in batches]).numpy()
    assert as_counter(xs, ys) == as_counter(x, y)


def test_files_not_in_the_manifest_are_never_read(shards, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(shards, copy)
    np.save(copy / "train-00099.features.npy", np.ones((50, 1, 9, 9), dtype=np.uint8))
    np.save(copy / "KGS-2019-train_features_0.npy", np.ones((50, 1, 9, 9)))
    assert len(ShardDataset(copy, "train")) == len(ShardDataset(shards, "train"))


def test_verify_detects_a_changed_shard(shards, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(shards, copy)
    name = load_manifest(copy)["shards"][0]["files"]["labels"]["name"]
    data = bytearray((copy / name).read_bytes())
    data[-1] ^= 0xFF
    (copy / name).write_bytes(bytes(data))
    ShardSet(copy, "train")  # sizes match: only checksums tell
    with pytest.raises(ValueError, match="SHA-256"):
        ShardSet(copy, "train", verify=True)


@pytest.mark.parametrize("name", ["sources", "sampler", "processor", "dataset"])
def test_doctests(name):
    import doctest
    import importlib

    module = importlib.import_module(f"fuseki.data.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
