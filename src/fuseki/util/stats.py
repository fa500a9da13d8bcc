"""Statistics of match results: the exact binomial test and Elo differences with their intervals.

What ``fuseki eval``, the RL loop's gate and the rating tables report about a
set of games: is A better than B (:func:`binomial_test`, the book's
``binom_test``), did two bots score differently against the same opponent
(:func:`fisher_exact`, two independent win counts), and by how many Elo points (:func:`elo_difference`, with the
Wilson interval mapped to Elo by :func:`elo_interval`), and the Wilson
interval itself (:func:`wilson_interval`) that every match result carries.
One home for them, so that no layer carries its own copy.

>>> round(binomial_test(53, 100), 4)  # the book's example
0.6173
>>> round(elo_difference(0.75), 1)
190.8
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["Z95", "binomial_test", "clip_score", "elo_difference", "elo_interval", "fisher_exact", "wilson_interval"]

#: The two-sided 95 % normal quantile (the same as the match runner's).
Z95 = 1.959963984540054
#: Relative tolerance when comparing probabilities of outcomes in the binomial
#: test with a non-1/2 ``p`` (the same as SciPy's, so both agree on ties).
_REL_TOL = 1e-7


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate of ``wins / games`` (95 % by default).

    ``wins`` may be fractional (a draw counts half). With no games the interval
    is the whole of ``[0, 1]``.

    >>> [round(x, 4) for x in wilson_interval(0, 4)]
    [0.0, 0.4899]
    """
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    z2 = z * z
    denom = 1.0 + z2 / games
    centre = (p + z2 / (2 * games)) / denom
    half = z * math.sqrt(p * (1.0 - p) / games + z2 / (4 * games * games)) / denom
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)
    hi = 1.0 if wins >= games else min(1.0, centre + half)
    return (lo, hi)


def binomial_test(wins: int, games: int, p: float = 0.5, *, alternative: str = "two-sided") -> float:
    """The exact binomial test: the p-value of ``wins`` successes in ``games`` trials.

    Under the null hypothesis each game is won with probability ``p`` (two
    equal bots: ``p = 0.5``). ``alternative``:

    - ``"two-sided"`` (the book's ``binom_test``): the probability of every
      outcome that is no more likely than the one observed;
    - ``"greater"``: the probability of ``wins`` or more;
    - ``"less"``: the probability of ``wins`` or fewer.

    With ``p = 1/2`` the sum is computed in exact integer arithmetic
    (``C(n, k) / 2**n``) and rounded once; other ``p`` are summed as exact
    fractions of the float ``p`` for ``games`` up to 2,000 and in log space
    above that. No games: 1.0.

    >>> round(binomial_test(530, 1000), 4)  # "about 6 %", ch. 10
    0.062
    >>> binomial_test(3, 3, alternative="greater")
    0.125
    """
    if isinstance(wins, bool) or isinstance(games, bool) or not isinstance(wins, int) or not isinstance(games, int):
        raise ValueError(f"wins and games must be whole numbers, got {wins!r} and {games!r}")
    if games < 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games, got {wins} wins in {games} games")
    if not (isinstance(p, (int, float)) and 0.0 <= p <= 1.0):
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")
    if games == 0:
        return 1.0
    n, k = games, wins
    if p == 0.5:
        weights = [math.comb(n, i) for i in range(n + 1)]  # pmf * 2**n, exact
        if alternative == "greater":
            tail = sum(weights[k:])
        elif alternative == "less":
            tail = sum(weights[: k + 1])
        else:
            tail = sum(w for w in weights if w <= weights[k])
        return float(Fraction(min(tail, 2**n), 2**n))
    if n <= 2000:
        q = Fraction(p)
        pmf = [math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(n + 1)]
        if alternative == "greater":
            total = sum(pmf[k:], Fraction(0))
        elif alternative == "less":
            total = sum(pmf[: k + 1], Fraction(0))
        else:
            limit = pmf[k] * Fraction(1 + _REL_TOL)
            total = sum((x for x in pmf if x <= limit), Fraction(0))
        return float(min(total, Fraction(1)))
    logs = [_log_binom_pmf(i, n, p) for i in range(n + 1)]
    if alternative == "greater":
        chosen = logs[k:]
    elif alternative == "less":
        chosen = logs[: k + 1]
    else:
        limit = logs[k] + math.log1p(_REL_TOL)
        chosen = [x for x in logs if x <= limit]
    top = max(chosen)
    if top == -math.inf:
        return 0.0
    return min(1.0, math.exp(top) * math.fsum(math.exp(x - top) for x in chosen))


def _log_binom_pmf(k: int, n: int, p: float) -> float:
    """``log P(X = k)`` for ``X ~ Binomial(n, p)`` (``-inf`` where it is 0)."""
    if p == 0.0:
        return 0.0 if k == 0 else -math.inf
    if p == 1.0:
        return 0.0 if k == n else -math.inf
    return (
        math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p)
    )


def elo_difference(score: float) -> float:
    """The Elo difference that an expected score implies: ``400 * log10(s / (1 - s))``.

    The Elo model says a player rated ``D`` points higher scores
    ``1 / (1 + 10**(-D / 400))``; this is its inverse. A score of 0 or 1
    gives minus or plus infinity (no finite difference explains it).

    >>> elo_difference(0.5)
    0.0
    >>> round(elo_difference(0.25), 1)
    -190.8
    """
    if not (isinstance(score, (int, float)) and 0.0 <= score <= 1.0):
        raise ValueError(f"a score must be in [0, 1], got {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def clip_score(score: float, games: int) -> float:
    """``score`` moved into ``[1/(2n), 1 - 1/(2n)]``: as if half a game had gone the other way.

    Elo is infinite at 0 % and 100 %; a finite number with a "≥" or "≤"
    says more than an infinity. With no games the score is returned as is.
    """
    if games <= 0:
        return score
    eps = 0.5 / games
    return min(max(score, eps), 1.0 - eps)


def elo_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Elo interval of a score of ``wins / games``: the Wilson interval mapped to Elo.

    ``wins`` may be fractional (draws count half). The Wilson interval's ends
    are 0 or 1 only at a 0 % or 100 % score; they are clipped with
    :func:`clip_score` so that the interval stays finite. With no games the
    interval is the whole line.

    >>> [round(x) for x in elo_interval(75, 100)]
    [113, 269]
    """
    if games <= 0:
        return (-math.inf, math.inf)
    lo, hi = wilson_interval(wins, games, z)
    return (elo_difference(clip_score(lo, games)), elo_difference(clip_score(hi, games)))


def fisher_exact(
    a_wins: int, a_games: int, b_wins: int, b_games: int, *, alternative: str = "two-sided"
) -> float:
    """Fisher's exact test: do two independent win counts differ (e.g. two variants against one opponent)?

    :func:`binomial_test` asks whether one bot beats another in their own
    games. Here A and B each played their own games against a third party,
    and the question is whether A's win rate differs from B's. Given the
    margins (``a_games``, ``b_games`` and the total of wins) A's win count is
    hypergeometric under the null hypothesis of one common win rate.
    ``alternative``:

    - ``"two-sided"``: the probability of every table no more likely than the
      one observed (as SciPy's ``fisher_exact`` and R's ``fisher.test``, with
      the same relative tolerance for ties);
    - ``"greater"``: A's win rate is higher: the probability of ``a_wins`` or more;
    - ``"less"``: the probability of ``a_wins`` or fewer.

    Computed exactly in integer arithmetic and rounded once. No games on
    either side: 1.0.

    >>> round(fisher_exact(14, 20, 11, 20), 4)  # the MCTS ablation: full engine vs no priors
    0.5145
    >>> round(fisher_exact(14, 20, 11, 20, alternative="greater"), 3)
    0.257
    """
    values = (a_wins, a_games, b_wins, b_games)
    if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise ValueError(f"win and game counts must be whole numbers, got {values!r}")
    if not (0 <= a_wins <= a_games and 0 <= b_wins <= b_games):
        raise ValueError(f"need 0 <= wins <= games on both sides, got {a_wins}/{a_games} and {b_wins}/{b_games}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")
    if a_games == 0 or b_games == 0:
        return 1.0
    wins = a_wins + b_wins
    lo, hi = max(0, wins - b_games), min(wins, a_games)
    # Weight of "A won x": C(a_games, x) * C(b_games, wins - x); the common denominator C(n, wins) cancels.
    weights = {x: math.comb(a_games, x) * math.comb(b_games, wins - x) for x in range(lo, hi + 1)}
    total = math.comb(a_games + b_games, wins)
    if alternative == "greater":
        tail = sum(w for x, w in weights.items() if x >= a_wins)
    elif alternative == "less":
        tail = sum(w for x, w in weights.items() if x <= a_wins)
    else:
        limit = Fraction(weights[a_wins]) * Fraction(1 + _REL_TOL)
        tail = sum(w for w in weights.values() if w <= limit)
    return float(Fraction(min(tail, total), total))
