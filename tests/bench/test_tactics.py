"""benchmarks/tactics.py: every position file reads, and mcts solves the easy ones at a small budget (CI)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "tactics.py"


@pytest.fixture(scope="module")
def tactics() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tactics_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_position_reads_with_a_legal_answer(tactics: ModuleType) -> None:
    positions = tactics.load_positions()
    assert len(positions) >= 30
    assert {p.state.size for p in positions} == {9, 19}
    for pos in positions:
        assert pos.about and pos.best, pos.name
        assert all(pos.state.is_legal(tactics.Move.from_gtp(v, pos.state.size)) for v in pos.best)
    kinds = {p.name: p.state.next_player.name.lower() for p in positions}
    assert kinds["straight_three_live"] == "black" and kinds["straight_three_kill"] == "white"


def test_a_malformed_position_names_its_file(tactics: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "broken.txt"
    bad.write_text("to_play: black\nbest: A1\n. .\n. .\n")
    with pytest.raises(ValueError, match="broken.txt: missing komi"):
        tactics.parse_position(bad)
    bad.write_text("to_play: black\nkomi: 0.5\nbest: A1\nX O\nO .\n")
    with pytest.raises(ValueError, match="broken.txt: .*no liberties"):
        tactics.parse_position(bad)
    bad.write_text("to_play: black\nkomi: 0.5\nbest: A2\nX .\n. .\n")
    with pytest.raises(ValueError, match="best move A2 is not legal"):
        tactics.parse_position(bad)


@pytest.mark.parametrize(
    "name",
    ["capture_cutting_stone", "straight_three_kill", "semeai_white_first", "bulky_five_kill", "semeai_throw_in", "crossed_five_live_19"],
)
def test_mcts_solves_easy_positions_at_a_small_budget(tactics: ModuleType, name: str) -> None:
    (pos,) = tactics.load_positions(names=[name])
    move, solved = tactics.solve(pos, playouts=1000, seed=1)
    assert solved, f"{name}: played {move}, best {sorted(pos.best)}"


def test_gnugo_agrees_with_every_answer(tactics: ModuleType, gnugo: str) -> None:
    """A second opinion on the answers: GNU Go 3.8 at level 10 finds them all (they are basic tactics)."""
    for pos in tactics.load_positions():
        move = tactics.gnugo_move(pos, f"{gnugo} --mode gtp --level 10 --chinese-rules")
        assert move in pos.best, f"{pos.name}: GNU Go plays {move}, the file says {sorted(pos.best)}"
