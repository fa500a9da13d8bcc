"""How often does our dead-stone scoring agree with GNU Go's ``final_score``?

Games between two of the book's random bots (``make_agent("random")``) are
played to the end (two passes) under Chinese rules (area scoring, positional
superko, no suicide) and komi 7.5. Each finished game is counted three ways:

- ``ours``: ``state.score(dead=dead_stones(state, playouts=...))``, the G8
  estimate that our GTP engine's ``final_score`` uses;
- ``plain``: ``state.score()``, every stone alive (Tromp-Taylor), for reference;
- GNU Go: the moves are replayed into ``gnugo --mode gtp --chinese-rules``
  with ``play``, then ``final_score``.

A result agrees on the *winner* when both name the same side (or both a draw),
and *exactly* when the result strings are equal (``"B+12.5"``).

>>> r = score_agreement(3, size=9, seed=0, playouts=100)  # doctest: +SKIP
>>> r["games"], r["same_winner"] <= 3
(3, True)
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fuseki.agents import make_agent
from fuseki.bench.scoring_set import ScoringGame
from fuseki.go import kernels as K
from fuseki.go.ownership import dead_stones
from fuseki.go.state import Color, GameState, Move
from fuseki.engines.gtp_client import GtpClient, GtpError
from fuseki.search.go.final_status import heavy_count, heavy_dead_stones, margin_result
from fuseki.util.errors import InputError
from fuseki.util.stats import wilson_interval

__all__ = ["ESTIMATORS", "GNUGO", "play_random_game", "score_agreement", "set_agreement"]

#: The referee command (the Debian package's binary).
GNUGO = "/usr/games/gnugo --mode gtp --chinese-rules"


def play_random_game(size: int, seed: int, *, komi: float = 7.5, max_moves: int | None = None) -> GameState:
    """One game between two of the book's random bots, to two passes (or ``max_moves``)."""
    black = make_agent("random", seed=2 * seed)
    white = make_agent("random", seed=2 * seed + 1)
    state = GameState.new(size, rules="chinese", komi=komi)
    cap = max_moves if max_moves is not None else 6 * size * size
    while not state.is_over() and state.move_number < cap:
        bot = black if state.next_player is Color.BLACK else white
        state = state.play(bot.select_move(state))
    return state


def _winner(result: str) -> str:
    result = result.strip().upper()
    return result[0] if result[:1] in ("B", "W") else "0"


def _norm(result: str) -> str:
    """``"B+12.0"`` -> ``"B+12"``: GNU Go and we may print numbers differently."""
    result = result.strip().upper()
    if result[:2] in ("B+", "W+"):
        try:
            return f"{result[:2]}{float(result[2:]):g}"
        except ValueError:
            return result
    return "0" if result in ("0", "DRAW") else result


def score_agreement(
    games: int = 200,
    size: int = 9,
    seed: int = 0,
    playouts: int = 200,
    *,
    komi: float = 7.5,
    stop_at: int | None = None,
    gnugo: str = GNUGO,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Play ``games`` random-bot games and compare our counts with GNU Go's.

    Returns counts: ``games`` (scored by both), ``same_winner``,
    ``same_score`` (exact result), the same two for ``plain`` (no dead
    stones removed), ``errors`` (games GNU Go refused), ``seconds`` and up to
    20 ``disagreements`` as ``{"game", "ours", "plain", "gnugo", "dead"}``.
    Game ``i`` uses seed ``seed + i``, so a run is reproducible.

    ``stop_at``: end each game after that many moves with two passes, leaving
    unsettled groups and dead stones on the board (the harder test: random
    bots that play to the end leave only single-point eyes, so every stone
    is alive and any count agrees).
    """
    out: dict[str, Any] = {
        "games": 0,
        "size": size,
        "komi": komi,
        "playouts": playouts,
        "stop_at": stop_at,
        "same_winner": 0,
        "same_score": 0,
        "plain_same_winner": 0,
        "plain_same_score": 0,
        "errors": 0,
        "disagreements": [],
    }
    t0 = time.perf_counter()
    with GtpClient(shlex.split(gnugo), timeout=timeout) as gtp:
        for i in range(games):
            state = play_random_game(size, seed + i, komi=komi, max_moves=stop_at)
            while not state.is_over():
                state = state.play(Move.pass_turn())
            try:
                gtp.boardsize(size)
                gtp.clear_board()
                gtp.komi(komi)
                for is_black, move in zip(_colors_of(state), state.moves()):
                    gtp.play("black" if is_black else "white", move.gtp(size))
                theirs = _norm(gtp.final_score())
            except GtpError:
                out["errors"] += 1
                continue
            dead = dead_stones(state, playouts=playouts, seed=seed + i)
            ours = _norm(state.score(dead=dead).result)
            plain = _norm(state.score().result)
            out["games"] += 1
            out["same_winner"] += _winner(ours) == _winner(theirs)
            out["same_score"] += ours == theirs
            out["plain_same_winner"] += _winner(plain) == _winner(theirs)
            out["plain_same_score"] += plain == theirs
            if ours != theirs and len(out["disagreements"]) < 20:
                out["disagreements"].append(
                    {"game": seed + i, "ours": ours, "plain": plain, "gnugo": theirs, "dead": len(dead)}
                )
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def _colors_of(state: GameState) -> list[bool]:
    """True for Black, per move from the root (moves alternate; handicap games start with White)."""
    first_black = state.root().next_player is Color.BLACK
    return [(k % 2 == 0) == first_black for k in range(state.move_number)]


# ---- the test set of games stopped before settled (fuseki.bench.scoring_set) ----


def _before(state: GameState) -> tuple[str, list]:
    """Today's estimate (until issue 21): 200 book playouts, Benson, the seki heuristic, ``GameState.score``."""
    dead = dead_stones(state, playouts=200, seed=0)
    return state.score(dead=dead).result, dead


def _plain(state: GameState) -> tuple[str, list]:
    """Every stone alive (Tromp-Taylor), for reference."""
    return state.score().result, []


def _after(state: GameState) -> tuple[str, list]:
    """The estimate of issue 21 (GTP ``final_score``): heavy playouts, Benson, the strict seki rule."""
    dead = heavy_dead_stones(state, seed=0)
    return state.score(dead=dead).result, dead


def _count(state: GameState) -> tuple[str, list]:
    """The after estimate's dead stones, and each open point for the side owning it in the heavy playouts.

    ``heavy_count``: what GTP ``final_score`` answers with ``--dead-stones playouts``.
    """
    margin, dead = heavy_count(state, seed=0)
    return margin_result(margin), dead


#: name -> function(final state) -> (result string, dead points).
ESTIMATORS: dict[str, Callable[[GameState], tuple[str, list]]] = {
    "plain": _plain,
    "before": _before,
    "after": _after,
    "count": _count,
}


def _borders(game: ScoringGame, state: GameState) -> str:
    """``"closed"`` when, GNU Go's dead stones removed, every empty point is one side's area, else ``"open"``.

    On a position with open borders GNU Go's ``final_score`` plays the game
    on (``genmove`` for both sides until two passes) before it counts, so
    its result depends on that continuation, not only on which stones are dead.
    """
    regions = np.asarray(state.score(dead=game.dead_points()).regions)
    area = (K.R_BLACK_STONE, K.R_WHITE_STONE, K.R_BLACK_AREA, K.R_WHITE_AREA)
    return "closed" if np.isin(regions, area).all() else "open"


def set_agreement(games: Sequence[ScoringGame], names: Sequence[str], groups: Sequence[str] | None = None) -> dict[str, Any]:
    """Each estimator's agreement with GNU Go on a scoring set: results and dead strings.

    Per estimator: ``same_winner`` and ``same_score`` (exact result) with
    their 95 % Wilson intervals, ``dead_games`` (games whose dead stones are
    exactly GNU Go's ``final_status_list dead``), ``ms_per_game`` (the
    estimate alone), the first 10 disagreements, and ``parts``: the same
    counts for the games whose borders GNU Go's dead stones leave closed or
    open (:func:`_borders`), for each way the game ended, and for each of
    ``groups`` (one name per game, e.g. the set it comes from); ``two_passes``
    repeats the games that ended by two passes in a row (issue 21's
    definition) with their Wilson intervals, the headline.
    """
    if groups is not None and len(groups) != len(games):
        raise InputError(f"{len(groups)} group names for {len(games)} games")
    unknown = [n for n in names if n not in ESTIMATORS]
    if unknown:
        raise InputError(f"unknown estimator(s) {', '.join(unknown)}; choose from {', '.join(ESTIMATORS)}")
    states = [g.state() for g in games]
    out: dict[str, Any] = {
        "games": len(games),
        "size": sorted({g.size for g in games}),
        "reference": "GNU Go 3.8 final_score / final_status_list dead (default level, Chinese rules)",
        "gnugo_dead_stones": sum(len(g.gnugo_dead) for g in games),
        "games_with_dead": sum(1 for g in games if g.gnugo_dead),
        "estimators": {},
    }
    borders = [_borders(g, state) for g, state in zip(games, states)]
    out["games_by_borders"] = {k: borders.count(k) for k in ("closed", "open")}
    out["games_by_ending"] = {k: sum(g.ending == k for g in games) for k in sorted({g.ending for g in games})}
    for name in names:
        fn = ESTIMATORS[name]
        winner = exact = dead_ok = 0
        seconds = 0.0
        bad: list[dict[str, Any]] = []
        parts: dict[str, dict[str, int]] = {}
        for i, (g, state, border) in enumerate(zip(games, states, borders)):
            t0 = time.perf_counter()
            result, dead = fn(state)
            seconds += time.perf_counter() - t0
            ours, theirs = _norm(result), _norm(g.gnugo_score)
            winner += _winner(ours) == _winner(theirs)
            exact += ours == theirs
            keys = [f"borders {border}", f"ending {g.ending}"] + ([f"set {groups[i]}"] if groups is not None else [])
            for key in keys:
                part = parts.setdefault(key, {"games": 0, "same_winner": 0, "same_score": 0})
                part["games"] += 1
                part["same_winner"] += _winner(ours) == _winner(theirs)
                part["same_score"] += ours == theirs
            same_dead = sorted(dead) == sorted(g.dead_points())
            dead_ok += same_dead
            if (ours != theirs or not same_dead) and len(bad) < 10:
                bad.append({"game": g.game, "ours": ours, "gnugo": theirs, "dead": len(dead), "gnugo_dead": len(g.gnugo_dead)})
        n = max(len(games), 1)
        two = parts.get("ending two-passes", {"games": 0, "same_winner": 0, "same_score": 0})
        out["estimators"][name] = {
            # Issue 21's definition of "stopped by two passes before settled": the headline.
            "two_passes": {
                **two,
                "same_winner_ci95": [round(100 * x, 1) for x in wilson_interval(two["same_winner"], two["games"])],
                "same_score_ci95": [round(100 * x, 1) for x in wilson_interval(two["same_score"], two["games"])],
            },
            "same_winner": winner,
            "same_winner_pct": round(100 * winner / n, 1),
            "same_winner_ci95": [round(100 * x, 1) for x in wilson_interval(winner, len(games))],
            "same_score": exact,
            "same_score_pct": round(100 * exact / n, 1),
            "same_score_ci95": [round(100 * x, 1) for x in wilson_interval(exact, len(games))],
            "dead_games": dead_ok,
            "dead_games_pct": round(100 * dead_ok / n, 1),
            "ms_per_game": round(1000 * seconds / n, 1),
            "parts": dict(sorted(parts.items())),
            "disagreements": bad,
        }
    return out
