"""Dead stones from heavy playouts: the end-of-game count that agrees with GNU Go (issue 21).

:mod:`fuseki.go.ownership` judges a string by the book's random playouts.
On games stopped before the board is settled that misjudges exactly the
strings a referee reads: a group with one eye and room for a second looks
dead when a random defender fails to answer, a big weak group alive when a
random attacker never fills its last liberties. On the scoring test set
(docs/scoring.md) that gave the same exact result as GNU Go in 83 % of the
9×9 games.

Here the playouts are the MCTS engine's heavy (Michi-style) ones of
:func:`fuseki.search.go.playouts.heavy_playout`: capture a string in atari,
save one's own, answer with 3×3 patterns, rarely play self-atari. Those
answer the local threats that decide life and death, so the average final
owner of each point is a much better judge. Benson's unconditional life and
the strict seki rule of :mod:`fuseki.go.ownership` are kept: they are exact
where they apply, except that the playouts overrule a "seki" they resolve
(``SEKI_OVERRULE``).

GTP ``final_score`` counts with :func:`heavy_count`: where the players
passed with a border still open, GNU Go's ``final_score`` plays the game on
before it counts, so open areas go to a side; counting them as dame (as
``GameState.score`` does by regions) named the wrong winner in 7 of the
117 19×19 games of the scoring set, the count in none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from fuseki.go import kernels as K
from fuseki.go.coords import Point
from fuseki.go.ownership import _labels, _seki_mask, benson_alive
from fuseki.search.go.gomcts import MCTSConfig
from fuseki.search.go.playouts import heavy_playout
from fuseki.search.go.reader import READER_DEPTH, reader_stack

if TYPE_CHECKING:
    from fuseki.go.state import GameState

__all__ = [
    "ALIVE_MARGIN",
    "HEAVY_PLAYOUTS",
    "OPEN_THRESHOLD",
    "SEKI_OVERRULE",
    "heavy_count",
    "heavy_dead_stones",
    "heavy_final_status",
    "heavy_ownership",
]

#: Playouts per estimate: enough that the answer no longer changes with the seed on the test set.
HEAVY_PLAYOUTS = 1000

#: A string the strict seki rule finds in seki is judged by its ownership after all when the heavy
#: playouts give it to the opponent at least this strongly (in at least 80 % of them): the static rule
#: cannot see a throw-in that kills (a three-point eye with the opponent's stone in the middle: both
#: liberties are mutual self-atari points, yet the surrounding group is dead), the playouts play it.
#: In a real seki neither side gains by playing first, so the playouts split (the strings of the test
#: seki and GNU Go's seki on the scoring sets: mean ownership 0.39-0.57; the false seki found there: 0.71, 0.99).
SEKI_OVERRULE = 0.6

#: A string is alive only when its owner keeps it in the heavy playouts by at least this mean ownership
#: (in at least 65 % of them); below, even when the owner keeps it more often than not, it is dead. The
#: heavy playouts let a weak group live too often (a random attacker fails to fill its last liberties or
#: to play the vital point), the more so on a big board. First fitted at 0.15 on 272 strings of the
#: early 9x9 and 19x19 scoring sets (logistic fit, GNU Go calls half of them dead there); the 150
#: two-pass 19x19 games of issue 21 then showed GNU Go calling 53 of the 77 strings between 0.15 and
#: 0.3 dead, and 17 of 80 between 0.3 and 0.5. At 0.3 the count gives GNU Go's exact result in 181 of
#: the 201 two-pass 19x19 games (171 at 0.15; 0.35 and 0.4 also 181), the same on each half of them
#: (even and odd game numbers), and no 9x9 game changes (200 of 203 either way). Checked afterwards on
#: a set made for it (docs/scoring.md).
ALIVE_MARGIN = 0.3

#: An open point (empty, touching both colours after the dead stones are removed) counts for the side
#: whose mean heavy-playout ownership of it is at least this; nearer 0 it stays dame.
OPEN_THRESHOLD = 0.2

_R_BS, _R_WS, _R_BA, _R_WA = K.R_BLACK_STONE, K.R_WHITE_STONE, K.R_BLACK_AREA, K.R_WHITE_AREA


@njit(cache=True)
def _heavy_kernel(
    buf: np.ndarray,
    playouts: int,
    max_moves: int,
    seed: int,
    p_capture: float,
    p_pat3: float,
    p_sa: float,
    p_sa_random: float,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    ladder_nodes: int,
) -> np.ndarray:
    """``own[p]``: playouts Black owned p minus playouts White owned p, over ``playouts`` heavy playouts."""
    n = buf[K.M_N]
    area = n * n
    np_ = buf[K.M_NP]
    if seed >= 0:
        np.random.seed(seed)
    own = np.zeros(area, dtype=np.int32)
    nodead = np.zeros(area, dtype=np.uint8)
    amaf = np.zeros(np_, dtype=np.int32)
    cand = np.zeros(8 * np_, dtype=np.int32)
    kinds = np.zeros(8, dtype=np.int64)
    for _ in range(playouts):
        b = buf.copy()
        b[K.M_PASSES] = 0  # a finished game is played on: its dead stones get captured
        heavy_playout(b, max_moves, amaf, -1, p_capture, p_pat3, p_sa, p_sa_random, cand, 0, kinds, cols, rmoves, rwork, ladder_nodes)
        reg = K.region_map(b, nodead)
        for p in range(area):
            r = reg[p]
            if r == _R_BS or r == _R_BA:
                own[p] += 1
            elif r == _R_WS or r == _R_WA:
                own[p] -= 1
    return own


def heavy_ownership(state: "GameState", *, playouts: int = HEAVY_PLAYOUTS, seed: int | None = 0) -> np.ndarray:
    """Average final owner of each point over heavy playouts: ``(size, size)`` in [-1, 1] (+1 Black).

    The move probabilities and the ladder reads are the MCTS engine's defaults (capture 0.9,
    patterns 0.95, self-atari rejected 0.9 / 0.5 for random moves; a ladder read in a playout
    visits at most ``playout_ladder_nodes`` positions).
    """
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, got {playouts}")
    n = state.size
    s = -1 if seed is None else int(seed) & 0x7FFFFFFF
    config = MCTSConfig()
    cols, rmoves, rwork = reader_stack(n, depth=min(READER_DEPTH, 4 * n))
    ladder_nodes = config.playout_ladder_nodes if config.ladders else 0
    own = _heavy_kernel(state._buf, int(playouts), 4 * n * n + 100, s, 0.9, 0.95, 0.9, 0.5, cols, rmoves, rwork, ladder_nodes)
    return (own / float(playouts)).reshape(n, n)


def _masks(state: "GameState", playouts: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    alive, dead, seki, _, _ = _estimate(state, playouts, seed)
    return alive, dead, seki


def _estimate(state: "GameState", playouts: int, seed: int | None) -> tuple[np.ndarray, ...]:
    """``(alive, dead, seki, seki_points, ownership)`` masks and map of a position."""
    stones = np.asarray(state.stones())
    alive_b = benson_alive(state)
    seki, seki_pts = _seki_mask(stones, alive_b, strict=True)
    own = heavy_ownership(state, playouts=playouts, seed=seed)
    chains, k = _labels(stones)
    dead = np.zeros(stones.shape, dtype=bool)
    if k:
        sums = np.bincount(chains.ravel(), weights=own.ravel(), minlength=k)
        cnts = np.bincount(chains.ravel(), minlength=k)
        m = (sums / np.maximum(cnts, 1))[chains]
        dead = _dead_by_ownership(stones, m)
        seki, seki_pts = _overrule_seki(stones, chains, m, seki, seki_pts)
    dead &= ~alive_b & ~seki
    if dead.any():
        dead &= ~_in_own_area(state, stones, chains, dead)
    alive = (stones != K.EMPTY) & ~dead & ~seki
    return alive, dead, seki, seki_pts, own


def _adjacent(mask: np.ndarray) -> np.ndarray:
    """The points next to a point of ``mask`` (up, down, left, right)."""
    out = np.zeros_like(mask)
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _dead_by_ownership(stones: np.ndarray, mean_own: np.ndarray) -> np.ndarray:
    """The stones whose string's mean ownership (``mean_own``, +1 Black) is under ``ALIVE_MARGIN`` towards their owner."""
    return ((stones == K.BLACK) & (mean_own < ALIVE_MARGIN)) | ((stones == K.WHITE) & (mean_own > -ALIVE_MARGIN))


def _in_own_area(state: "GameState", stones: np.ndarray, chains: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """The dead strings that lie in their own colour's area once every dead string is removed.

    A string can only be dead inside the opponent's area. When both sides of
    a capture race are judged dead (each kept by its owner in barely half the
    playouts, under ``ALIVE_MARGIN``), removing them all leaves the loser's
    area around the winner's stones: the winner is alive after all. The count
    is the same either way (its points are its owner's area), the dead list
    (``final_status_list``) is not.
    """
    reg = np.asarray(state.score(dead=dead).regions)
    own = dead & (((stones == K.BLACK) & (reg == _R_BA)) | ((stones == K.WHITE) & (reg == _R_WA)))
    return np.isin(chains, np.unique(chains[own])) & dead


def _overrule_seki(
    stones: np.ndarray, chains: np.ndarray, mean_own: np.ndarray, seki: np.ndarray, seki_pts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The seki strings and points left after the playouts overrule the static rule (``SEKI_OVERRULE``).

    A seki string that the playouts give to the opponent is no longer in seki;
    nor is any seki point next to it, nor a string whose seki rested only on
    such points (its partner in the false seki, judged by ownership like any string).
    """
    lost = seki & (((stones == K.BLACK) & (mean_own <= -SEKI_OVERRULE)) | ((stones == K.WHITE) & (mean_own >= SEKI_OVERRULE)))
    if not lost.any():
        return seki, seki_pts
    pts = seki_pts & ~_adjacent(lost)
    kept = np.unique(chains[seki & _adjacent(pts)])
    return seki & np.isin(chains, kept), pts


def _points(mask: np.ndarray) -> list[Point]:
    return [Point(int(r), int(c)) for r, c in zip(*np.nonzero(mask))]


def heavy_final_status(state: "GameState", *, playouts: int = HEAVY_PLAYOUTS, seed: int | None = 0) -> dict[str, list[Point]]:
    """Every stone as ``"alive"``, ``"dead"`` or ``"seki"`` (GTP ``final_status_list``), by heavy playouts.

    A string is dead when its mean heavy-playout ownership towards its owner
    is below ``ALIVE_MARGIN`` (its owner keeps it in fewer than 65 % of the
    playouts), unless Benson proves it alive, the seki rule finds it in seki,
    or it lies in its own colour's area once the dead strings are removed.
    """
    alive, dead, seki = _masks(state, playouts, seed)
    return {"alive": _points(alive), "dead": _points(dead), "seki": _points(seki)}


def heavy_dead_stones(state: "GameState", *, playouts: int = HEAVY_PLAYOUTS, seed: int | None = 0) -> list[Point]:
    """The dead stones by :func:`heavy_final_status`, sorted; pass them to ``state.score(dead=...)``."""
    return _points(_masks(state, playouts, seed)[1])


def heavy_count(
    state: "GameState", *, playouts: int = HEAVY_PLAYOUTS, seed: int | None = 0, open_threshold: float = OPEN_THRESHOLD
) -> tuple[float, list[Point]]:
    """Black's area minus White's (komi included) and the dead stones: the count GTP ``final_score`` gives.

    The dead stones are removed and the area counted as by
    ``GameState.score``; then each *open* point, an empty point of a region
    that still touches both colours (a border the players left open when
    they passed), counts for the side that owns it in the heavy playouts
    (mean ownership at least ``open_threshold``), as a referee who plays
    the game out would find (GNU Go's ``final_score`` plays the aftermath).
    Seki points stay dame.
    """
    _, dead, _, seki_pts, own = _estimate(state, playouts, seed)
    dead_points = _points(dead)
    score = state.score(dead=dead_points)
    reg = np.asarray(score.regions)
    if not np.isin(reg, (_R_BS, _R_WS)).any():
        return float(score.margin), dead_points  # no living stone: nothing to own (an empty board is a draw before komi)
    # A dame region touches both colours here: one that touches neither would be the whole board.
    openp = ~np.isin(reg, (_R_BS, _R_WS, _R_BA, _R_WA)) & ~seki_pts
    extra = int((openp & (own >= open_threshold)).sum()) - int((openp & (own <= -open_threshold)).sum())
    return float(score.margin + extra), dead_points


def margin_result(margin: float) -> str:
    """``"B+3.5"``, ``"W+0.5"`` or ``"0"``: a margin as GTP and SGF write it."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"
