"""The lenient reader replays every shipped game as the reader before it did, bit for bit.

``benchmarks/results/sgf_old_replays.json`` holds, for each SGF file in the
repository when the lenient reader came (the benchmark games and the test
files), a SHA-256 of what the old reader's replay showed: the record's size,
komi, handicap, setup and moves, and every position's stones, player to move
and prisoners (``replay_facts`` of ``benchmarks/sgf_old_vs_new.py``, which
made the file from the old reader in git). Here the new reader must give the
same digest for every file the old one loaded, unless it says which repair
changed the game (the old reader read ``KM[650]`` as 650 points).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from fuseki.go.sgf import SgfError, read_sgf

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = ROOT / "benchmarks" / "results" / "sgf_old_replays.json"
#: The repairs that change what a replay shows (the others touch text, or read what the old reader refused).
CHANGES = {"komi_x100", "komi_stones", "bad_komi", "handicap_placed"}


def _compare_module():
    spec = importlib.util.spec_from_file_location("sgf_old_vs_new", ROOT / "benchmarks" / "sgf_old_vs_new.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _check(stride: int) -> tuple[int, int, int]:
    """Compare the test files and every ``stride``-th other file; (same, changed by a repair, new only)."""
    compare = _compare_module()
    digests = json.loads(DIGESTS.read_text())["digests"]
    same = changed = new_only = 0
    names = sorted(digests)
    chosen = [n for i, n in enumerate(names) if n.startswith("tests/") or i % stride == 0]
    for name in chosen:
        old = digests[name]
        path = ROOT / name
        if not path.exists():
            continue  # a file removed since; new files are not in the list
        data = path.read_bytes()
        try:
            record = read_sgf(data)
            facts = compare.replay_facts(record)
        except SgfError as e:
            assert old == "refused", f"{name}: the old reader loaded it, the new one says {e}"
            continue
        if old == "refused":
            new_only += 1
            continue
        kinds = {w.kind for w in record.warnings}
        if compare.digest(facts) == old:
            same += 1
        else:
            assert kinds & CHANGES, f"{name}: replayed differently, and no repair says why ({sorted(kinds)})"
            assert name.startswith("tests/go/wild/"), name
            changed += 1
    return same, changed, new_only


def test_test_files_and_a_sample_of_the_shipped_games_replay_as_before() -> None:
    same, changed, new_only = _check(stride=40)
    assert same >= 40 and changed == 5 and new_only == 11


@pytest.mark.slow
def test_every_shipped_game_the_old_reader_loaded_replays_the_same() -> None:
    same, changed, new_only = _check(stride=1)
    assert same >= 1600 and changed == 5 and new_only == 11
