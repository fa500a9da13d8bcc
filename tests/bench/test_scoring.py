"""The dead-stone scoring agreement measurement against GNU Go (docs/scoring.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuseki.bench.scoring import _borders, _norm, play_random_game, score_agreement, set_agreement
from fuseki.bench.scoring_set import read_set
from fuseki.util.errors import InputError



def test_random_games_finish() -> None:
    s = play_random_game(5, 1)
    assert s.is_over()


def test_result_normalisation() -> None:
    assert _norm("B+12.0") == "B+12"
    assert _norm("W+0.5") == "W+0.5"
    assert _norm("0") == "0"


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_agreement_with_gnugo_on_three_games() -> None:
    r = score_agreement(3, size=9, seed=0, playouts=50)
    assert r["games"] + r["errors"] == 3
    assert r["games"] >= 1
    assert 0 <= r["same_score"] <= r["same_winner"] <= r["games"]


def test_set_agreement_parts_add_up() -> None:
    """Agreement on a few games of the committed sets, split by closed and open borders and by ending."""
    root = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
    games = read_set(root / "scoring9")[:8] + read_set(root / "scoring19")[:2]
    # Game 0 of the 19x19 set stopped with borders open (GNU Go's dead stones removed, 245 points touch
    # both colours); game 1 with every empty point one side's.
    assert [_borders(g, g.state()) for g in games[8:]] == ["open", "closed"]
    r = set_agreement(games, ["plain", "count"], ["nine"] * 8 + ["nineteen"] * 2)
    assert r["games"] == 10 and r["size"] == [9, 19]
    assert sum(r["games_by_borders"].values()) == 10 and r["games_by_borders"]["open"] >= 1
    for name in ("plain", "count"):
        e = r["estimators"][name]
        assert e["parts"]["set nineteen"]["games"] == 2
        for prefix in ("borders", "ending", "set"):
            parts = [v for k, v in e["parts"].items() if k.startswith(prefix)]
            assert sum(p["games"] for p in parts) == 10
            assert sum(p["same_score"] for p in parts) == e["same_score"]
            assert sum(p["same_winner"] for p in parts) == e["same_winner"]
        # The headline of issue 21: the games stopped by two passes in a row, with Wilson intervals.
        two = e["two_passes"]
        assert two["games"] == e["parts"].get("ending two-passes", {"games": 0})["games"] == sum(g.ending == "two-passes" for g in games)
        assert two["games"] >= 1 and 0 <= two["same_score"] <= two["same_winner"] <= two["games"]
        lo, hi = two["same_score_ci95"]
        assert lo <= 100 * two["same_score"] / two["games"] <= hi
    assert r["estimators"]["count"]["same_score"] >= 8 > r["estimators"]["plain"]["same_score"]
    with pytest.raises(InputError, match="2 group names for 1 games"):
        set_agreement(games[:1], ["plain"], ["a", "b"])
    with pytest.raises(InputError, match="unknown estimator"):
        set_agreement(games[:1], ["magic"])
