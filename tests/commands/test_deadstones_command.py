"""`fuseki deadstones`: make-data, train, experiment and agreement through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fuseki.cli import main
from fuseki.deadstones.dataset import BlockDataset, save_block_dataset
from fuseki.deadstones.model import load_classifier
from fuseki.go import GameState, game_to_sgf, save_sgf
from fuseki.go.coords import from_gtp



@pytest.fixture(autouse=True)
def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def _blocks(path: Path, n: int = 200, seed: int = 0) -> Path:
    """A learnable synthetic block set: dead when the first feature is high."""
    rng = np.random.default_rng(seed)
    fb = rng.random((n, 89)).astype(np.float32)
    dead = (fb[:, 0] > 0.7).astype(np.uint8)
    save_block_dataset(
        path,
        BlockDataset(fb[:, :33], fb, dead=dead, game=np.arange(n) // 5, size=np.full(n, 9), color=1 + (np.arange(n) % 2),
                     stones=np.ones(n), meta={"source": "test", "labeller": "synthetic"}),
    )
    return path


def _last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_train_writes_a_model_that_learnt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _blocks(tmp_path / "blocks.npz", n=1000)
    model = tmp_path / "m.safetensors"
    code = main(["deadstones", "train", str(data), "--out", str(model), "--network", "33-4-1", "--epochs", "200", "--json"])
    assert code == 0
    summary = _last_json(capsys.readouterr().out)
    assert summary["network"] == "33-4-1" and summary["algorithm"] == "irprop+"
    assert summary["blocks_correct"] > 0.9
    clf = load_classifier(model)
    assert clf.feature_set == "A"


def test_experiment_prints_the_thesis_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _blocks(tmp_path / "blocks.npz")
    md = tmp_path / "table.md"
    code = main(["deadstones", "experiment", str(data), "--rows", "33-2-1/rprop,33-2-1/irprop+", "--epochs", "5",
                 "--out", str(tmp_path / "runs"), "--markdown", str(md)])
    assert code == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[2].strip(): line for line in out.splitlines() if line.startswith("| 33-2-1 |")}
    # Each of our rows carries the thesis's table-1 figures for that method (train RMS, test RMS, mean epochs).
    assert sorted(rows) == ["RPROP", "iRPROP+"]
    assert "| 0.063550 |" in rows["RPROP"] and "| 0.064043 |" in rows["RPROP"] and "thesis 2282 mean" in rows["RPROP"]
    assert "| 0.066112 |" in rows["iRPROP+"] and "| 0.066501 |" in rows["iRPROP+"] and "Table 1" in rows["iRPROP+"]
    assert md.read_text().startswith("Data: ") and "200 blocks" in md.read_text()


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_make_data_and_agreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    walls = ["E1", "G1", "E2", "G2", "E3", "G3", "E4", "G4", "E5", "G5", "E6", "G6", "E7", "G7", "E8", "G8", "E9", "G9"]
    for i, extra in enumerate((["C3", "C7"], ["C7", "J3"])):
        state = GameState.new(9, "chinese")
        for m in walls + extra + ["pass", "pass"]:
            state = state.play(81 if m == "pass" else from_gtp(m, 9))
        save_sgf(games / f"g{i}.sgf", game_to_sgf(state))
    code = main(["deadstones", "make-data", str(games), "--out", str(tmp_path / "b.npz"), "--json"])
    assert code == 0
    made = _last_json(capsys.readouterr().out)
    assert made["games_used"] == 2 and made["blocks"] == 8 and made["dead_blocks"] == 1  # C7 in game 0 only

    code = main(["deadstones", "agreement", str(games), "--games", "2", "--playouts", "50", "--json"])
    assert code == 0
    result = _last_json(capsys.readouterr().out)
    assert result["games"] == 2 and result["blocks"] == 8
    assert set(result["estimators"]) == {"network", "playouts (50)", "all alive"}
    assert result["estimators"]["all alive"]["games_agree"] == 1  # game 1 has no dead stone by GNU Go


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deadstones"]) == 2
    assert "give an action" in capsys.readouterr().err
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 truncated")
    assert main(["deadstones", "train", str(bad), "--out", str(tmp_path / "m.safetensors")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fuseki deadstones: error:") and "Traceback" not in err
    data = _blocks(tmp_path / "blocks.npz")
    assert main(["deadstones", "train", str(data), "--out", str(tmp_path / "m"), "--algorithm", "adam"]) == 2
    assert "unknown algorithm 'adam'" in capsys.readouterr().err
    assert main(["deadstones", "make-data", str(tmp_path / "nothing-here"), "--out", str(tmp_path / "x.npz"),
                 "--labeller", "marks"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
