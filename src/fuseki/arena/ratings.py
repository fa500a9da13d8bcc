"""Ratings for many agents from head-to-head records: Bradley-Terry on the Elo scale.

A win rate compares two agents. With three or more (the versions of an RL
run, a few search budgets, GNU Go) one number per agent is wanted, on one
scale. The Bradley-Terry model gives each agent a strength ``g_i`` and says
``i`` beats ``j`` with probability ``g_i / (g_i + g_j)``. Written as
``g_i = 10**(R_i / 400)`` that is exactly the Elo formula, so ``R_i`` are Elo
ratings: 100 points apart means a 64 % expected score, 191 points 75 %.

:func:`bradley_terry` finds the maximum-likelihood strengths with Hunter's
MM algorithm (2004): ``g_i <- W_i / sum_j n_ij / (g_i + g_j)``, where ``W_i``
is i's total score and ``n_ij`` the games between i and j. Each step raises
the likelihood, and it converges whenever every agent both won and lost
somewhere in a connected schedule. A 100 % or 0 % agent has an infinite
rating, which short evaluations produce all the time (random against MCTS),
so :func:`fit_ratings` adds by default one *virtual draw* to every pair that
played (``prior=1``): a light pull towards equality that keeps every rating
finite and disappears as real games accumulate.

Ratings are only defined up to a constant: they are anchored so that the
first agent has 0 (or so that their mean is 0). Intervals come from the
Fisher information of the likelihood (fast, symmetric) or from a parametric
bootstrap of the games (slower, honest near 0 % and 100 %).

:func:`plot_ratings` draws the table, :func:`rating_curve` the rating of each
round's candidate over the rounds of a training loop (book ch. 12: each new
version against the previous one).

>>> import numpy as np
>>> wins = np.array([[0, 75], [25, 0]])  # agent 0 scored 75 of 100 against agent 1
>>> r = fit_ratings_matrix(wins, ["new", "old"], anchor="old", prior=0)
>>> round(float(r.elo[0]))
191
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from fuseki.util.atomic import write_atomic

__all__ = [
    "ELO_PER_NAT",
    "Ratings",
    "bradley_terry",
    "expected_score",
    "fit_ratings",
    "fit_ratings_matrix",
    "plot_ratings",
    "rating_curve",
    "results_matrix",
]

#: Elo points per natural-log unit of strength: ``400 / ln 10``.
ELO_PER_NAT = 400.0 / math.log(10.0)
_Z95 = 1.959963984540054
_METHODS = ("fisher", "bootstrap")


def expected_score(elo_a: float, elo_b: float) -> float:
    """A's expected score against B under the Elo model: ``1 / (1 + 10**((B - A) / 400))``.

    >>> expected_score(100, 100)
    0.5
    >>> round(expected_score(191, 0), 3)
    0.75
    """
    return 1.0 / (1.0 + 10.0 ** ((elo_b - elo_a) / 400.0))


# ---- the fit ---------------------------------------------------------------------


def _check_matrix(wins: np.ndarray) -> np.ndarray:
    w = np.asarray(wins, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise ValueError(f"the score matrix must be square with at least 2 agents, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("the score matrix must hold finite scores of 0 or more")
    if np.any(np.diag(w) != 0):
        raise ValueError("an agent cannot score against itself (the diagonal must be 0)")
    return w


def _reachable(adj: np.ndarray, start: int) -> np.ndarray:
    seen = np.zeros(adj.shape[0], dtype=bool)
    seen[start] = True
    stack = [start]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero(adj[i] & ~seen):
            seen[j] = True
            stack.append(int(j))
    return seen


def bradley_terry(
    wins: np.ndarray, *, prior: float = 0.0, max_iter: int = 100_000, tol: float = 1e-10
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry log-strengths (natural log, mean 0) by Hunter's MM algorithm.

    ``wins[i, j]`` is i's score against j (a draw counts half for each).
    ``prior`` adds that many drawn games to every pair that played (half a
    win each way). Raises ``ValueError`` when the schedule is not connected
    (no common scale exists) or, without a prior, when an agent's rating
    would be infinite (it won or lost every game of a group).
    """
    w = _check_matrix(wins)
    if prior < 0 or not math.isfinite(prior):
        raise ValueError(f"prior must be a finite number of games of 0 or more, got {prior!r}")
    k = w.shape[0]
    played = (w + w.T) > 0
    if not _reachable(played, 0).all():
        raise ValueError("the agents do not form one connected schedule: some groups never played each other")
    w = w + (prior / 2.0) * played
    n = w + w.T
    if prior == 0:
        beats = w > 0
        for i in range(k):
            if not _reachable(beats, i).all():
                raise ValueError(
                    "the maximum-likelihood ratings are infinite (some agents won or lost all their games "
                    "against the rest); use a prior of virtual draws"
                )
    total = w.sum(axis=1)
    g = np.ones(k)
    for _ in range(max_iter):
        denom = (n / (g[:, None] + g[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(float(np.mean(np.log(new))))
        change = float(np.max(np.abs(np.log(new) - np.log(g))))
        g = new
        if change < tol:
            break
    theta = np.log(g)
    return theta - theta.mean()


def _anchored(theta: np.ndarray, anchor: int | None) -> np.ndarray:
    return theta - (theta.mean() if anchor is None else theta[anchor])


def _fisher_se(theta: np.ndarray, n: np.ndarray, anchor: int | None) -> np.ndarray:
    """Standard errors (natural log units) from the inverse Fisher information, under the anchoring."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    v = n * p * (1.0 - p)
    info = np.diag(v.sum(axis=1)) - v  # v's diagonal is 0: nobody plays itself
    k = len(theta)
    if anchor is None:
        cov = np.linalg.pinv(info)  # the inverse on the mean-zero subspace
    else:
        keep = [i for i in range(k) if i != anchor]
        cov = np.zeros((k, k))
        cov[np.ix_(keep, keep)] = np.linalg.inv(info[np.ix_(keep, keep)])
    return np.sqrt(np.clip(np.diag(cov), 0.0, None))


@dataclasses.dataclass(frozen=True)
class Ratings:
    """Fitted Elo ratings with 95 % intervals, and the records they came from."""

    names: tuple[str, ...]
    elo: np.ndarray  #: Elo ratings, anchored
    lower: np.ndarray  #: 95 % interval, lower ends
    upper: np.ndarray  #: 95 % interval, upper ends
    wins: np.ndarray  #: ``wins[i, j]``: i's score against j (draws half)
    anchor: str | None  #: the agent rated 0, or ``None``: the mean is 0
    method: str  #: ``"fisher"`` or ``"bootstrap"``
    prior: float  #: virtual draws added to each pair

    @property
    def games(self) -> np.ndarray:
        """Games between each pair."""
        return self.wins + self.wins.T

    def rating(self, name: str) -> float:
        return float(self.elo[self.names.index(name)])

    def table(self) -> str:
        """A text table, strongest first: rank, agent, Elo, its interval, games and score."""
        order = np.argsort(-self.elo, kind="stable")
        width = max(5, *(len(n) for n in self.names))
        anchor = "mean 0" if self.anchor is None else f"{self.anchor} = 0"
        lines = [
            f"{'#':>2}  {'agent':<{width}}  {'Elo':>6}  {'95 % interval':>15}  {'games':>5}  {'score':>6}",
        ]
        games = self.games.sum(axis=1)
        score = self.wins.sum(axis=1)
        for rank, i in enumerate(order, 1):
            pct = f"{100 * score[i] / games[i]:5.1f}%" if games[i] else "    -"
            lines.append(
                f"{rank:>2}  {self.names[i]:<{width}}  {self.elo[i]:+6.0f}  "
                f"{self.lower[i]:+7.0f} {self.upper[i]:+7.0f}  {games[i]:>5g}  {pct:>6}"
            )
        lines.append(
            f"Bradley-Terry on the Elo scale ({anchor}; {self.method} 95 % intervals; "
            f"{self.prior:g} virtual draw(s) per pair)"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "anchor": self.anchor,
            "method": self.method,
            "prior": self.prior,
            "ratings": [
                {
                    "agent": name,
                    "elo": round(float(self.elo[i]), 2),
                    "ci95": [round(float(self.lower[i]), 2), round(float(self.upper[i]), 2)],
                    "games": float(self.games[i].sum()),
                    "score": float(self.wins[i].sum()),
                }
                for i, name in enumerate(self.names)
            ],
        }


def _anchor_index(names: Sequence[str], anchor: str | int | None) -> int | None:
    if anchor is None:
        return None
    if isinstance(anchor, int) and not isinstance(anchor, bool):
        if not 0 <= anchor < len(names):
            raise ValueError(f"anchor index {anchor} is out of range for {len(names)} agents")
        return anchor
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the agents ({', '.join(names)})")
    return list(names).index(anchor)


def fit_ratings_matrix(
    wins: np.ndarray,
    names: Sequence[str],
    *,
    anchor: str | int | None = 0,
    prior: float = 1.0,
    intervals: str = "fisher",
    bootstrap: int = 500,
    seed: int = 0,
    z: float = _Z95,
) -> Ratings:
    """Fit Elo ratings to a score matrix (``wins[i, j]``: i's score against j).

    ``anchor``: the agent (name or index) rated 0, or ``None`` for mean 0.
    ``intervals="fisher"``: rating ± z·SE from the inverse Fisher information
    at the fit; ``"bootstrap"``: the 2.5 % and 97.5 % percentiles of
    ``bootstrap`` refits to games drawn from the fitted model's expected
    scores with the observed numbers of games per pair.
    """
    w = _check_matrix(wins)
    names = tuple(str(n) for n in names)
    if len(names) != w.shape[0] or len(set(names)) != len(names):
        raise ValueError(f"need {w.shape[0]} distinct names, got {names!r}")
    if intervals not in _METHODS:
        raise ValueError(f"intervals must be one of {', '.join(_METHODS)}, got {intervals!r}")
    a = _anchor_index(names, anchor)
    theta = bradley_terry(w, prior=prior)
    elo = _anchored(theta, a) * ELO_PER_NAT
    played = (w + w.T) > 0
    n = w + w.T + prior * played
    if intervals == "fisher":
        se = _fisher_se(theta, n, a) * ELO_PER_NAT
        lower, upper = elo - z * se, elo + z * se
    else:
        if bootstrap < 10:
            raise ValueError(f"bootstrap needs at least 10 resamples, got {bootstrap}")
        rng = np.random.default_rng(seed)
        games = np.rint(w + w.T).astype(np.int64)
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        iu = np.triu_indices(len(names), 1)
        samples = np.empty((bootstrap, len(names)))
        for b in range(bootstrap):
            sim = np.zeros_like(w)
            won = rng.binomial(games[iu], p[iu])
            sim[iu] = won
            sim[(iu[1], iu[0])] = games[iu] - won
            samples[b] = _anchored(bradley_terry(sim, prior=prior if prior > 0 else 0.5), a) * ELO_PER_NAT
        lower, upper = np.percentile(samples, [2.5, 97.5], axis=0)
    return Ratings(names, elo, np.asarray(lower), np.asarray(upper), w, None if a is None else names[a], intervals, prior)


def results_matrix(results: Iterable[Any], names: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """Names (in order of first appearance, or as given) and the score matrix of head-to-head records.

    Each result is ``(a, b, a_score, b_score)`` (a :class:`~fuseki.arena.outcome.PairResult`)
    or has ``as_result()`` (an :class:`~fuseki.arena.outcome.EvalSummary`). Records of
    the same pair add up.
    """
    order: list[str] = list(names) if names is not None else []
    rows: list[tuple[str, str, float, float]] = []
    for r in results:
        if hasattr(r, "as_result"):
            r = r.as_result()
        try:
            a, b, sa, sb = r
        except (TypeError, ValueError):
            raise ValueError(f"a result must be (a, b, a_score, b_score), got {r!r}") from None
        a, b, sa, sb = str(a), str(b), float(sa), float(sb)
        if a == b:
            raise ValueError(f"a result pairs {a!r} with itself")
        if not (math.isfinite(sa) and math.isfinite(sb)) or sa < 0 or sb < 0:
            raise ValueError(f"scores must be finite and 0 or more, got {sa!r} and {sb!r} for {a} vs {b}")
        for x in (a, b):
            if x not in order:
                if names is not None:
                    raise ValueError(f"result names {x!r}, which is not one of {', '.join(names)}")
                order.append(x)
        rows.append((a, b, sa, sb))
    w = np.zeros((len(order), len(order)))
    index = {x: i for i, x in enumerate(order)}
    for a, b, sa, sb in rows:
        w[index[a], index[b]] += sa
        w[index[b], index[a]] += sb
    return order, w


def fit_ratings(results: Iterable[Any], *, names: Sequence[str] | None = None, **options: Any) -> Ratings:
    """:func:`fit_ratings_matrix` on head-to-head records (see :func:`results_matrix`).

    >>> r = fit_ratings([("b", "a", 60, 40), ("c", "b", 60, 40)], anchor="a", prior=0)
    >>> [round(x) for x in r.elo]
    [70, 0, 141]
    """
    order, w = results_matrix(results, names)
    if len(order) < 2:
        raise ValueError("ratings need results of at least two agents")
    return fit_ratings_matrix(w, order, **options)


# ---- plots -------------------------------------------------------------------------


def _save_figure(fig: Any, path: str | os.PathLike[str]) -> None:
    """Render with the Agg canvas (no display, no global backend switch) and write the PNG atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    write_atomic(path, buf.getvalue())


def plot_ratings(ratings: Ratings, path: str | os.PathLike[str], *, title: str | None = None) -> None:
    """A PNG of the ratings, strongest on top, each with its 95 % interval."""
    from matplotlib.figure import Figure

    order = np.argsort(ratings.elo, kind="stable")
    fig = Figure(figsize=(7.0, 1.2 + 0.45 * len(order)))
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(order))
    elo = ratings.elo[order]
    ax.errorbar(
        elo,
        y,
        xerr=[elo - ratings.lower[order], ratings.upper[order] - elo],
        fmt="o",
        capsize=4,
        color="tab:blue",
    )
    ax.set_yticks(y, [ratings.names[i] for i in order])
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    anchor = "mean 0" if ratings.anchor is None else f"{ratings.anchor} = 0"
    ax.set_xlabel(f"Elo ({anchor}; 95 % intervals, {ratings.method})")
    ax.set_title(title or "Bradley-Terry ratings")
    ax.grid(axis="x", alpha=0.3)
    _save_figure(fig, path)


def rating_curve(
    results_by_round: Sequence[Iterable[Any]] | Mapping[int, Iterable[Any]],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    prior: float = 1.0,
    intervals: str = "fisher",
) -> Ratings:
    """Plot the rating of each round's candidate over the rounds of a training loop; return the fit.

    ``results_by_round[r]`` holds round r's head-to-head records, each
    ``(candidate, opponent, candidate_score, opponent_score)`` (or an
    :class:`~fuseki.arena.outcome.EvalSummary` of the candidate as A): the
    book's ch. 12 loop is one record per round, the new version against the
    previous one. Every record of a round must have the same candidate. A
    mapping gives the rounds their numbers; a sequence numbers them 1, 2, ...

    All records are fitted together (:func:`fit_ratings`), anchored on the
    first round's first opponent (the starting agent), which is drawn at
    round 0 when it is no round's candidate. Accepted and rejected candidates
    (gating) are both shown: a rejected one is simply lower.
    """
    from matplotlib.figure import Figure

    rounds = (
        sorted(results_by_round.items())
        if isinstance(results_by_round, Mapping)
        else list(enumerate(results_by_round, 1))
    )
    if not rounds:
        raise ValueError("a rating curve needs at least one round of results")
    everything: list[Any] = []
    candidates: list[tuple[int, str]] = []
    start: str | None = None
    for number, results in rounds:
        rows = [r.as_result() if hasattr(r, "as_result") else r for r in results]
        if not rows:
            raise ValueError(f"round {number} has no results")
        heads = {str(r[0]) for r in rows}
        if len(heads) != 1:
            raise ValueError(f"round {number} has several candidates ({', '.join(sorted(heads))}); one per round")
        if start is None:
            start = str(rows[0][1])
        candidates.append((int(number), str(rows[0][0])))
        everything.extend(rows)
    assert start is not None
    ratings = fit_ratings(everything, anchor=start, prior=prior, intervals=intervals)
    points = [(x, name) for x, name in candidates]
    if start not in {name for _, name in candidates}:
        points.insert(0, (min(x for x, _ in candidates) - 1, start))
    xs = np.array([x for x, _ in points], dtype=float)
    idx = [ratings.names.index(name) for _, name in points]
    elo = ratings.elo[idx]
    fig = Figure(figsize=(7.0, 4.0))
    ax = fig.add_subplot(1, 1, 1)
    ax.errorbar(
        xs,
        elo,
        yerr=[elo - ratings.lower[idx], ratings.upper[idx] - elo],
        fmt="o-",
        capsize=4,
        color="tab:blue",
    )
    for x, e, (_, name) in zip(xs, elo, points, strict=True):
        ax.annotate(name, (x, e), textcoords="offset points", xytext=(4, 6), fontsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("round")
    ax.set_ylabel(f"Elo ({start} = 0; 95 % intervals)")
    ax.set_title(title or "Rating over rounds")
    ax.grid(alpha=0.3)
    _save_figure(fig, path)
    return ratings
