"""Dead stones, territory and seki at the end of a game (spec row G8).

Two estimates work together:

- :func:`benson_alive`: Benson's algorithm. Exact, but it proves life only
  for strings that the opponent can never capture, even if their owner passes
  every move (two *vital* regions each). Most living groups in real games are
  not unconditionally alive, so this is a floor, never the whole answer.
- :func:`ownership`: many random playouts from the position with the book's
  policy (never fill an own eye, pass only when nothing else is left), all in
  one Numba kernel. Each point's final area owner is averaged: +1 is Black's
  in every playout, -1 White's.

:func:`dead_stones` combines them. **Rule:** a string is dead when the average
ownership over its points has the sign of the opponent (strictly: below 0 for
a black string, above 0 for a white one), unless Benson proves it alive or the
seki heuristic below marks it as seki. Whole strings are dead or alive, never
part of one.

**Seki heuristic** (:func:`final_status`): the book's playout policy fills
shared liberties, so playouts alone destroy every seki. Instead an empty point
that touches both colours is a *seki point* when a stone of either colour
there would be illegal or in atari without capturing anything (mutual
self-atari). A string that is not Benson-alive and touches a seki point whose
neighbours include both colours is in seki; it is neither dead nor counted as
territory owner, and the seki points stay dame in the count.

>>> from fuseki.go.state import GameState
>>> s = GameState.from_ascii('''
...     . X O . .
...     X X O . .
...     O O O . .
...     . . . . .
...     . . . . .
... ''')
>>> dead_stones(s, playouts=50)
[Point(row=0, col=1), Point(row=1, col=0), Point(row=1, col=1)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from fuseki.go import kernels as K
from fuseki.go.coords import Point

if TYPE_CHECKING:
    from fuseki.go.state import GameState

__all__ = ["benson_alive", "dead_stones", "final_status", "ownership", "ownership_and_winrate"]

_BLACK, _WHITE = K.BLACK, K.WHITE
_R_BS, _R_WS, _R_BA, _R_WA = K.R_BLACK_STONE, K.R_WHITE_STONE, K.R_BLACK_AREA, K.R_WHITE_AREA
_M_PASSES = K.M_PASSES
_NO_EYES = K.POLICY_NO_EYES
_playout = K.playout
_region_map = K.region_map


@njit(cache=True)
def _ownership_kernel(buf: np.ndarray, playouts: int, max_moves: int, seed: int, komi: float) -> tuple:
    """Play ``playouts`` games from a copy of ``buf`` each; count owners and wins.

    Returns ``(own, dame, black_wins2)``: ``own[p]`` is (playouts Black owned p)
    minus (playouts White owned p), ``dame[p]`` how often p was neutral, and
    ``black_wins2`` twice Black's wins plus draws (area count minus ``komi``).
    ``seed < 0`` leaves the kernels' random generator as it is.
    """
    n = buf[0]
    area = n * n
    if seed >= 0:
        np.random.seed(seed)
    own = np.zeros(area, dtype=np.int32)
    dame = np.zeros(area, dtype=np.int32)
    nodead = np.zeros(area, dtype=np.uint8)
    wins2 = 0
    for _ in range(playouts):
        b = buf.copy()
        b[_M_PASSES] = 0  # a finished game is still played out (both sides pass at once if settled)
        _playout(b, _NO_EYES, max_moves)
        reg = _region_map(b, nodead)
        diff = 0
        for p in range(area):
            r = reg[p]
            if r == _R_BS or r == _R_BA:
                own[p] += 1
                diff += 1
            elif r == _R_WS or r == _R_WA:
                own[p] -= 1
                diff -= 1
            else:
                dame[p] += 1
        if diff > komi:
            wins2 += 2
        elif diff == komi:
            wins2 += 1
    return own, dame, wins2


def _run(state: "GameState", playouts: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, float]:
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, got {playouts}")
    n = state.size
    s = -1 if seed is None else int(seed) & 0x7FFFFFFF
    komi = float(state.rules.komi) + float(state.rules.handicap_bonus.points(state.handicap))
    own, dame, wins2 = _ownership_kernel(state._buf, int(playouts), 4 * n * n + 100, s, komi)
    return own, dame, wins2 / (2.0 * playouts)


def ownership(state: "GameState", *, playouts: int = 200, seed: int | None = 0) -> np.ndarray:
    """Average final owner of each point over random playouts: ``(size, size)`` floats in [-1, 1].

    +1 means Black owned the point (a stone or area touching only Black) at
    the end of every playout, -1 White; dame counts 0. The playouts use the
    book's no-own-eye policy, simple ko, and run in one Numba call. ``seed``
    reseeds the kernels' shared generator (``None`` leaves it running), so a
    seed gives the same answer every time.
    """
    own, _, _ = _run(state, playouts, seed)
    return (own / float(playouts)).reshape(state.size, state.size)


def ownership_and_winrate(
    state: "GameState", *, playouts: int = 200, seed: int | None = 0
) -> tuple[np.ndarray, float]:
    """:func:`ownership` plus the fraction of playouts Black wins (draws count half).

    A playout is won on the area count of its final board against komi (and
    the handicap bonus), whatever the rules' scoring: under territory scoring
    it is an estimate.
    """
    own, _, black = _run(state, playouts, seed)
    return (own / float(playouts)).reshape(state.size, state.size), black


# ---- strings and Benson ----------------------------------------------------


def _labels(board: np.ndarray) -> tuple[np.ndarray, int]:
    """Connected components of equal values: label per point and their number."""
    n = board.shape[0]
    lab = np.full((n, n), -1, dtype=np.int32)
    k = 0
    for r0 in range(n):
        for c0 in range(n):
            if lab[r0, c0] >= 0:
                continue
            v = board[r0, c0]
            lab[r0, c0] = k
            stack = [(r0, c0)]
            while stack:
                r, c = stack.pop()
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < n and 0 <= cc < n and lab[rr, cc] < 0 and board[rr, cc] == v:
                        lab[rr, cc] = k
                        stack.append((rr, cc))
            k += 1
    return lab, k


def _neighbors(r: int, c: int, n: int):
    if r > 0:
        yield r - 1, c
    if r < n - 1:
        yield r + 1, c
    if c > 0:
        yield r, c - 1
    if c < n - 1:
        yield r, c + 1


def _benson_color(stones: np.ndarray, color: int) -> np.ndarray:
    """Mask of ``color``'s unconditionally alive stones."""
    n = stones.shape[0]
    own = stones == color
    chains, _ = _labels(np.where(own, 1, 0))
    # Regions: components of the points that are not ``color`` (label them apart from chains).
    regions, _ = _labels(np.where(own, -1, 0))
    chain_ids = sorted({int(chains[r, c]) for r in range(n) for c in range(n) if own[r, c]})
    region_ids = sorted({int(regions[r, c]) for r in range(n) for c in range(n) if not own[r, c]})
    # For each region: the chains that border it, and the chains every empty point of it touches.
    border: dict[int, set[int]] = {g: set() for g in region_ids}
    empties: dict[int, int] = {g: 0 for g in region_ids}
    vital_to: dict[int, set[int] | None] = {g: None for g in region_ids}
    for r in range(n):
        for c in range(n):
            if own[r, c]:
                continue
            g = int(regions[r, c])
            adj = {int(chains[rr, cc]) for rr, cc in _neighbors(r, c, n) if own[rr, cc]}
            border[g] |= adj
            if stones[r, c] == K.EMPTY:
                empties[g] += 1
                seen = vital_to[g]
                vital_to[g] = adj if seen is None else (seen & adj)
    alive = set(chain_ids)
    healthy = {g for g in region_ids if empties[g] > 0}
    while True:
        vital_count = {x: 0 for x in alive}
        for g in healthy:
            for x in vital_to[g] or ():
                if x in vital_count:
                    vital_count[x] += 1
        drop = {x for x, k in vital_count.items() if k < 2}
        alive -= drop
        unhealthy = {g for g in healthy if not border[g] <= alive}
        healthy -= unhealthy
        if not drop and not unhealthy:
            break
    mask = np.zeros((n, n), dtype=bool)
    for r in range(n):
        for c in range(n):
            if own[r, c] and int(chains[r, c]) in alive:
                mask[r, c] = True
    return mask


def benson_alive(state: "GameState") -> np.ndarray:
    """Benson's unconditionally alive strings of both colours: a ``(size, size)`` bool mask.

    A *region* of a colour is a maximal connected set of points that are not
    that colour's stones; it is *vital* to a chain when it has at least one
    empty point and every empty point in it is a liberty of the chain. Chains
    with fewer than two vital regions are removed, then regions bordered by a
    removed chain, until nothing changes. The chains left can never be
    captured, even if their owner always passes.
    """
    stones = np.asarray(state.stones())
    return _benson_color(stones, K.BLACK) | _benson_color(stones, K.WHITE)


# ---- seki and final status ---------------------------------------------------


def _seki_mask(stones: np.ndarray, protected: np.ndarray, strict: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Strings in seki (mask) and the seki points (mask), by the mutual self-atari rule.

    ``strict`` (the heavy-playout estimate of :mod:`fuseki.search.go.final_status`)
    also asks that every liberty of a string in seki be a seki point or lie in
    an empty region that only its own colour borders (its eye space), and that
    every string at a seki point be such a string, repeated until nothing
    changes. Without it a string with one mutual self-atari liberty and an
    open one the opponent can approach (it is simply dead) counted as seki:
    the most common error of the loose rule on the scoring test set.
    """
    n = stones.shape[0]
    chains, k = _labels(stones)
    libs: dict[int, set[tuple[int, int]]] = {}
    for r in range(n):
        for c in range(n):
            if stones[r, c] == K.EMPTY:
                for rr, cc in _neighbors(r, c, n):
                    if stones[rr, cc] != K.EMPTY:
                        libs.setdefault(int(chains[rr, cc]), set()).add((r, c))

    def bad_for(r: int, c: int, color: int) -> bool:
        """True when ``color`` at (r, c) is suicide or self-atari without a capture."""
        new_libs: set[tuple[int, int]] = set()
        for rr, cc in _neighbors(r, c, n):
            v = stones[rr, cc]
            if v == K.EMPTY:
                new_libs.add((rr, cc))
            elif v == color:
                new_libs |= libs.get(int(chains[rr, cc]), set())
            elif len(libs.get(int(chains[rr, cc]), ())) == 1:
                return False  # captures
        new_libs.discard((r, c))
        return len(new_libs) <= 1

    seki_pts = np.zeros((n, n), dtype=bool)
    seki_str = np.zeros((n, n), dtype=bool)
    seki_chains: set[int] = set()
    for r in range(n):
        for c in range(n):
            if stones[r, c] != K.EMPTY:
                continue
            adj = [(rr, cc) for rr, cc in _neighbors(r, c, n) if stones[rr, cc] != K.EMPTY]
            cols = {int(stones[p]) for p in adj}
            if cols != {K.BLACK, K.WHITE}:
                continue
            if not (bad_for(r, c, K.BLACK) and bad_for(r, c, K.WHITE)):
                continue
            touching = {int(chains[p]) for p in adj if not protected[p]}
            if not touching:
                continue
            seki_pts[r, c] = True
            seki_chains |= touching
    if strict and seki_chains:
        seki_chains = _strict_seki(stones, chains, libs, seki_pts, protected)
    if seki_chains:
        seki_str = np.isin(chains, list(seki_chains)) & (stones != K.EMPTY)
    return seki_str, seki_pts


def _strict_seki(
    stones: np.ndarray, chains: np.ndarray, libs: dict[int, set[tuple[int, int]]], seki_pts: np.ndarray, protected: np.ndarray
) -> set[int]:
    """The chains of the strict seki rule (see :func:`_seki_mask`); clears the seki points it drops."""
    n = stones.shape[0]
    empty_regions, _ = _labels(np.where(stones == K.EMPTY, 1, 0))
    region_colors: dict[int, set[int]] = {}
    for r in range(n):
        for c in range(n):
            if stones[r, c] == K.EMPTY:
                cols = region_colors.setdefault(int(empty_regions[r, c]), set())
                cols.update(int(stones[p]) for p in _neighbors(r, c, n) if stones[p] != K.EMPTY)
    color_of = {int(chains[r, c]): int(stones[r, c]) for r in range(n) for c in range(n) if stones[r, c] != K.EMPTY}
    while True:
        ok: set[int] = set()
        for ch, ls in libs.items():
            color = color_of[ch]
            if not any(seki_pts[p] for p in ls):
                continue
            if all(seki_pts[p] or region_colors[int(empty_regions[p])] == {color} for p in ls):
                ok.add(ch)
        changed = False
        for r, c in zip(*np.nonzero(seki_pts)):
            adj = {int(chains[p]) for p in _neighbors(int(r), int(c), n) if stones[p] != K.EMPTY and not protected[p]}
            if not adj <= ok or len({color_of[a] for a in adj}) < 2:
                seki_pts[r, c] = False
                changed = True
        if not changed:
            return {ch for ch in ok if any(seki_pts[p] for p in libs[ch])}


def _points(mask: np.ndarray) -> list[Point]:
    return [Point(int(r), int(c)) for r, c in zip(*np.nonzero(mask))]


def _status_masks(state: "GameState", playouts: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    stones = np.asarray(state.stones())
    alive_b = benson_alive(state)
    seki, _ = _seki_mask(stones, alive_b)
    own = ownership(state, playouts=playouts, seed=seed)
    chains, k = _labels(stones)
    dead = np.zeros(stones.shape, dtype=bool)
    if k:
        sums = np.bincount(chains.ravel(), weights=own.ravel(), minlength=k)
        cnts = np.bincount(chains.ravel(), minlength=k)
        mean = sums / np.maximum(cnts, 1)
        m = mean[chains]
        dead = ((stones == K.BLACK) & (m < 0)) | ((stones == K.WHITE) & (m > 0))
    dead &= ~alive_b & ~seki
    alive = (stones != K.EMPTY) & ~dead & ~seki
    return alive, dead, seki


def dead_stones(state: "GameState", *, playouts: int = 200, seed: int | None = 0) -> list[Point]:
    """The stones of the strings judged dead, sorted by (row, col).

    See the module docstring for the rule. Pass the result to
    ``state.score(dead=...)``.
    """
    return _points(_status_masks(state, playouts, seed)[1])


def final_status(state: "GameState", *, playouts: int = 200, seed: int | None = 0) -> dict[str, list[Point]]:
    """Every stone classified as ``"alive"``, ``"dead"`` or ``"seki"`` (GTP ``final_status_list``)."""
    alive, dead, seki = _status_masks(state, playouts, seed)
    return {"alive": _points(alive), "dead": _points(dead), "seki": _points(seki)}
