"""Full-batch training: the split, the measures, best-epoch selection, stop rule, checkpoint and resume."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from fuseki.deadstones.dataset import BlockDataset, held_out_mask
from fuseki.deadstones.rprop import ALGORITHMS
from fuseki.deadstones.training import (
    HISTORY_COLUMNS,
    TrainSettings,
    block_accuracy,
    game_accuracy,
    load_training_checkpoint,
    rms,
    train_classifier,
    train_on_dataset,
    write_history_csv,
)


pytestmark = pytest.mark.usefixtures("one_thread")


def blocks(n: int = 300, width: int = 33, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A learnable synthetic problem: dead when a mix of two features is large, plus 5 % label noise."""
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, width)) * rng.uniform(0.5, 20, size=width)).astype(np.float32)
    dead = (x[:, 0] / x[:, 0].std() + 0.5 * x[:, 1] / x[:, 1].std() > 0.2).astype(np.uint8)
    flip = rng.random(n) < 0.05
    dead[flip] ^= 1
    return x, dead, np.arange(n) // 6


def strip(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in history]


def test_measures_by_hand() -> None:
    assert rms(np.array([0.5, 0.5]), np.array([0, 1])) == pytest.approx(0.5)
    p = np.array([0.9, 0.1, 0.6, 0.4, 0.5])
    dead = np.array([1, 0, 0, 1, 0])
    assert block_accuracy(p, dead) == pytest.approx(3 / 5)  # 0.5 is not > 0.5: called alive, right
    assert game_accuracy(p, dead, np.array([7, 7, 3, 3, 9])) == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        rms(np.zeros(2), np.zeros(3))


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_each_algorithm_learns(algorithm: str) -> None:
    x, dead, game = blocks()
    result = train_classifier(x, dead, game, settings=TrainSettings(network="33-2-1", algorithm=algorithm, epochs=60))
    h = result.history
    assert len(h) == 60 and result.stopped == "epochs"
    # SARPROP's noise is k3·E·r (formula 2): at this problem's E ≈ 0.5 it is large and learning is slow,
    # the "humps" of the thesis's diagrams 6-7, so it only has to improve; the others must gain 20 %.
    factor = 1.0 if algorithm.startswith("sarprop") else 0.8
    assert min(r["train_rms"] for r in h) < factor * h[0]["train_rms"]
    assert result.best["test_rms"] < h[0]["test_rms"]
    assert result.best["test_rms"] == min(r["test_rms"] for r in h)


def test_every_tenth_vector_is_the_test_set_and_best_weights_are_kept() -> None:
    x, dead, game = blocks(250)
    result = train_classifier(x, dead, game, settings=TrainSettings(network="33-12-1", algorithm="irprop+", epochs=40))
    assert result.data["test_blocks"] == 25 and result.data["train_blocks"] == 225
    mask = held_out_mask(250)
    with torch.no_grad():
        p = result.net(torch.from_numpy(x.astype(np.float64))).numpy()
    # The returned net holds the weights of the best epoch, evaluated on rows 9, 19, ...
    assert rms(p[mask], dead[mask]) == pytest.approx(result.best["test_rms"], abs=1e-12)
    assert rms(p[~mask], dead[~mask]) == pytest.approx(result.best["train_rms"], abs=1e-12)
    assert block_accuracy(p[mask], dead[mask]) == pytest.approx(result.best["test_blocks_correct"])
    assert game_accuracy(p[mask], dead[mask], game[mask]) == pytest.approx(result.best["test_games_correct"])
    summary = result.summary()
    assert summary["test_rms_min"] == result.best["test_rms"] and summary["test_rms"] == result.final["test_rms"]
    assert summary["features"] == "A"


def test_patience_stops_when_the_test_error_stops_falling() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(120, 33)).astype(np.float32)
    dead = rng.integers(0, 2, 120).astype(np.uint8)  # random labels: the test error soon stops improving
    settings = TrainSettings(network="33-32-1", algorithm="irprop+", epochs=400, patience=5)
    result = train_classifier(x, dead, settings=settings)
    assert result.stopped == "patience"
    assert len(result.history) - result.best_epoch == 5
    assert result.best["test_games_correct"] is None  # no game indices given


@pytest.mark.parametrize("algorithm", ["irprop+", "sarprop-0.01"])
def test_resume_gives_the_same_result(tmp_path: Path, algorithm: str) -> None:
    x, dead, game = blocks(200)
    full = train_classifier(x, dead, game, settings=TrainSettings(network="33-12-1", algorithm=algorithm, epochs=25))

    class Stop(Exception):
        pass

    def interrupt(event: dict[str, Any]) -> None:
        if event["event"] == "epoch" and event["epoch"] == 13:
            raise Stop

    ckpt = tmp_path / "run.pt"
    settings = TrainSettings(network="33-12-1", algorithm=algorithm, epochs=25, checkpoint_every=5)
    with pytest.raises(Stop):
        train_classifier(x, dead, game, settings=settings, checkpoint=ckpt, progress=interrupt)
    assert load_training_checkpoint(ckpt)["epoch"] == 10
    events: list[dict[str, Any]] = []
    resumed = train_classifier(x, dead, game, settings=settings, checkpoint=ckpt, resume=True, progress=events.append)
    assert events[0]["event"] == "start" and events[0]["resumed"] and events[0]["start_epoch"] == 10
    assert strip(resumed.history) == strip(full.history)
    assert resumed.best_epoch == full.best_epoch
    for a, b in zip(resumed.net.state_dict().values(), full.net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert load_training_checkpoint(ckpt)["epoch"] == 25


def test_checkpoint_guards(tmp_path: Path) -> None:
    x, dead, game = blocks(60)
    ckpt = tmp_path / "run.pt"
    settings = TrainSettings(network="33-2-1", algorithm="rprop", epochs=3)
    train_classifier(x, dead, game, settings=settings, checkpoint=ckpt)
    with pytest.raises(ValueError, match="already exists"):
        train_classifier(x, dead, game, settings=settings, checkpoint=ckpt)
    with pytest.raises(ValueError, match="algorithm"):
        other = TrainSettings(network="33-2-1", algorithm="irprop+", epochs=3)
        train_classifier(x, dead, game, settings=other, checkpoint=ckpt, resume=True)
    with pytest.raises(ValueError, match="other data"):
        train_classifier(x, 1 - dead, game, settings=settings, checkpoint=ckpt, resume=True)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(ckpt.read_bytes()[:100])
    with pytest.raises(ValueError, match="bad.pt"):
        load_training_checkpoint(bad)
    # Resuming a finished run with more epochs continues it.
    longer = TrainSettings(network="33-2-1", algorithm="rprop", epochs=5)
    more = train_classifier(x, dead, game, settings=longer, checkpoint=ckpt, resume=True)
    assert len(more.history) == 5


def test_bad_input_is_a_clear_error() -> None:
    x, dead, game = blocks(40)
    with pytest.raises(ValueError, match="reads 89 features"):
        train_classifier(x, dead, settings=TrainSettings(network="89-32-1"))
    with pytest.raises(ValueError, match="0 \\(alive\\) or 1"):
        train_classifier(x, dead * 2, settings=TrainSettings(network="33-2-1", epochs=1))
    with pytest.raises(ValueError, match="at least 10"):
        train_classifier(x[:9], dead[:9], settings=TrainSettings(network="33-2-1", epochs=1))
    with pytest.raises(ValueError, match="unknown algorithm"):
        train_classifier(x, dead, settings=TrainSettings(network="33-2-1", algorithm="sgd"))
    with pytest.raises(ValueError, match="NaN"):
        train_classifier(np.full_like(x, np.nan), dead, settings=TrainSettings(network="33-2-1", epochs=1))


def test_train_on_dataset_picks_the_feature_set(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 50
    ds = BlockDataset(
        rng.normal(size=(n, 33)), rng.normal(size=(n, 89)), rng.integers(0, 2, n), np.arange(n) // 5,
        np.full(n, 9), np.ones(n), np.ones(n), {"source": "synthetic"},
    )
    result = train_on_dataset(ds, TrainSettings(network="89-32-1", algorithm="irprop+", epochs=3))
    assert result.data["feature_set"] == "B" and result.data["dataset"]["source"] == "synthetic"
    path = tmp_path / "history.csv"
    write_history_csv(path, result.history)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == HISTORY_COLUMNS and len(rows) == 3
    assert float(rows[2]["test_rms"]) == pytest.approx(result.history[2]["test_rms"])
