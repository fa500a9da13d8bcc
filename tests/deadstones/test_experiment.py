"""The thesis's result tables and the experiment runner, end to end on a tiny synthetic dataset."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fuseki.deadstones.dataset import BlockDataset
from fuseki.deadstones.experiment import (
    DEFAULT_GRID,
    RESULTS_JSON,
    THESIS_RESULTS,
    format_table,
    run_experiment,
    thesis_row_for,
)
from fuseki.deadstones.mlp import THESIS_SHAPES
from fuseki.deadstones.model import load_classifier
from fuseki.deadstones.rprop import ALGORITHMS


pytestmark = pytest.mark.usefixtures("one_thread")


def tiny(n: int = 120) -> BlockDataset:
    rng = np.random.default_rng(0)
    fa = rng.normal(size=(n, 33)).astype(np.float32)
    fb = np.concatenate([fa, rng.normal(size=(n, 56)).astype(np.float32)], axis=1)
    dead = (fa[:, 0] > 0.3).astype(np.uint8)
    color = np.where(dead, 1, 2)
    return BlockDataset(fa, fb, dead, np.arange(n) // 6, np.full(n, 9), color, np.ones(n), {"source": "synthetic"})


def test_thesis_tables_are_complete() -> None:
    per_table = Counter(r.source for r in THESIS_RESULTS)
    assert per_table == {"Table 1": 5, "Table 2": 5, "Table 3": 10, "Table 4": 10, "Table 5": 5, "text": 2}
    assert {r.network for r in THESIS_RESULTS} == set(THESIS_SHAPES)
    assert {r.algorithm for r in THESIS_RESULTS} == set(ALGORITHMS)
    best = min((r for r in THESIS_RESULTS if r.test_rms is not None), key=lambda r: float(r.test_rms or 0))
    assert (best.source, best.network, best.algorithm, best.test_rms) == ("Table 4", "33-32-1", "irprop+", 0.059191)
    t1 = thesis_row_for("33-2-1", "rprop")
    assert t1 is not None and (t1.train_rms, t1.test_rms, t1.epochs, t1.runs) == (0.06355, 0.064043, 2282, 10)
    t2 = thesis_row_for("33-12-1", "sarprop-0.015")
    assert t2 is not None and t2.source == "Table 2" and (t2.train_rms_min, t2.test_rms_min) == (0.061899, 0.067938)
    t5 = thesis_row_for("33-12-1", "sarprop-0.01", data="full")
    assert t5 is not None and t5.source == "Table 5"
    assert (t5.test_rms, t5.test_rms_min, t5.epochs) == (0.070229, 0.068234, 1815)
    assert thesis_row_for("89-32-1", "rprop") is None
    assert len(DEFAULT_GRID) == 25


def test_experiment_runs_end_to_end() -> None:
    events: list[dict[str, Any]] = []
    rows = [("33-2-1", "irprop+"), "89-32-1/sarprop-0.02", thesis_row_for("33-12-1", "rprop")]
    ours = run_experiment(tiny(), rows, epochs=6, runs=2, progress=events.append)  # type: ignore[list-item]
    assert [(r["network"], r["algorithm"], r["run"]) for r in ours] == [
        ("33-2-1", "irprop+", 0), ("33-2-1", "irprop+", 1),
        ("89-32-1", "sarprop-0.02", 0), ("89-32-1", "sarprop-0.02", 1),
        ("33-12-1", "rprop", 0), ("33-12-1", "rprop", 1),
    ]
    assert ours[0]["seed"] == 0 and ours[1]["seed"] == 1 and ours[2]["features"] == "B"
    assert all(r["epochs"] == 6 and 0 <= r["blocks_correct"] <= 1 and r["test_rms_min"] <= r["test_rms"] for r in ours)
    kinds = Counter(e["event"] for e in events)
    assert kinds["run"] == 6 and kinds["result"] == 6 and kinds["epoch"] == 36
    assert all("network" in e for e in events if e["event"] == "epoch")
    table = format_table(ours)
    lines = table.splitlines()
    assert lines[0].startswith("| network | algorithm |")
    assert len([line for line in lines if line.startswith(("| 33-", "| 89-"))]) == 3
    assert "0.066112" in table and "Table 1, §2.1.1, p. 28" in table  # 33-2-1 iRPROP+ beside table 1
    assert "0.055154" in table and "0.061900" in table  # 33-12-1 RPROP beside table 2
    assert "99.5 %" in table
    full = format_table(ours, data="full")
    assert "0.071167" in full and "Table 5" in full


def test_bad_rows_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown algorithm"):
        run_experiment(tiny(), [("33-2-1", "adam")], epochs=1)
    with pytest.raises(ValueError, match="network shape"):
        run_experiment(tiny(), ["33-x-1/rprop"], epochs=1)
    with pytest.raises(ValueError, match="reads 40 features"):
        run_experiment(tiny(), [("40-2-1", "rprop")], epochs=1)
    with pytest.raises(ValueError, match="'small' or 'full'"):
        format_table([], data="medium")


def test_an_interrupted_experiment_resumes(tmp_path: Path) -> None:
    rows = [("33-2-1", "irprop+"), ("33-2-1", "sarprop-0.01")]
    plain = run_experiment(tiny(), rows, epochs=12)

    class Stop(Exception):
        pass

    def interrupt(event: dict[str, Any]) -> None:
        if event["event"] == "epoch" and event["algorithm"] == "sarprop-0.01" and event["epoch"] == 11:
            raise Stop

    with pytest.raises(Stop):
        run_experiment(tiny(), rows, epochs=12, out_dir=tmp_path, progress=interrupt)
    saved = json.loads((tmp_path / RESULTS_JSON).read_text())
    assert [r["algorithm"] for r in saved["results"]] == ["irprop+"]
    events: list[dict[str, Any]] = []
    again = run_experiment(tiny(), rows, epochs=12, out_dir=tmp_path, save_models=True, progress=events.append)
    assert events[0]["event"] == "result" and events[0]["skipped"]
    starts = [e for e in events if e["event"] == "start"]
    assert len(starts) == 1 and starts[0]["start_epoch"] == 10
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in again] == [
        {k: v for k, v in r.items() if k != "seconds"} for r in plain
    ]
    model = load_classifier(tmp_path / "33-2-1_sarprop-0.01_run0.safetensors")
    assert model.info.algorithm == "sarprop-0.01"
    with pytest.raises(ValueError, match="another folder"):
        run_experiment(tiny(), rows, epochs=13, out_dir=tmp_path)
