"""benchmarks/zero_ttt_seeds.py: the Gumbel tic-tac-toe run's losses against perfect play, by seed and generation."""

from __future__ import annotations

import json
from pathlib import Path

from bench_scripts import benchmark_script
from needs import need_module

need_module("torch")  # skips here, fails under CI
run = benchmark_script("zero_ttt_seeds.py", timeout=300)


def test_one_seed_from_the_random_network_to_generation_one(tmp_path: Path) -> None:
    out = tmp_path / "seeds.json"
    proc = run("--seeds", "0", "--generations", "0-1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["command"].endswith("--seeds 0 --generations 0-1 --out " + str(out))
    rows = result["rows"]
    assert [(r["seed"], r["generation"]) for r in rows] == [(0, 0), (0, 1)]
    assert all(set(r["losses_of_18"]) == {"1", "8", "25"} for r in rows)
    assert all(0 <= n <= 18 for r in rows for n in r["losses_of_18"].values())
    # the random network loses most of the 18 on its own; generation 1 has a training loss, generation 0 none
    assert rows[0]["losses_of_18"]["1"] >= 10 and rows[0]["train_loss"] is None and rows[1]["train_loss"] > 0
    assert "seed 0 generation  1: lost" in proc.stdout


def test_a_bad_range_is_refused(tmp_path: Path) -> None:
    proc = run("--generations", "5-2")
    assert proc.returncode == 2 and "bad generation range '5-2'" in proc.stderr and "Traceback" not in proc.stderr
