"""The cheap CI version of issue 5's strength benchmark: MCTS against GNU Go level 1.

The full benchmark (5 s per move against ``--level 10``, 100 games) lives in
``benchmarks/results/mcts_vs_gnugo10_9x9``; here a fixed playout budget keeps
the games short and the result independent of the machine's speed.

The games are the same on every run: our engine has ``--seed 7``, GNU Go has
``--seed 1`` (without it GNU Go seeds itself from the time of day and opens
differently each run), and the match sends no ``time_settings`` (with a clock
GNU Go ignores ``--level`` and plays its level-10 moves). Before both were
fixed, this test failed in one of six CI runs.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.go.sgf import load_sgf


@pytest.mark.gnugo
def test_mcts_beats_gnugo_level_1_in_most_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gnugo: str
) -> None:
    """Four games, colours alternating: MCTS with 5,000 playouts per move must win at least three."""
    out = tmp_path / "games"
    log = tmp_path / "moves.jsonl"
    ours = shlex.join(
        [sys.executable, "-m", "fuseki", "gtp", "--bot", "mcts", "--playouts", "5000", "--seed", "7", "--log", str(log)]
    )
    code = main(["match", ours, f"{gnugo} --mode gtp --level 1 --seed 1", "--size", "9", "--games", "4"]
                + ["--sgf-dir", str(out), "--json", "--move-time", "120"])
    assert code == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["games"] == 4 and data["forfeits"] == 0, data["results"]
    assert data["a_wins"] >= 3, data["results"]
    # Every game ended by the rules (two passes) or by a resignation, never by the move cap.
    for path in sorted(out.glob("game_*.sgf")):
        record = load_sgf(path)
        assert record.replay().is_over() or record.result.endswith("+R")
    # The move log saw every one of our moves, each with exactly the playout budget.
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries and all(e["playouts"] == 5000 for e in entries)
