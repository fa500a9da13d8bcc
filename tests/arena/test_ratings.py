"""Bradley-Terry ratings: the MM fit recovers known strengths, intervals, anchoring, plots."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fuseki.arena.ratings import (
    ELO_PER_NAT,
    bradley_terry,
    expected_score,
    fit_ratings,
    fit_ratings_matrix,
    plot_ratings,
    rating_curve,
    results_matrix,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def simulate(true_elo: list[float], games: int, seed: int) -> np.ndarray:
    """A full round robin with ``games`` games per pair, won with the Elo model's probabilities."""
    rng = np.random.default_rng(seed)
    k = len(true_elo)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            won = rng.binomial(games, expected_score(true_elo[i], true_elo[j]))
            wins[i, j], wins[j, i] = won, games - won
    return wins


def test_recovers_known_strengths() -> None:
    true = [0.0, 150.0, -100.0, 300.0, 40.0]
    wins = simulate(true, 3000, seed=1)
    r = fit_ratings_matrix(wins, ["a", "b", "c", "d", "e"], anchor="a", prior=0)
    assert r.elo[0] == 0.0
    err = np.abs(r.elo - np.array(true))
    assert err.max() < 30
    half = (r.upper - r.lower) / 2
    assert np.all(err[1:] < 2 * half[1:])  # inside about two 95 % half-widths
    assert np.all(half[1:] < 40) and half[0] == 0.0  # the anchor is exact by definition


def test_fisher_intervals_cover_the_truth_most_of_the_time() -> None:
    true = [0.0, 100.0, -80.0]
    covered = 0
    trials = 60
    for seed in range(trials):
        r = fit_ratings_matrix(simulate(true, 200, seed), ["a", "b", "c"], anchor=0, prior=0)
        covered += sum(r.lower[i] <= true[i] <= r.upper[i] for i in (1, 2))
    assert covered / (2 * trials) > 0.85  # nominal 95 %


def test_mle_satisfies_the_likelihood_equations() -> None:
    """At the maximum each agent's expected score equals its actual score."""
    wins = simulate([0.0, 50.0, 200.0, -120.0], 40, seed=3)
    theta = bradley_terry(wins)
    n = wins + wins.T
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    assert np.allclose((n * p).sum(axis=1), wins.sum(axis=1), atol=1e-6)
    assert abs(theta.mean()) < 1e-12


def test_two_agents_closed_form() -> None:
    r = fit_ratings_matrix(np.array([[0, 75], [25, 0]]), ["new", "old"], anchor="old", prior=0)
    assert r.elo[0] == pytest.approx(400 * math.log10(3), abs=1e-6)
    # The Fisher standard error of a log-odds from n games: 1 / sqrt(n p (1 - p)).
    se = ELO_PER_NAT / math.sqrt(100 * 0.75 * 0.25)
    assert r.upper[0] - r.elo[0] == pytest.approx(1.959963984540054 * se, rel=1e-6)


def test_chain_and_anchoring() -> None:
    results = [("b", "a", 60, 40), ("c", "b", 60, 40), ("c", "a", 69.2, 30.8)]
    first = fit_ratings(results, anchor="a", prior=0)
    mean = fit_ratings(results, anchor=None, prior=0)
    assert first.names == ("b", "a", "c")
    assert first.rating("a") == 0.0 and first.rating("b") > 0 and first.rating("c") > first.rating("b")
    assert abs(mean.elo.mean()) < 1e-9
    assert np.allclose(first.elo - first.rating("a"), mean.elo - mean.rating("a"))
    assert mean.anchor is None and first.anchor == "a"


def test_perfect_records_need_a_prior() -> None:
    wins = np.array([[0, 10, 10], [0, 0, 6], [0, 4, 0]])  # agent 0 won everything
    with pytest.raises(ValueError, match="infinite"):
        bradley_terry(wins)
    r = fit_ratings_matrix(wins, ["strong", "x", "y"], anchor="x", prior=1)
    assert np.all(np.isfinite(r.elo))
    assert r.rating("strong") > 200 and r.rating("x") > r.rating("y")


def test_disconnected_schedule_is_an_error() -> None:
    wins = np.zeros((4, 4))
    wins[0, 1], wins[1, 0], wins[2, 3], wins[3, 2] = 3, 2, 1, 4
    with pytest.raises(ValueError, match="connected"):
        bradley_terry(wins, prior=1)


@pytest.mark.parametrize(
    "bad", [np.zeros((1, 1)), np.zeros((2, 3)), np.array([[0, -1], [1, 0]]), np.array([[1, 1], [1, 0]])]
)
def test_bad_matrices(bad: np.ndarray) -> None:
    with pytest.raises(ValueError):
        bradley_terry(bad)


def test_bootstrap_intervals_are_close_to_fisher() -> None:
    wins = simulate([0.0, 120.0, -60.0], 400, seed=5)
    fisher = fit_ratings_matrix(wins, ["a", "b", "c"], prior=0)
    boot = fit_ratings_matrix(wins, ["a", "b", "c"], prior=0, intervals="bootstrap", bootstrap=200, seed=1)
    assert np.allclose(fisher.elo, boot.elo)
    for i in (1, 2):
        assert boot.lower[i] < boot.elo[i] < boot.upper[i]
        ratio = (boot.upper[i] - boot.lower[i]) / (fisher.upper[i] - fisher.lower[i])
        assert 0.7 < ratio < 1.4


def test_results_matrix_adds_up_and_checks() -> None:
    names, w = results_matrix([("a", "b", 3, 1), ("b", "a", 2.5, 1.5), ("a", "c", 1, 1)])
    assert names == ["a", "b", "c"]
    assert w.tolist() == [[0, 4.5, 1], [3.5, 0, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match="itself"):
        results_matrix([("a", "a", 1, 1)])
    with pytest.raises(ValueError, match="not one of"):
        results_matrix([("a", "z", 1, 1)], names=["a", "b"])
    with pytest.raises(ValueError, match="a_score"):
        results_matrix([("a", "b", 1)])


def test_table_and_json() -> None:
    r = fit_ratings([("mcts", "random", 9, 1), ("uniform", "random", 4, 6)], anchor="random")
    table = r.table()
    assert table.splitlines()[1].split()[1] == "mcts"  # strongest first
    assert "random = 0" in table and "virtual draw" in table
    data = r.to_dict()
    assert [x["agent"] for x in data["ratings"]] == ["mcts", "random", "uniform"]
    assert data["ratings"][1]["elo"] == 0.0 and data["ratings"][1]["games"] == 20


def test_plot_ratings_writes_a_png(tmp_path: Path) -> None:
    r = fit_ratings([("b", "a", 6, 4), ("c", "b", 7, 3)])
    path = tmp_path / "ratings.png"
    plot_ratings(r, path, title="test")
    assert path.read_bytes()[:8] == PNG_MAGIC


def test_rating_curve_over_rounds(tmp_path: Path) -> None:
    rounds = [
        [("v1", "v0", 60, 40)],  # ch. 12: ac_v2 against ac_v1
        [("v2", "v1", 51, 49)],
        [("v3", "v1", 62, 38), ("v3", "v0", 70, 30)],
    ]
    path = tmp_path / "curve.png"
    r = rating_curve(rounds, path)
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert r.anchor == "v0" and r.rating("v0") == 0.0
    assert 0 < r.rating("v1") < r.rating("v3")
    # A mapping numbers the rounds itself; results may be EvalSummary-like objects.

    class Summary:
        def __init__(self, row: tuple[str, str, float, float]) -> None:
            self.row = row

        def as_result(self) -> tuple[str, str, float, float]:
            return self.row

    r2 = rating_curve({5: [Summary(("v1", "v0", 60, 40))], 6: [Summary(("v2", "v1", 55, 45))]}, path)
    assert r2.names == ("v1", "v0", "v2")
    with pytest.raises(ValueError, match="several candidates"):
        rating_curve([[("v1", "v0", 1, 1), ("v2", "v0", 1, 1)]], path)
    with pytest.raises(ValueError, match="at least one round"):
        rating_curve([], path)
