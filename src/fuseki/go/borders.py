"""The count at the end of a game as a referee makes it: borders closed where they can be, the rest named (issue 22).

``GameState.score`` counts an empty region for a side only when it touches
that side's stones alone (Tromp-Taylor's rule, with the dead stones removed).
That is exact on a finished board, but one unfilled point in a wall — a dame
that touches the opponent's stone — turns the whole territory behind it into
"nobody's", and on a board where nothing is settled (one early pass on an
almost empty 9×9) every point is nobody's and White wins by komi. A human
referee closes the borders instead, and says when a border cannot be closed.

:func:`count` does that. After removing the dead stones, an empty point that
touches both colours is a **dame** (``X . O``) and counts for nobody; it also
closes the border it sits in, so a dame in a wall does not give the
territory behind it away. An empty region (of the points that are not dame)
that touches one colour is that colour's, as in ``GameState.score``. A
region that still touches both colours is split by distance: a point nearer
(through the region) to a Black stone than to a White one is on Black's
side, nearer to White on White's side, equally near both is open space. A
point of one side next to a point of the other side, or next to open space,
is an **open border**: neither player has closed it (``X . . O`` is the
smallest case: each side would gain the point next to it by playing there).
Open points count for nobody; every other point of a side is that side's
territory, under area and territory scoring alike. So one gap costs the
points of the gap, not the territory behind it. A region touching no stone at
all (an empty board) is open.

:func:`uncertain_strings` names the other way a count can be premature: a
string that random playouts neither keep nor capture most of the time (its
mean ownership is weak), that Benson's algorithm does not prove alive and that
is not in seki — an open capture race, a group that can still live or die.

A board is :func:`settled` when it has neither open points nor uncertain
strings. The web's bots pass back only on a settled board, and the web's
scoring phase shows both lists, so the player sees why a count would be
unfair and can play on.

>>> from fuseki.go.state import GameState
>>> from fuseki.go.rules import Rules
>>> s = GameState.from_ascii('''
...     . X . O .
...     . X . O .
...     . X . O .
...     . X . O .
...     . X . O .
... ''', rules=Rules.preset("chinese").replace(komi=0.5))
>>> c = count(s)
>>> int(c.territory_black.sum()), int(c.territory_white.sum()), int(c.dame.sum()), c.result
(5, 5, 5, 'W+0.5')
>>> s2 = GameState.from_ascii('''
...     X . . O .
...     X . . O .
...     X . . O .
...     X . . O .
...     X . . O .
... ''', rules=Rules.preset("chinese").replace(komi=0.5))
>>> len(count(s2).open_points), count(s2).result, settled(s2, [])
(10, 'W+5.5', False)
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from fuseki.go import kernels as K
from fuseki.go.coords import Point, to_gtp
from fuseki.go.ownership import _labels, _seki_mask, benson_alive
from fuseki.go.rules import Scoring

if TYPE_CHECKING:
    from fuseki.go.state import GameState

__all__ = ["Count", "UNCERTAIN", "count", "settled", "uncertain_strings"]

#: A string whose mean playout ownership is weaker than this (in absolute value) is uncertain.
UNCERTAIN = 0.3

_EMPTY, _BLACK, _WHITE = K.EMPTY, K.BLACK, K.WHITE
_INF = 1 << 20


@dataclasses.dataclass(frozen=True)
class Count:
    """The counted board: points for each side (komi and handicap bonus included) and who owns what.

    Every mask is ``(size, size)`` bool over the board, top row first.
    """

    black: float
    white: float
    scoring: Scoring
    territory_black: np.ndarray = dataclasses.field(repr=False, compare=False)
    territory_white: np.ndarray = dataclasses.field(repr=False, compare=False)
    #: Neutral points: equally near both sides (``X . O``).
    dame: np.ndarray = dataclasses.field(repr=False, compare=False)
    #: Points where the border between the two sides is still open; they count for nobody.
    open: np.ndarray = dataclasses.field(repr=False, compare=False)

    @property
    def margin(self) -> float:
        return self.black - self.white

    @property
    def result(self) -> str:
        """``"B+3.5"``, ``"W+0.5"`` or ``"0"``."""
        m = self.margin
        if m == 0:
            return "0"
        return f"{'B' if m > 0 else 'W'}+{abs(m):g}"

    @property
    def open_points(self) -> list[Point]:
        return _points(self.open)


def _points(mask: np.ndarray) -> list[Point]:
    return [Point(int(r), int(c)) for r, c in zip(*np.nonzero(mask))]


def _dead_mask(n: int, dead: Iterable[Point] | np.ndarray | None, stones: np.ndarray) -> np.ndarray:
    mask = np.zeros((n, n), dtype=bool)
    if dead is None:
        return mask
    if isinstance(dead, np.ndarray) and dead.shape == (n, n):
        mask[:] = dead.astype(bool)
    else:
        for r, c in dead:
            mask[r, c] = True
    return mask & (stones != _EMPTY)


def _neighbours(r: int, c: int, n: int) -> Iterable[tuple[int, int]]:
    if r > 0:
        yield r - 1, c
    if r < n - 1:
        yield r + 1, c
    if c > 0:
        yield r, c - 1
    if c < n - 1:
        yield r, c + 1


def _distances(board: np.ndarray, color: int) -> np.ndarray:
    """Steps from the nearest ``color`` stone to each empty point, moving through empty points only."""
    n = board.shape[0]
    dist = np.full((n, n), _INF, dtype=np.int64)
    queue: deque[tuple[int, int]] = deque()
    for r, c in zip(*np.nonzero(board == color)):
        dist[r, c] = 0
        queue.append((int(r), int(c)))
    while queue:
        r, c = queue.popleft()
        d = dist[r, c] + 1
        for rr, cc in _neighbours(r, c, n):
            if board[rr, cc] == _EMPTY and dist[rr, cc] > d:
                dist[rr, cc] = d
                queue.append((rr, cc))
    return dist


def _regions(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Connected components of the ``True`` points: a label per point (-1 elsewhere) and their number."""
    n = mask.shape[0]
    lab = np.full((n, n), -1, dtype=np.int64)
    k = 0
    for r0, c0 in zip(*np.nonzero(mask)):
        if lab[r0, c0] >= 0:
            continue
        lab[r0, c0] = k
        stack = [(int(r0), int(c0))]
        while stack:
            r, c = stack.pop()
            for rr, cc in _neighbours(r, c, n):
                if mask[rr, cc] and lab[rr, cc] < 0:
                    lab[rr, cc] = k
                    stack.append((rr, cc))
        k += 1
    return lab, k


def partition(board: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Black's area, White's area, dame and open points of a board of living stones (0 empty, 1 black, 2 white)."""
    n = board.shape[0]
    empty = board == _EMPTY
    touches = np.zeros((n, n), dtype=np.int8)  # bit 1: next to a Black stone, bit 2: next to a White one
    for r, c in zip(*np.nonzero(empty)):
        for rr, cc in _neighbours(int(r), int(c), n):
            if board[rr, cc] != _EMPTY:
                touches[r, c] |= board[rr, cc]
    dame = empty & (touches == 3)
    rest = empty & ~dame
    area_b = np.zeros((n, n), dtype=bool)
    area_w = np.zeros((n, n), dtype=bool)
    open_ = np.zeros((n, n), dtype=bool)
    lab, k = _regions(rest)
    mixed = np.zeros((n, n), dtype=bool)
    for g in range(k):
        region = lab == g
        seen = int(np.bitwise_or.reduce(touches[region]))
        if seen == _BLACK:
            area_b |= region
        elif seen == _WHITE:
            area_w |= region
        elif seen == 0:  # touches no stone: open space (an empty board)
            open_ |= region
        else:
            mixed |= region
    if mixed.any():
        # Split the regions that touch both colours by distance; a dame is a wall here, not a path.
        walls = np.where(mixed, _EMPTY, np.where(board == _EMPTY, 3, board))
        d_black = _distances(walls, _BLACK)
        d_white = _distances(walls, _WHITE)
        black_side = mixed & (d_black < d_white)
        white_side = mixed & (d_white < d_black)
        far = mixed & (d_black == d_white)  # equally near both and touching neither: open space
        open_ |= far
        for r, c in zip(*np.nonzero(black_side | white_side)):
            other = white_side if black_side[r, c] else black_side
            for rr, cc in _neighbours(int(r), int(c), n):
                if other[rr, cc] or far[rr, cc]:
                    open_[r, c] = True
                    break
        area_b |= black_side & ~open_
        area_w |= white_side & ~open_
    return area_b, area_w, dame, open_


def count(state: "GameState", dead: Iterable[Point] | np.ndarray | None = None) -> Count:
    """Count ``state`` with ``dead`` stones removed, closing the borders as the module docstring says."""
    n = state.size
    stones = np.asarray(state.stones(), dtype=np.int8)
    dead_mask = _dead_mask(n, dead, stones)
    board = np.where(dead_mask, _EMPTY, stones)
    area_b, area_w, dame, open_ = partition(board)
    rules = state.rules
    if rules.scoring is Scoring.AREA:
        black = float((board == _BLACK).sum() + area_b.sum())
        white = float((board == _WHITE).sum() + area_w.sum()) + rules.handicap_bonus.points(state.handicap)
    else:
        from fuseki.go.state import Color

        dead_black = int((dead_mask & (stones == _BLACK)).sum())
        dead_white = int((dead_mask & (stones == _WHITE)).sum())
        black = float(area_b.sum() + state.captures(Color.BLACK) + dead_white)
        white = float(area_w.sum() + state.captures(Color.WHITE) + dead_black)
    return Count(black, white + rules.komi, rules.scoring, area_b, area_w, dame, open_)


def uncertain_strings(
    state: "GameState",
    own: np.ndarray,
    dead: Iterable[Point] | np.ndarray | None = None,
    *,
    threshold: float = UNCERTAIN,
) -> list[Point]:
    """Stones of strings whose fate is open: weak mean ownership, not Benson-alive, not in seki.

    ``own`` is :func:`fuseki.go.ownership.ownership` of ``state`` (+1 Black's).
    Strings in ``dead`` are judged the same way: a string the estimate calls
    dead but that the playouts capture only half the time is uncertain too.
    """
    stones = np.asarray(state.stones(), dtype=np.int8)
    alive = benson_alive(state)
    seki, _ = _seki_mask(stones, alive)
    chains, k = _labels(stones)
    if not k:
        return []
    sums = np.bincount(chains.ravel(), weights=np.asarray(own, dtype=float).ravel(), minlength=k)
    sizes = np.bincount(chains.ravel(), minlength=k)
    mean = (sums / np.maximum(sizes, 1))[chains]
    weak = (stones != _EMPTY) & (np.abs(mean) < threshold) & ~alive & ~seki
    return _points(weak)


def settled(state: "GameState", dead: Iterable[Point] | np.ndarray | None, own: np.ndarray | None = None) -> bool:
    """No open border (after removing ``dead``) and, when ``own`` is given, no uncertain string."""
    if count(state, dead).open.any():
        return False
    return own is None or not uncertain_strings(state, own, dead)


def gtp_list(points: Iterable[Point], size: int) -> list[str]:
    """Points as GTP vertices (for messages and JSON)."""
    return [to_gtp(p, size) for p in points]
