"""benchmarks/compare_checkouts.py: two trees take turns at one real ``fuseki bench``; the ratio of medians."""

from __future__ import annotations

import json
from pathlib import Path
from bench_scripts import ROOT, benchmark_script

run = benchmark_script("compare_checkouts.py")


def test_same_tree_twice_gives_a_ratio_near_one(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = run(
        "--before",
        str(ROOT),
        "--after",
        str(ROOT),
        "--rounds",
        "2",
        "--out",
        str(out),
        "--",
        "rules",
        "--no-peers",
        "--seconds",
        "0.3",
        "--no-jit",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert len(result["before"]["kernel_plies_per_s"]["runs"]) == 2
    assert len(result["after"]["api_plies_per_s"]["runs"]) == 2
    ratio = result["ratio_after_over_before"]["kernel_plies_per_s"]
    assert 0.2 < ratio < 5.0  # the same code: only the machine's noise separates them
    assert result["before"]["commit"] == result["after"]["commit"]
    assert "compare_checkouts.py" in result["command"]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["ratio_after_over_before"] == result["ratio_after_over_before"]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    proc = run("--before", str(tmp_path), "--after", str(ROOT), "--", "mcts")
    assert proc.returncode == 2 and "has no src/fuseki" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("--before", str(ROOT), "--after", str(ROOT), "--", "nonsense")
    assert proc.returncode == 2 and "give the benchmark" in proc.stderr
