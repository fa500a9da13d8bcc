"""benchmarks/zero_resign.py: a run's false resignations by threshold and the calibrated one, from state.json."""

from __future__ import annotations

import json
from pathlib import Path
from bench_scripts import benchmark_script

run = benchmark_script("zero_resign.py", timeout=120)


def entry(g: int, records: list[list[list[object]]] | None) -> dict[str, object]:
    selfplay: dict[str, object] = {"seconds": 1800.0, "no_resign_games": 10, "would_resign": 8, "false_resignations": 1}
    if records is not None:
        selfplay["resign_records"] = [[i, r] for i, r in enumerate(records)]
        selfplay["resign_threshold"] = -0.9
    return {"generation": g, "selfplay": selfplay, "train": {"seconds": 1800.0}}


def test_the_table_and_the_calibrated_threshold(tmp_path: Path) -> None:
    lost = [[-0.7, False]]  # the loser at -0.7
    thrown = [[-0.96, True]]  # the winner at -0.96: false below any threshold above it
    history = [entry(1, None), entry(2, [lost] * 18 + [thrown] * 2)]
    (tmp_path / "state.json").write_text(json.dumps({"generation": 2, "best": 2, "history": history}))
    out = tmp_path / "resign.json"
    proc = run(str(tmp_path), "--target", "0.05", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result == json.loads(proc.stdout.strip().splitlines()[-1])
    assert (result["generations"], result["hours"], result["recorded_games"]) == (2, 2.0, 20)
    assert (result["would_resign"], result["false_resignations"], result["thresholds_played"]) == (16, 2, [-0.9])
    rows = {row["threshold"]: row for row in result["table"]}
    assert (rows[-0.97]["would_resign"], rows[-0.97]["false"]) == (0, 0)
    assert (rows[-0.9]["would_resign"], rows[-0.9]["false"]) == (2, 2)  # only the winners reach -0.9
    assert (rows[-0.5]["would_resign"], rows[-0.5]["false"]) == (20, 2)  # the losers cross -0.7 first
    # 2 of 20 is over 5 %: from -0.96 up to -0.7 only the false games would resign, so nothing above -0.96 qualifies
    assert result["calibrated"] == -0.96
    assert json.loads(run(str(tmp_path), "--target", "0.1").stdout)["calibrated"] == -0.5


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    proc = run(str(tmp_path / "none"))
    assert proc.returncode == 2 and "has no state.json" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "state.json").write_text(json.dumps({"generation": 0, "best": 0, "history": []}))
    proc = run(str(tmp_path))
    assert proc.returncode == 2 and "no finished generation" in proc.stderr
    proc = run(str(tmp_path), "--target", "1.5")
    assert proc.returncode == 2 and "--target must be in [0, 1)" in proc.stderr
