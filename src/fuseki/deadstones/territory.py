"""Zobrist/Bouzy morphological influence and territory (thesis §1.3.2, reference [3]).

The thesis measures two things with "Zobrist's morphological function built
on *dilations* and *erosions*, as described in [3]" (Bouzy, *Mathematical
morphology applied to computer Go*, 2003): the average *power* (influence) in
a region (``pacer_average_power``, ``chain_pacer*_ave_power``) and the
estimated *territory* (``chain_estimated_adj_terr``, ``terr_*``); the two
"differ in the number of dilations and erosions applied". The thesis gives no
numbers, so we take Bouzy's, as GNU Go documents them:

- **territory**: 5 dilations then 21 erosions (Bouzy's "5/21" operator,
  ``21 = 5 * 4 + 1``, which erases the influence that dilations spread into
  open space);
- **power** (influence): 5 dilations then 10 erosions (the operator GNU Go
  uses for *moyo*, a looser area of influence).

The operators, on integer values with Black positive and White negative
(stones start at +128 / -128, empty points at 0), all points updated at once
from the previous values; off-board neighbours do not count:

- *dilation*: a point ``>= 0`` with no neighbour ``< 0`` gains the number of
  its neighbours ``> 0``; symmetrically a point ``<= 0`` with no neighbour
  ``> 0`` loses the number of its neighbours ``< 0``.
- *erosion*: a point ``> 0`` loses the number of its neighbours ``<= 0``, and
  stops at 0; symmetrically for ``< 0``.

A point is Black's territory when its final value is ``> 0`` and White's when
``< 0``.

>>> import numpy as np
>>> board = np.zeros((9, 9), dtype=np.int8); board[4, 4] = 1
>>> bouzy_territory(board, 5, 0)[4].tolist()  # influence spreads five points
[2, 6, 10, 14, 144, 14, 10, 6, 2]
>>> t = bouzy_territory(board)  # 21 erosions take it all back: a lone stone owns nothing
>>> int(t[4, 4]), int((t > 0).sum())
(132, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from fuseki.deadstones.regions import BLACK, BORDER, EMPTY, WHITE, board_array, neighbour, pad_board

if TYPE_CHECKING:
    from fuseki.go.state import GameState

__all__ = [
    "POWER_DILATIONS",
    "POWER_EROSIONS",
    "TERRITORY_DILATIONS",
    "TERRITORY_EROSIONS",
    "bouzy_map",
    "bouzy_territory",
    "label_territory",
]

#: Bouzy's territory operator, "5/21".
TERRITORY_DILATIONS = 5
TERRITORY_EROSIONS = 21
#: The looser influence ("power") operator: GNU Go's moyo, 5/10.
POWER_DILATIONS = 5
POWER_EROSIONS = 10
#: Starting value of a stone (Zobrist's and Bouzy's 128).
STONE_VALUE = 128


@njit(cache=True)
def bouzy_map(bp: np.ndarray, n: int, dilations: int, erosions: int) -> np.ndarray:
    """Dilate ``dilations`` times then erode ``erosions`` times; padded int32 values (0 on the border)."""
    w = n + 2
    npad = w * w
    v = np.zeros(npad, dtype=np.int32)
    for q in range(npad):
        if bp[q] == BLACK:
            v[q] = STONE_VALUE
        elif bp[q] == WHITE:
            v[q] = -STONE_VALUE
    old = v.copy()
    for _ in range(dilations):
        old[:] = v
        for r in range(n):
            base = (r + 1) * w + 1
            for cc in range(n):
                q = base + cc
                x = old[q]
                pos = 0
                neg = 0
                for d in range(4):
                    y = neighbour(q, d, w)
                    if bp[y] == BORDER:
                        continue
                    if old[y] > 0:
                        pos += 1
                    elif old[y] < 0:
                        neg += 1
                if x >= 0 and neg == 0:
                    v[q] = x + pos
                elif x <= 0 and pos == 0:
                    v[q] = x - neg
    for _ in range(erosions):
        old[:] = v
        for r in range(n):
            base = (r + 1) * w + 1
            for cc in range(n):
                q = base + cc
                x = old[q]
                if x == 0:
                    continue
                k = 0
                for d in range(4):
                    y = neighbour(q, d, w)
                    if bp[y] == BORDER:
                        continue
                    if x > 0 and old[y] <= 0:
                        k += 1
                    elif x < 0 and old[y] >= 0:
                        k += 1
                if x > 0:
                    v[q] = x - k if x > k else 0
                else:
                    v[q] = x + k if -x > k else 0
    return v


@njit(cache=True)
def label_territory(bp: np.ndarray, n: int, val: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Territory areas: 4-connected empty points whose ``val`` has the same non-zero sign.

    Returns ``(lab, k, colour, touch)``: ``lab[q]`` the area of q (-1 if q is
    not territory), ``k`` areas, ``colour[a]`` BLACK or WHITE (the owner), and
    ``touch[a, c]`` how many points of area ``a`` touch a stone of colour
    ``c`` (index 1 Black, 2 White), i.e. are liberties of that colour's blocks.
    """
    w = n + 2
    npad = w * w
    lab = np.full(npad, -1, dtype=np.int32)
    stack = np.empty(npad, dtype=np.int32)
    colour = np.zeros(npad, dtype=np.int8)
    touch = np.zeros((npad, 3), dtype=np.int32)
    k = 0
    for r in range(n):
        base = (r + 1) * w + 1
        for cc in range(n):
            q = base + cc
            if lab[q] >= 0 or bp[q] != EMPTY or val[q] == 0:
                continue
            positive = val[q] > 0
            colour[k] = BLACK if positive else WHITE
            lab[q] = k
            stack[0] = q
            sp = 1
            while sp > 0:
                sp -= 1
                x = stack[sp]
                tb = False
                tw = False
                for d in range(4):
                    y = neighbour(x, d, w)
                    u = bp[y]
                    if u == BLACK:
                        tb = True
                    elif u == WHITE:
                        tw = True
                    elif u == EMPTY and lab[y] < 0 and val[y] != 0 and (val[y] > 0) == positive:
                        lab[y] = k
                        stack[sp] = y
                        sp += 1
                if tb:
                    touch[k, BLACK] += 1
                if tw:
                    touch[k, WHITE] += 1
            k += 1
    return lab, k, colour[:k].copy(), touch[:k].copy()


def bouzy_territory(
    board: "GameState | np.ndarray",
    dilations: int = TERRITORY_DILATIONS,
    erosions: int = TERRITORY_EROSIONS,
) -> np.ndarray:
    """Bouzy's dilation/erosion values of a position: ``(n, n)`` int32, Black > 0, White < 0.

    ``board`` is a :class:`~fuseki.go.state.GameState` or a square array of
    0 (empty), 1 (black), 2 (white). The defaults are Bouzy's territory
    operator (5 dilations, 21 erosions); empty points with a positive value
    are Black's territory, negative White's. Use ``POWER_DILATIONS`` /
    ``POWER_EROSIONS`` (5/10) for the influence the thesis calls power.
    """
    if isinstance(dilations, bool) or not isinstance(dilations, (int, np.integer)) or dilations < 0:
        raise ValueError(f"dilations must be a non-negative integer, got {dilations!r}")
    if isinstance(erosions, bool) or not isinstance(erosions, (int, np.integer)) or erosions < 0:
        raise ValueError(f"erosions must be a non-negative integer, got {erosions!r}")
    arr = board_array(board)
    bp = pad_board(arr)
    n = arr.shape[0]
    v = bouzy_map(bp, n, int(dilations), int(erosions))
    return v.reshape(n + 2, n + 2)[1:-1, 1:-1].copy()
