"""The scoring test set generator: games stopped before settled, GNU Go's labels, resume (docs/scoring.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fuseki.bench.scoring_set import GAMES_FILE, SetSettings, make_set, read_set
from fuseki.deadstones.labels import marked_dead_points
from fuseki.go.sgf import read_sgf
from fuseki.util.errors import InputError
from fuseki.util.runs import RunMismatch

SET9 = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "scoring9"


def test_committed_set_holds_unsettled_games_with_marks() -> None:
    games = read_set(SET9)
    assert len(games) >= 200
    assert sum(1 for g in games if g.gnugo_dead) >= 150  # dead stones left inside territory
    for g in games[:20]:
        record = read_sgf(g.sgf)
        assert record.result == g.gnugo_score
        assert (marked_dead_points(record, g.state()) or frozenset()) == frozenset(g.dead_points())
        assert g.state().is_over()


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_make_resume_and_refuse_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "set"
    settings = SetSettings(size=7)
    first = list(make_set(out, settings, 2))
    assert [g.game for g in first] == [0, 1]
    # A torn last line (a kill in the middle of a write) is dropped, and that game made again.
    path = out / GAMES_FILE
    text = path.read_text()
    path.write_text(text + text.splitlines()[0][:40])
    again = list(make_set(out, settings, 3))
    assert [g.game for g in again] == [2]
    assert len(read_set(out)) == 3
    with pytest.raises(RunMismatch):
        list(make_set(out, dataclasses.replace(settings, seed=5), 4))
    with pytest.raises(RunMismatch):
        list(make_set(out, dataclasses.replace(settings, endings="two-passes"), 4))


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_forced_endings_keep_each_games_other_draws(tmp_path: Path) -> None:
    both = list(make_set(tmp_path / "both", SetSettings(size=7), 4))
    two = list(make_set(tmp_path / "two", SetSettings(size=7, endings="two-passes"), 4))
    assert {g.ending for g in two} == {"two-passes"}
    assert {g.ending for g in both} == {"first-pass", "two-passes"}  # seed 0's first four games draw both
    for a, b in zip(both, two, strict=True):
        assert (a.opening, a.weak, a.noise) == (b.opening, b.weak, b.noise)
        if a.ending == "two-passes":
            assert a.sgf == b.sgf and a.gnugo_score == b.gnugo_score


def test_sets_made_before_endings_resume_as_both(tmp_path: Path) -> None:
    import json

    out = tmp_path / "old"
    out.mkdir()
    settings = dataclasses.asdict(SetSettings(size=7))
    del settings["endings"]
    (out / "settings.json").write_text(json.dumps({"settings": settings}))
    (out / GAMES_FILE).write_text("")
    assert list(make_set(out, SetSettings(size=7), 0)) == []
    with pytest.raises(InputError, match="endings must be one of"):
        SetSettings(size=7, endings="three-passes")


def test_missing_set_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        read_set(tmp_path / "nothing")
