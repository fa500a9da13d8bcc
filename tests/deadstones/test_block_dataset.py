"""Block dataset files: round trip, bad files, merging, the every-10th split."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fuseki.deadstones.dataset import (
    BLACK,
    WHITE,
    BlockDataset,
    held_out_mask,
    load_block_dataset,
    merge_block_datasets,
    save_block_dataset,
    split_every_tenth,
)


def make(n: int = 23, games: list[int] | None = None, seed: int = 0, **meta: object) -> BlockDataset:
    rng = np.random.default_rng(seed)
    return BlockDataset(
        features_a=rng.normal(size=(n, 33)).astype(np.float32),
        features_b=rng.normal(size=(n, 89)).astype(np.float32),
        dead=rng.integers(0, 2, n),
        game=games if games is not None else np.arange(n) // 5,
        size=np.full(n, 19),
        color=rng.choice([BLACK, WHITE], n),
        stones=rng.integers(1, 40, n),
        meta={"source": "synthetic", "labeller": "test", **meta},
    )


def test_round_trip(tmp_path: Path) -> None:
    data = make()
    path = tmp_path / "blocks.npz"
    save_block_dataset(path, data)
    back = load_block_dataset(path)
    for key, value in data.arrays().items():
        assert np.array_equal(getattr(back, key), value)
        assert getattr(back, key).dtype == value.dtype
    assert back.meta == data.meta
    assert back.meta["games"] == 5 and back.meta["source"] == "synthetic" and "date" in back.meta
    # Plain numpy reads it without pickles; meta is a 0-d unicode array of JSON.
    with np.load(path, allow_pickle=False) as npz:
        assert npz["features_a"].shape == (23, 33) and npz["meta"].shape == ()
        assert json.loads(str(npz["meta"][()]))["labeller"] == "test"


def test_dtypes_follow_the_spec() -> None:
    data = make()
    assert data.features_a.dtype == np.float32 and data.features_b.dtype == np.float32
    assert data.dead.dtype == np.uint8 and data.game.dtype == np.int32
    assert data.size.dtype == np.int8 and data.color.dtype == np.int8 and data.stones.dtype == np.int16
    assert data.features("A") is data.features_a and data.features("B") is data.features_b
    with pytest.raises(ValueError, match="feature set"):
        data.features("C")


def test_a_truncated_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "blocks.npz"
    save_block_dataset(path, make(200))
    raw = path.read_bytes()
    for cut in (len(raw) // 2, len(raw) - 30, 10):
        bad = tmp_path / f"cut{cut}.npz"
        bad.write_bytes(raw[:cut])
        with pytest.raises(ValueError, match="cut"):
            load_block_dataset(bad)


def test_foreign_and_missing_files(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("hello")
    with pytest.raises(ValueError, match="notes.npz"):
        load_block_dataset(text)
    with pytest.raises(ValueError, match="no such"):
        load_block_dataset(tmp_path / "absent.npz")


def test_missing_key_and_wrong_shape(tmp_path: Path) -> None:
    arrays = make().arrays()
    meta = np.array(json.dumps({"source": "x"}))
    partial = {k: v for k, v in arrays.items() if k != "color"}
    np.savez(tmp_path / "missing.npz", **partial, meta=meta)
    with pytest.raises(ValueError, match="missing key.*color"):
        load_block_dataset(tmp_path / "missing.npz")
    wrong = dict(arrays, features_a=arrays["features_a"][:, :32])
    np.savez(tmp_path / "wrong.npz", **wrong, meta=meta)
    with pytest.raises(ValueError, match=r"features_a must have shape \[n, 33\]"):
        load_block_dataset(tmp_path / "wrong.npz")
    short = dict(arrays, dead=arrays["dead"][:-1])
    np.savez(tmp_path / "short.npz", **short, meta=meta)
    with pytest.raises(ValueError, match="one row per block"):
        load_block_dataset(tmp_path / "short.npz")
    wrong_dtype = dict(arrays, dead=arrays["dead"].astype(np.int64))
    np.savez(tmp_path / "dtype.npz", **wrong_dtype, meta=meta)
    with pytest.raises(ValueError, match="dead is int64"):
        load_block_dataset(tmp_path / "dtype.npz")


def test_pickled_arrays_are_not_loaded(tmp_path: Path) -> None:
    arrays = make().arrays()
    np.savez(tmp_path / "p.npz", **arrays, meta=np.array({"source": "x"}, dtype=object))
    with pytest.raises(ValueError, match="p.npz.*without pickles"):
        load_block_dataset(tmp_path / "p.npz")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("dead", 2, "dead must be 0"),
        ("color", 3, "color must be"),
        ("game", -1, "game indices"),
        ("stones", 0, "at least one stone"),
        ("features_a", np.nan, "NaN"),
    ],
)
def test_bad_values_are_rejected(field: str, value: float, message: str) -> None:
    arrays = {k: np.array(v) for k, v in make(5).arrays().items()}
    arrays[field][0] = value
    with pytest.raises(ValueError, match=message):
        BlockDataset(**arrays)


def test_every_tenth_vector_is_held_out() -> None:
    data = make(35)
    mask = held_out_mask(35)
    assert np.flatnonzero(mask).tolist() == [9, 19, 29]
    train, test = split_every_tenth(data)
    assert len(train) == 32 and len(test) == 3
    assert np.array_equal(test.features_a, data.features_a[[9, 19, 29]])
    assert np.array_equal(train.dead, np.delete(data.dead, [9, 19, 29]))
    assert held_out_mask(0).shape == (0,)
    with pytest.raises(ValueError):
        held_out_mask(10, every=1)


def test_merge_renumbers_games() -> None:
    a = make(3, games=[0, 0, 1], seed=1)
    b = make(3, games=[5, 5, 2], seed=2, source="other")
    merged = merge_block_datasets([a, b])
    assert merged.game.tolist() == [0, 0, 1, 2, 2, 3]
    assert merged.num_games == 4 and len(merged) == 6
    assert np.array_equal(merged.features_b[3:], b.features_b)
    assert merged.meta["source"] == "merge" and merged.meta["parts"][1]["source"] == "other"
    with pytest.raises(ValueError):
        merge_block_datasets([])


def test_save_is_atomic_and_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "blocks.npz"
    save_block_dataset(path, make(10))
    save_block_dataset(path, make(20))
    assert len(load_block_dataset(path)) == 20
    assert [p.name for p in tmp_path.iterdir()] == ["blocks.npz"]
