"""The dead-stone scoring agreement measurement against GNU Go (docs/scoring.md)."""

from __future__ import annotations

import os
import shutil

import pytest

from fuseki.bench.scoring import _norm, play_random_game, score_agreement

GNUGO_PRESENT = os.path.exists("/usr/games/gnugo") or shutil.which("gnugo") is not None


def test_random_games_finish() -> None:
    s = play_random_game(5, 1)
    assert s.is_over()


def test_result_normalisation() -> None:
    assert _norm("B+12.0") == "B+12"
    assert _norm("W+0.5") == "W+0.5"
    assert _norm("0") == "0"


def test_agreement_with_gnugo_on_three_games() -> None:
    if not GNUGO_PRESENT:
        if os.environ.get("CI"):
            pytest.fail("GNU Go is required in CI (/usr/games/gnugo)")
        pytest.skip("GNU Go is not installed")
    r = score_agreement(3, size=9, seed=0, playouts=50)
    assert r["games"] + r["errors"] == 3
    assert r["games"] >= 1
    assert 0 <= r["same_score"] <= r["same_winner"] <= r["games"]
