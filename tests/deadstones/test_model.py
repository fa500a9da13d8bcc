"""Dead-stone model files: round trip with identical predictions, and clear errors for bad files."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import safetensors.torch
import torch

from fuseki.deadstones.mlp import DeadStoneMLP
from fuseki.deadstones.model import (
    DeadStoneClassifier,
    DeadStoneModelError,
    load_classifier,
    read_model_info,
    save_classifier,
)
from fuseki.deadstones.training import TrainSettings, train_classifier


pytestmark = pytest.mark.usefixtures("one_thread")


def trained_net(shape: str = "33-12-1", seed: int = 3) -> DeadStoneMLP:
    rng = np.random.default_rng(seed)
    net = DeadStoneMLP(shape, seed=seed)
    net.fit_scaling(rng.normal(size=(40, net.num_inputs)) * 10)
    return net


def saved(tmp_path: Path, shape: str = "33-12-1") -> tuple[Path, DeadStoneClassifier]:
    clf = DeadStoneClassifier(trained_net(shape))
    path = tmp_path / "dead.safetensors"
    save_classifier(path, clf, algorithm="irprop+", epochs=7, test_rms=0.06, data={"source": "synthetic", "games": 3})
    return path, clf


@pytest.mark.parametrize("shape", ["33-12-1", "33-16-8-4-1", "89-32-1"])
def test_round_trip_gives_identical_predictions(tmp_path: Path, shape: str) -> None:
    path, clf = saved(tmp_path, shape)
    back = load_classifier(path)
    x = np.random.default_rng(0).normal(size=(25, clf.num_features)).astype(np.float32) * 10
    assert np.array_equal(back.predict(x), clf.predict(x))
    assert back.feature_set == clf.feature_set == ("B" if shape.startswith("89") else "A")
    assert back.shape == shape
    info = back.info
    assert (info.algorithm, info.epochs, info.test_rms, info.data["games"]) == ("irprop+", 7, 0.06, 3)
    assert info.fuseki_version and info.torch_version and info.created.endswith("Z")
    assert read_model_info(path).shape == shape


def test_predict_checks_its_input(tmp_path: Path) -> None:
    clf = DeadStoneClassifier(trained_net())
    one = clf.predict(np.zeros(33))
    assert one.shape == (1,) and 0 < one[0] < 1
    assert clf.predict_dead(np.zeros((3, 33))).dtype == bool
    with pytest.raises(ValueError, match="33 features per block"):
        clf.predict(np.zeros((2, 89)))
    with pytest.raises(ValueError, match="finite"):
        clf.predict(np.full((2, 33), np.nan))
    with pytest.raises(ValueError, match="name its feature set"):
        DeadStoneClassifier(DeadStoneMLP("40-4-1"))
    assert DeadStoneClassifier(DeadStoneMLP("40-4-1"), feature_set="A+cascade").feature_set == "A+cascade"


def test_a_truncated_file_is_rejected(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    raw = path.read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    cuts = [(len(raw) - 1, "truncated"), (8 + length // 2, "truncated"), (5, "only 5 bytes"), (0, "empty")]
    for cut, message in cuts:
        bad = tmp_path / f"cut{cut}.safetensors"
        bad.write_bytes(raw[:cut])
        with pytest.raises(DeadStoneModelError, match=message):
            load_classifier(bad)
    extra = tmp_path / "extra.safetensors"
    extra.write_bytes(raw + b"\0")
    with pytest.raises(ValueError, match="unexpected bytes"):
        load_classifier(extra)


def test_foreign_files_are_rejected(tmp_path: Path) -> None:
    npz = tmp_path / "blocks.npz"
    np.savez(npz, a=np.zeros(3))
    with pytest.raises(DeadStoneModelError, match="never loads pickles"):
        load_classifier(npz)
    pt = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, pt)
    with pytest.raises(ValueError, match="not a dead-stone model"):
        load_classifier(pt)
    plain = tmp_path / "plain.safetensors"
    safetensors.torch.save_file({"w": torch.zeros(2)}, str(plain))
    with pytest.raises(ValueError, match="no fuseki_deadstones metadata"):
        load_classifier(plain)
    with pytest.raises(ValueError, match="no such"):
        load_classifier(tmp_path / "absent.safetensors")


def test_weights_that_do_not_fit_the_shape(tmp_path: Path) -> None:
    path, clf = saved(tmp_path)
    tensors = safetensors.torch.load_file(str(path))
    meta = json.loads(safetensors.safe_open(str(path), "pt").metadata()["fuseki_deadstones"])
    meta["shape"] = "33-16-1"
    wrong = tmp_path / "wrong.safetensors"
    safetensors.torch.save_file(tensors, str(wrong), metadata={"fuseki_deadstones": json.dumps(meta)})
    with pytest.raises(DeadStoneModelError, match="33-16-1 network needs"):
        load_classifier(wrong)
    meta["shape"], meta["feature_set"] = "33-12-1", "B"
    safetensors.torch.save_file(tensors, str(wrong), metadata={"fuseki_deadstones": json.dumps(meta)})
    with pytest.raises(DeadStoneModelError, match="does not fit shape"):
        load_classifier(wrong)
    meta["feature_set"], meta["format_version"] = "A", 99
    safetensors.torch.save_file(tensors, str(wrong), metadata={"fuseki_deadstones": json.dumps(meta)})
    with pytest.raises(DeadStoneModelError, match="newer fuseki"):
        load_classifier(wrong)


def test_a_training_result_saves_and_loads(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 33)).astype(np.float32)
    dead = (x[:, 0] > 0).astype(np.uint8)
    settings = TrainSettings(network="33-2-1", algorithm="rprop", epochs=12)
    result = train_classifier(x, dead, np.arange(80) // 4, settings=settings)
    path = tmp_path / "trained.safetensors"
    result.save(path)
    back = load_classifier(path)
    with torch.no_grad():
        expected = result.net(torch.from_numpy(x.astype(np.float64))).numpy()
    assert np.array_equal(back.predict(x), expected)
    info = back.info
    assert info.best_epoch == result.best_epoch and info.test_rms == result.best["test_rms"]
    assert info.training["settings"]["algorithm"] == "rprop" and info.data["sha256"] == result.data["sha256"]
