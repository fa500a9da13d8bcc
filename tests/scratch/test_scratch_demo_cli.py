"""``fuseki scratch-demo``: the command line of the NumPy network demo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fuseki import cli
from fuseki.scratch.mnist import write_idx


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert cli.main(["scratch-demo", *argv, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[1].startswith("Epoch 0: ") and out[1].split()[3] == "/"  # the book's "Epoch 0: 6628 / 10000"
    return json.loads(out[-1])


def test_digits_json_is_the_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "--epochs", "3", "--layers", "64,16,10", "--seed", "2")
    assert data["data"] == "digits"
    assert data["layers"] == [64, 16, 10]
    assert (data["epochs"], data["batch_size"], data["lr"], data["seed"]) == (3, 10, 3.0, 2)
    assert (data["train_samples"], data["test_samples"]) == (1437, 360)
    assert len(data["accuracy_by_epoch"]) == 3
    assert data["test_accuracy"] == data["accuracy_by_epoch"][-1] == data["test_correct"] / 360
    assert data["test_accuracy"] > 0.8
    again = _json(capsys, "--epochs", "3", "--layers", "64,16,10", "--seed", "2")
    assert again["accuracy_by_epoch"] == data["accuracy_by_epoch"]  # seeded


def test_mnist_from_idx_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 60), ("t10k", 20)):
        write_idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8))
        write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", rng.integers(0, 10, n, dtype=np.uint8))
    data = _json(capsys, "--mnist-dir", str(tmp_path), "--epochs", "1")
    assert data["data"] == "mnist"
    assert data["layers"] == [784, 392, 196, 10]  # the book's defaults
    assert (data["batch_size"], data["lr"]) == (10, 3.0)
    assert (data["train_samples"], data["test_samples"]) == (60, 20)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--layers", "64,x,10"], "--layers must be comma-separated whole numbers"),
        (["--layers", "10"], "--layers needs an input and an output size"),
        (["--layers", "64,0,10"], "--layers sizes must be positive"),
        (["--layers", "784,30,10"], "--layers must start with 64"),
        (["--layers", "64,30,9"], "--layers must end with 10"),
        (["--lr", "-1"], "--lr must be positive"),
        (["--lr", "fast"], "--lr must be a number"),
        (["--data", "mnist"], "--data mnist needs --mnist-dir DIR"),
        (["--data", "digits", "--mnist-dir", "."], "--mnist-dir applies only to --data mnist"),
        (["--mnist-dir", "/nonexistent/mnist"], "/nonexistent/mnist: no such directory"),
    ],
)
def test_bad_flags_give_status_2_and_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["scratch-demo", *argv])
    captured = capsys.readouterr()
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("fuseki scratch-demo: error: ")
    assert message in lines[0]
    assert "Traceback" not in captured.err + captured.out


def test_malformed_idx_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        (tmp_path / name).write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x09abc")
    assert cli.main(["scratch-demo", "--mnist-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "truncated" in err[0]


def test_unparsable_epochs_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["scratch-demo", "--epochs", "0"])
    assert info.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err
