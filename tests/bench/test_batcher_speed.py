"""benchmarks/batcher_speed.py: positions per second by device, batch and precision, side by side, with the machine."""

from __future__ import annotations

import json
from pathlib import Path
from bench_scripts import benchmark_script

run = benchmark_script("batcher_speed.py")


def test_each_precision_is_measured_and_the_cpu_recorded(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    done = run("--devices", "cpu", "--precisions", "fp32,bf16", "--batches", "1,2", "--repeats", "1", "--threads", "1",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    keys = {(r["network"], r["batch"], r["precision"]) for r in record["rows"]}
    assert len(keys) == 2 * 2 * 2 and all(r["positions_per_s"] > 0 for r in record["rows"])
    assert isinstance(record["machine"]["cpu_native_bf16"], bool) and record["machine"]["cpu"]
    assert "--precisions fp32,bf16" in record["command"]


def test_an_unknown_precision_is_a_usage_error() -> None:
    done = run("--precisions", "fp32,fp8")
    assert done.returncode == 2 and "--precisions" in done.stderr and "Traceback" not in done.stderr
