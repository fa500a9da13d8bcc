"""The differential test against GNU Go: our rules must agree with it at every position.

``test_random_games_agree_with_gnugo`` is the test itself (200 games, about
10 s here). The rest check that the harness can see a disagreement at all,
using a fake GNU Go and a GNU Go given other rules than ours, and the
``fuseki verify`` command around it.
"""

from __future__ import annotations

import json

import pytest

from fuseki.cli import main
from fuseki.go.coords import from_gtp
from fuseki.go.rules import KoRule, Rules
from fuseki.gtp import differential as diff
from fuseki.gtp.differential import games_per_size, run_differential

SIZES = (5, 9, 13, 19)


@pytest.mark.gnugo
def test_random_games_agree_with_gnugo(gnugo):
    report = run_differential(200, SIZES, seed=1, gnugo=gnugo)
    # Printed so that ``pytest -s`` / ``-rA`` show the count in the test report.
    print(f"\ndifferential vs GNU Go: {report.summary()}")
    assert report.games == 200
    assert set(report.games_by_size) == set(SIZES)
    assert report.games_by_size[5] > report.games_by_size[19]
    assert report.captures > 1000, "random games should capture a lot"
    assert report.moves_compared > 10_000
    assert not report.disagreements, "\n\n".join(d.describe() for d in report.disagreements)
    assert report.agreed == 200 and report.ok


@pytest.mark.gnugo
@pytest.mark.slow
def test_many_small_board_games_agree_with_gnugo(gnugo):
    """Tiny boards fill, empty and hit ko and suicide all the time: many games, all rule sets GNU Go shares."""
    for rules in ("gnugo", Rules(KoRule.SIMPLE, suicide=True), "chinese", "book"):
        report = run_differential(3000, (2, 3, 4, 5, 6, 7), seed=2, gnugo=gnugo, rules=rules)
        print(f"\ndifferential vs GNU Go: {report.summary()}")
        assert report.ok, "\n\n".join(d.describe() for d in report.disagreements[:3])


# ---- the harness sees disagreements -------------------------------------------------


@pytest.mark.gnugo
def test_gnugo_with_other_rules_is_caught_with_a_reproducer(gnugo, monkeypatch):
    # GNU Go allows suicide, we forbid it: some position must show the difference.
    monkeypatch.setattr(diff, "gnugo_flags", lambda rules: ("--allow-all-suicide", "--simple-ko"))
    report = run_differential(20, (3, 5), seed=3, gnugo=gnugo)
    assert not report.ok
    assert report.agreed + len(report.disagreements) == report.games == 20
    d = report.disagreements[0]
    assert d.kind == "legal"
    assert d.only_gnugo and not d.only_ours  # GNU Go lists the suicide moves we forbid
    state = d.replay()  # the move list reproduces the position
    assert state.to_ascii() == d.position
    assert state.move_number == d.move_number
    assert state.next_player.name.lower() == d.to_move
    for vertex in d.only_gnugo:
        assert state.why_illegal(from_gtp(vertex, d.size)) == "suicide"
    text = d.describe()
    assert "legal differ" in text and "moves:" in text and d.only_gnugo[0] in text


def test_fake_gnugo_that_refuses_moves(fake_gnugo):
    report = run_differential(3, (5,), seed=0, gnugo=fake_gnugo("--refuse-play"))
    assert report.games == 3 and report.agreed == 0
    d = report.disagreements[0]
    assert d.kind == "play" and d.move_number == 0
    assert "illegal move" in d.detail


def test_fake_gnugo_that_loses_stones(fake_gnugo):
    # It accepts every move but always reports an empty board.
    report = run_differential(2, (5,), seed=0, gnugo=fake_gnugo())
    assert report.agreed == 0
    d = report.disagreements[0]
    assert d.kind == "stones" and d.move_number in (1, 2)  # the first move may be a pass
    assert len(d.only_ours) == 1 and not d.only_gnugo


def test_missing_gnugo_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="GNU Go not found"):
        run_differential(1, (5,), seed=0, gnugo=str(tmp_path / "gnugo"))


@pytest.mark.parametrize("sizes", [(), (1,), (5, 20), (5.0,)])
def test_sizes_gnugo_cannot_play_are_refused(sizes):
    with pytest.raises(ValueError):
        run_differential(1, sizes, seed=0, gnugo="/nonexistent")


def test_games_are_weighted_toward_small_boards():
    plan = games_per_size(200, SIZES)
    assert sum(plan.values()) == 200
    assert plan[5] > plan[9] > plan[13] > plan[19] >= 1
    # About the same number of moves per size: games x area roughly equal.
    work = [g * n * n for n, g in plan.items()]
    assert max(work) < 1.5 * min(work)
    assert games_per_size(2, SIZES) == {5: 1, 9: 1, 13: 0, 19: 0}
    assert games_per_size(7, (9,)) == {9: 7}
    for games in range(50):
        assert sum(games_per_size(games, SIZES).values()) == games


# ---- fuseki verify ------------------------------------------------------------------


@pytest.mark.gnugo
def test_verify_command_json(gnugo, capsys):
    status = main(["verify", "--games", "8", "--sizes", "5,9", "--seed", "4", "--gnugo", gnugo, "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    result = json.loads(out[-1])
    assert status == 0
    assert result["ok"] is True and result["games"] == 8 and result["agreed"] == 8
    assert result["games_by_size"] == {"5": 6, "9": 2}
    assert "8/8 games agreed" in out[-2]


def test_verify_command_missing_gnugo(tmp_path, capsys):
    status = main(["verify", "--gnugo", str(tmp_path / "nothing-here")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and "GNU Go not found" in err[0]


def test_verify_command_reports_disagreement_with_status_1(fake_gnugo, capsys):
    status = main(["verify", "--games", "2", "--sizes", "5", "--gnugo", fake_gnugo("--refuse-play"), "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    assert status == 1
    result = json.loads(out[-1])
    assert result["ok"] is False and result["disagreed"] == 2
    assert result["disagreements"][0]["kind"] == "play"


def test_verify_command_bad_sizes(capsys):
    assert main(["verify", "--sizes", "5,25"]) == 2
    assert "board size 25" in capsys.readouterr().err
