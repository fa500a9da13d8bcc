"""benchmarks/zero_level10.py: the hours a run's Elo curve would take to reach an agent tied to its anchors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_scripts import benchmark_script

GAMES = 100_000  # so many that the rating's one virtual draw a pair moves nothing
run = benchmark_script("zero_level10.py", timeout=120)


def scores(elo_a: float, elo_b: float) -> tuple[float, float]:
    p = 1 / (1 + 10 ** ((elo_b - elo_a) / 400))
    return round(GAMES * p, 3), round(GAMES * (1 - p), 3)


def make_run(folder: Path) -> None:
    """A run whose generations 5, 10, 20, 40 end at 1, 2, 4, 8 recorded hours and are rated 0, 100, 200, 300."""
    history = [{"generation": g, "selfplay": {"seconds": 400.0}, "train": {"seconds": 320.0}, "gate": None} for g in range(1, 41)]
    (folder / "state.json").write_text(json.dumps({"generation": 40, "best": 40, "history": history}))
    elo = {5: 0.0, 10: 100.0, 20: 200.0, 40: 300.0}
    pairs = [{"a": f"gen {g}", "b": "mcts:1000", **dict(zip(("a_score", "b_score"), scores(e, 0.0), strict=True))} for g, e in elo.items()]
    pairs.append({"a": "random", "b": "mcts:1000", **dict(zip(("a_score", "b_score"), scores(-800, 0.0), strict=True))})
    doc = {
        "anchors": [{"name": "mcts:1000"}, {"name": "random"}],
        "generations": [{"generation": g} for g in elo],
        "pairs": pairs,
    }
    (folder / "rate").mkdir()
    (folder / "rate" / "ratings.json").write_text(json.dumps(doc))
    a, b = scores(0.0, 500.0)  # the target, 500 above the anchor
    (folder / "pair.json").write_text("A = ..., B = ...: a text summary first\n" + json.dumps({"a_wins": a, "b_wins": b, "draws": 0}))


def test_the_curves_reach_the_target_where_they_should(tmp_path: Path) -> None:
    make_run(tmp_path)
    out = tmp_path / "level10.json"
    proc = run(str(tmp_path), "--pair", str(tmp_path / "pair.json"), "--last", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["target"]["name"] == "gnugo:10" and result["target"]["elo"] == pytest.approx(500, abs=2)
    assert [p["hours"] for p in result["points"]] == pytest.approx([1, 2, 4, 8])
    log2 = result["curves"]["log2_hours"]
    assert log2["slope"] == pytest.approx(100, abs=1) and log2["hours_to_target"] == pytest.approx(32, rel=0.03)  # 100 Elo a doubling
    low, high = log2["hours_to_target_range"]
    assert low < log2["hours_to_target"] < high
    local = result["curves"]["hours_last"]
    assert local["generations"] == [20, 40] and local["slope"] == pytest.approx(25, abs=0.5)  # 100 Elo over the last 4 hours
    assert local["hours_to_target"] == pytest.approx(16, rel=0.03)
    assert result["last"]["elo_below_target"] == pytest.approx(200, abs=3)
    # --from 10 drops generation 5 and keeps the same line
    again = json.loads(run(str(tmp_path), "--pair", str(tmp_path / "pair.json"), "--from", "10").stdout)
    assert [p["generation"] for p in again["points"]] == [10, 20, 40]
    assert again["curves"]["log2_hours"]["hours_to_target"] == pytest.approx(32, rel=0.03)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    proc = run(str(tmp_path), "--pair", str(tmp_path / "pair.json"))
    assert proc.returncode == 2 and "is missing" in proc.stderr and "Traceback" not in proc.stderr
    make_run(tmp_path)
    proc = run(str(tmp_path), "--pair", str(tmp_path / "pair.json"), "--pair-names", "gnugo:1", "gnugo:10")
    assert proc.returncode == 2 and "'gnugo:1' is not in the rating" in proc.stderr and "Traceback" not in proc.stderr
    proc = run(str(tmp_path), "--pair", str(tmp_path / "pair.json"), "--pair-names", "mcts:1000", "random")
    assert proc.returncode == 2 and "already in the rating" in proc.stderr
    proc = run(str(tmp_path), "--pair", str(tmp_path / "pair.json"), "--from", "30")
    assert proc.returncode == 2 and "need at least 3 rated generations" in proc.stderr
