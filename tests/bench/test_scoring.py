"""The dead-stone scoring agreement measurement against GNU Go (docs/scoring.md)."""

from __future__ import annotations


import pytest

from fuseki.bench.scoring import _norm, play_random_game, score_agreement



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
