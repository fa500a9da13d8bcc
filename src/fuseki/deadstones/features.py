"""The thesis's characteristic vector of a block: feature sets A (33) and B (89) (spec row T1).

Guisov (2006, §1.3.2 "Characteristic vector of a block") describes each block
(string) of a finished position by numbers about the block itself, the
regions its colour encloses (eyes and partially accessible regions), the
region of the opponent it stands in, its chain, its neighbours and the
territory around it. :data:`FEATURES_FULL` lists all 90 of them in the
thesis's order with the thesis's names; ``docs/deadstones-features.md`` gives
each one's definition, section and how it is computed here.

**The two sets.** The thesis trains on "vector A ~ 33, B ~ 89" (conclusion)
but never lists which features each holds. Our reading, written down so that
it can be checked:

- The text names 90 features and says the program offers "from one to
  ninety" of them (§2.1), yet calls the 89-input network "all the inputs the
  program provides" (§2.1.5). One feature, ``pacer_average_power``, is
  marked as "added later" (§1.3.2), so the 89-vector predates it:
  **B = the 90 features without** ``pacer_average_power``.
- A is "a set of the most relevant features" (§2.1.5); the thesis also says
  that the neighbour features "have limited effectiveness" (§1.3.2). We take
  **A = the first 33 features of B**: the block, its eyes and partially
  accessible regions, the opponent region around it, and its chain up to
  ``chain_ext_opp_liberties``; every neighbour and territory feature is in
  B only.
- ``feature_set="full"`` gives all 90.

Values are raw counts (``cm_x``/``cm_y`` and the power averages are
fractions). The thesis scales inputs "by their minimum and maximum" before
the network (§1.4); that is a property of the training set, so it lives in
the network (:class:`fuseki.deadstones.mlp.DeadStoneMLP`), not here.

Ambiguities and the reading we chose (all in the docs table too):

- *perimeter* of any point set: distinct outside points touching it, on an
  infinite board (the thesis's definition for blocks, used for regions too).
- *protected liberty*: a liberty where the opponent's stone, after any
  capture it makes, would have at most one liberty. The thesis says "puts
  the opponent's stone in atari, leaves one liberty"; a point where the
  move would be suicide (zero liberties) is protected a fortiori, so counts.
- *chain_connections*: the block's liberties that are also liberties of
  another block of its colour (the common liberties that make the chain).
- *local_majority*: stones of the block's colour minus the opponent's within
  Manhattan distance 2 of any stone of the block, the block's own stones
  included (the thesis writes the distance without absolute values; it is
  Manhattan).
- *cm_x*, *cm_y*: distance in lines (first line = 0) from the block's centre
  of mass to the nearest vertical / horizontal edge.
- *accessible* points of a partially accessible region: the empty spaces in
  it that hold a liberty of the block; the *internal* points are the rest of
  the region (opponent stones and the other empty spaces).
- *power*: the mean influence value (:mod:`fuseki.deadstones.territory`, 5
  dilations / 10 erosions), signed so that the block's colour is positive,
  over all points of the regions concerned; 0 when there are none.
- *estimated adjacent territory* (``chain_estimated_adj_terr``): the number
  of points of the 5/21 territory areas of the chain's colour (4-connected
  empty points of that sign) that hold one of its liberties.
- *territory adjacent to the block* (``terr_*``): the empty spaces holding a
  liberty of the block whose 5/21 values sum to the block's sign. Whole empty
  spaces, not single points: Bouzy's dilation never raises a point next to an
  opponent stone, so a point-wise reading would make
  ``terr_all_opp_liberties`` (opponent stones' liberties inside the block's
  territory, i.e. dead invaders) identically zero.
- *weakest* block: fewest liberties, then fewest stones, then the rest of
  its description in order; *strongest*: the opposite. Full-key tie-breaking
  keeps the features invariant under rotations and colour swaps.
- *neighbouring block of own colour*: a block of the same colour that shares
  a liberty with this block (two adjacent same-coloured stones are one block).
- Missing neighbours give zeros.

>>> from fuseki.go.state import GameState
>>> s = GameState.from_ascii('''
...     . X O . .
...     X X O . .
...     O O O . .
...     . . . . .
...     . . . . .
... ''')
>>> blocks, x = block_features(s, "A")
>>> len(blocks), x.shape
(2, (2, 33))
>>> blocks[0].color.name, blocks[0].size, len(blocks[0].liberties)
('BLACK', 3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from fuseki.deadstones.regions import (
    BLACK,
    BORDER,
    EMPTY,
    WHITE,
    analyze,
    board_array,
    neighbour,
    pad_board,
    perimeter,
    split_points,
)
from fuseki.deadstones.territory import (
    POWER_DILATIONS,
    POWER_EROSIONS,
    TERRITORY_DILATIONS,
    TERRITORY_EROSIONS,
    bouzy_map,
    label_territory,
)
from fuseki.go.coords import Point
from fuseki.go.state import Color
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.go.state import GameState

__all__ = [
    "FEATURES_A",
    "FEATURES_B",
    "FEATURES_FULL",
    "FEATURE_SETS",
    "Block",
    "block_features",
    "board_features",
    "feature_names",
    "find_blocks",
]

# ---- names -------------------------------------------------------------------

_BLOCK = (
    "size",
    "perimeter",
    "liberties_1",
    "liberties_2",
    "liberties_3",
    "protected_liberties",
    "chain_connections",
    "opp_blocks_num",
    "local_majority",
    "cm_x",
    "cm_y",
    "bb_square",
)
_EYES = ("eye_num", "eye_sum_size", "eye_sum_perimeter", "eye_sum_split_points")
_PACER = (
    "pacer_sum_acc_size",
    "pacer_sum_acc_perimeter",
    "pacer_sum_int_size",
    "pacer_sum_int_perimeter",
    "pacer_sum_int_split_points",
    "pacer_average_power",
)
_OPP_CER = ("opp_cer_size", "opp_cer_perimeter")
_CHAIN = (
    "chain_blocks_num",
    "chain_size",
    "chain_perimeter",
    "chain_liberties",
    "chain_adj_cer_num",
    "chain_eye_num",
    "chain_eye_sum_size",
    "chain_eye_sum_perimeter",
    "chain_eye_sum_split_points",
    "chain_ext_opp_liberties",
    "chain_split_liberties",
    "chain_estimated_adj_terr",
    "chain_pacer5_num",
    "chain_pacer5_ave_power",
    "chain_pacer9_num",
    "chain_pacer9_ave_power",
)
#: The description of a neighbouring block (§1.3.2, neighbours item 1).
_NEIGHBOUR = (
    "size",
    "perimeter",
    "liberties",
    "common_liberties",
    "protected_liberties",
    "chain_connections",
    "eye_num",
    "eye_sum_size",
    "eye_sum_perimeter",
    "eye_sum_split_points",
)
#: The description of the opponent chain that holds the weakest neighbour (item 2).
_OPP_CHAIN = (
    "size",
    "perimeter",
    "eye_num",
    "eye_sum_size",
    "eye_sum_perimeter",
    "eye_sum_split_points",
    "split_liberties",
)
_TERR = ("terr_direct_liberties", "terr_all_friend_liberties", "terr_all_opp_liberties")

#: All 90 features the thesis names, in its order (§1.3.2).
FEATURES_FULL: tuple[str, ...] = (
    _BLOCK
    + _EYES
    + _PACER
    + _OPP_CER
    + _CHAIN
    + tuple(f"opp1_{s}" for s in _NEIGHBOUR)
    + tuple(f"opp2_{s}" for s in _NEIGHBOUR)
    + tuple(f"opp1_chain_{s}" for s in _OPP_CHAIN)
    + tuple(f"shared_opp_{s}" for s in _NEIGHBOUR)
    + tuple(f"friend_{s}" for s in _NEIGHBOUR)
    + _TERR
)
#: Set B: the 89-vector, i.e. everything but the later ``pacer_average_power``.
FEATURES_B: tuple[str, ...] = tuple(f for f in FEATURES_FULL if f != "pacer_average_power")
#: Set A: the 33 "most relevant" features, the first 33 of B.
FEATURES_A: tuple[str, ...] = FEATURES_B[:33]
#: Feature set name -> names.
FEATURE_SETS: dict[str, tuple[str, ...]] = {"A": FEATURES_A, "B": FEATURES_B, "full": FEATURES_FULL}

_INDEX = {name: i for i, name in enumerate(FEATURES_FULL)}
_COLUMNS = {key: np.array([_INDEX[f] for f in names], dtype=np.intp) for key, names in FEATURE_SETS.items()}
NUM_FULL = len(FEATURES_FULL)
assert NUM_FULL == 90 and len(FEATURES_B) == 89 and len(FEATURES_A) == 33

# Column offsets of the groups inside the full vector (used by the kernel).
_C_EYE = len(_BLOCK)
_C_PACER = _C_EYE + len(_EYES)
_C_OPPCER = _C_PACER + len(_PACER)
_C_CHAIN = _C_OPPCER + len(_OPP_CER)
_C_OPP1 = _C_CHAIN + len(_CHAIN)
_C_OPP2 = _C_OPP1 + len(_NEIGHBOUR)
_C_OPPCHAIN = _C_OPP2 + len(_NEIGHBOUR)
_C_SHARED = _C_OPPCHAIN + len(_OPP_CHAIN)
_C_FRIEND = _C_SHARED + len(_NEIGHBOUR)
_C_TERR = _C_FRIEND + len(_NEIGHBOUR)
assert _C_TERR + len(_TERR) == NUM_FULL


def feature_names(feature_set: str = "A") -> tuple[str, ...]:
    """The names of a feature set: ``"A"`` (33), ``"B"`` (89) or ``"full"`` (90)."""
    try:
        return FEATURE_SETS[feature_set]
    except (KeyError, TypeError):
        raise InputError(f"unknown feature set {feature_set!r}; choose A (33 features), B (89) or full (90)") from None


# ---- the kernel --------------------------------------------------------------


@njit(cache=True, inline="always")
def _marked(pts: np.ndarray, lo: int, hi: int, mark: np.ndarray, tag: int) -> int:
    """How many of ``pts[lo:hi]`` carry ``mark == tag`` (e.g. liberties shared with the marked block)."""
    cnt = 0
    for i in range(lo, hi):
        if mark[pts[i]] == tag:
            cnt += 1
    return cnt


@njit(cache=True)
def _key_less(ka: np.ndarray, kb: np.ndarray) -> bool:
    """Lexicographic ``ka < kb``."""
    for i in range(ka.shape[0]):
        if ka[i] < kb[i]:
            return True
        if ka[i] > kb[i]:
            return False
    return False


@njit(cache=True)
def _features(
    bp, n, blk, nb, bcol, bstart, bpts, lstart, lpts, esp, ne, estart, epts,
    chain, nc, cstart, cblocks, cer, ncer, cerstart, cerpts, cercol, cernopp, cerperim, cersplit,
    power, terr,
):  # fmt: skip
    """The full 90-feature matrix ``(nb, 90)`` float32 of every block (see module docs)."""
    w = n + 2
    npad = w * w
    out = np.zeros((nb, 90), dtype=np.float32)
    if nb == 0:
        return out
    mark = np.full(npad, -1, dtype=np.int32)
    mem = np.full(npad, -1, dtype=np.int32)
    seen = np.full(npad, -1, dtype=np.int32)
    work = np.empty((7, npad), dtype=np.int32)
    buf = np.empty(npad, dtype=np.int32)
    buf2 = np.empty(npad, dtype=np.int32)
    cmark = np.full(max(ncer, 1), -1, dtype=np.int32)
    cacc = np.zeros(max(ncer, 1), dtype=np.int32)
    rlist = np.empty(max(ncer, 1), dtype=np.int32)
    emark = np.full(max(ne, 1), -1, dtype=np.int32)
    bmark = np.full(nb, -1, dtype=np.int32)
    tg = 0  # the running stamp: every use of a stamp array takes a fresh value

    # Territory areas (5/21) and the power sum of each region.
    tlab, nt, tcol, ttouch = label_territory(bp, n, terr)
    tmark = np.full(max(nt, 1), -1, dtype=np.int32)
    tsize = np.zeros(max(nt, 1), dtype=np.int32)
    for q in range(npad):
        if tlab[q] >= 0:
            tsize[tlab[q]] += 1
    # Per empty space: the sum of its 5/21 values, and how many of its points
    # touch a Black / a White stone (the liberties of that colour inside it).
    esum = np.zeros(max(ne, 1), dtype=np.int64)
    etouch = np.zeros((max(ne, 1), 3), dtype=np.int32)
    for e in range(ne):
        for i in range(estart[e], estart[e + 1]):
            q = epts[i]
            esum[e] += terr[q]
            tb = False
            tw = False
            for d in range(4):
                v = bp[neighbour(q, d, w)]
                if v == BLACK:
                    tb = True
                elif v == WHITE:
                    tw = True
            if tb:
                etouch[e, BLACK] += 1
            if tw:
                etouch[e, WHITE] += 1
    cerpow = np.zeros(max(ncer, 1), dtype=np.float64)
    for r in range(ncer):
        s = 0.0
        for i in range(cerstart[r], cerstart[r + 1]):
            s += power[cerpts[i]]
        cerpow[r] = s if cercol[r] == BLACK else -s

    # ---- per-block description (also used for neighbours) -------------------
    # desc columns: 0 size, 1 perimeter, 2 liberties, 3 (common: per pair), 4 protected,
    # 5 chain_connections, 6 eye_num, 7 eye_sum_size, 8 eye_sum_perimeter, 9 eye_sum_split_points
    desc = np.zeros((nb, 10), dtype=np.float64)
    merged = np.empty(4, dtype=np.int32)
    capt = np.empty(4, dtype=np.int32)
    for b in range(nb):
        c = bcol[b]
        o = WHITE if c == BLACK else BLACK
        size = bstart[b + 1] - bstart[b]
        nlib = lstart[b + 1] - lstart[b]
        desc[b, 0] = size
        desc[b, 2] = nlib
        tg += 1
        for i in range(bstart[b], bstart[b + 1]):
            mem[bpts[i]] = tg
        desc[b, 1] = perimeter(bpts[bstart[b] :], size, mem, tg, seen, tg, w)
        # protected liberties: the opponent's stone there would have <= 1 liberty
        prot = 0
        conn = 0
        for li in range(lstart[b], lstart[b + 1]):
            p = lpts[li]
            nm = 0
            ncap = 0
            friend = False
            for d in range(4):
                y = neighbour(p, d, w)
                v = bp[y]
                if v == o:
                    m = blk[y]
                    dup = False
                    for j in range(nm):
                        if merged[j] == m:
                            dup = True
                    if not dup:
                        merged[nm] = m
                        nm += 1
                elif v == c:
                    k = blk[y]
                    if k != b:
                        friend = True
                    if lstart[k + 1] - lstart[k] == 1:
                        dup = False
                        for j in range(ncap):
                            if capt[j] == k:
                                dup = True
                        if not dup:
                            capt[ncap] = k
                            ncap += 1
            if friend:
                conn += 1
            tg += 1
            mark[p] = tg
            cnt = 0
            for d in range(4):
                y = neighbour(p, d, w)
                if bp[y] == EMPTY and mark[y] != tg:
                    mark[y] = tg
                    cnt += 1
            for j in range(nm):
                if cnt >= 2:
                    break
                m = merged[j]
                for i in range(lstart[m], lstart[m + 1]):
                    z = lpts[i]
                    if mark[z] != tg:
                        mark[z] = tg
                        cnt += 1
            if cnt < 2:
                for j in range(ncap):
                    k = capt[j]
                    for i in range(bstart[k], bstart[k + 1]):
                        s = bpts[i]
                        if mark[s] == tg:
                            continue
                        adj = False
                        for d in range(4):
                            t = neighbour(s, d, w)
                            if t == p:
                                adj = True
                            elif bp[t] == o:
                                bt = blk[t]
                                for jj in range(nm):
                                    if merged[jj] == bt:
                                        adj = True
                        if adj:
                            mark[s] = tg
                            cnt += 1
            if cnt <= 1:
                prot += 1
        desc[b, 4] = prot
        desc[b, 5] = conn
        # eyes: regions enclosed by the block's colour, next to it, without opponent stones
        tg += 1
        row = c - 1
        for i in range(bstart[b], bstart[b + 1]):
            q = bpts[i]
            for d in range(4):
                y = neighbour(q, d, w)
                v = bp[y]
                if v == BORDER or v == c:
                    continue
                r = cer[row, y]
                if cmark[r] != tg:
                    cmark[r] = tg
                    if cernopp[r] == 0:
                        desc[b, 6] += 1
                        desc[b, 7] += cerstart[r + 1] - cerstart[r]
                        desc[b, 8] += cerperim[r]
                        desc[b, 9] += cersplit[r]

    # ---- chain features, one row per chain ------------------------------------
    chf = np.zeros((nc, 16), dtype=np.float64)
    chlstart = np.zeros(nc + 1, dtype=np.int32)
    chl = np.empty(2 * npad, dtype=np.int32)  # chain liberties, CSR by chain (a point is a liberty of <= 2 chains)
    ltop = 0
    for ch in range(nc):
        c = bcol[cblocks[cstart[ch]]]
        o = WHITE if c == BLACK else BLACK
        row = c - 1
        chf[ch, 0] = cstart[ch + 1] - cstart[ch]
        # stones and perimeter
        tg += 1
        m = 0
        for bi in range(cstart[ch], cstart[ch + 1]):
            b = cblocks[bi]
            for i in range(bstart[b], bstart[b + 1]):
                buf[m] = bpts[i]
                mem[bpts[i]] = tg
                m += 1
        chf[ch, 1] = m
        chf[ch, 2] = perimeter(buf, m, mem, tg, seen, tg, w)
        # liberties
        tg += 1
        for bi in range(cstart[ch], cstart[ch + 1]):
            b = cblocks[bi]
            for i in range(lstart[b], lstart[b + 1]):
                p = lpts[i]
                if mark[p] != tg:
                    mark[p] = tg
                    chl[ltop] = p
                    ltop += 1
        chlstart[ch + 1] = ltop
        chf[ch, 3] = ltop - chlstart[ch]
        # adjacent regions: eyes, partially accessible ones (a chain liberty inside)
        tg += 1
        nr = 0
        for bi in range(cstart[ch], cstart[ch + 1]):
            b = cblocks[bi]
            for i in range(bstart[b], bstart[b + 1]):
                q = bpts[i]
                for d in range(4):
                    y = neighbour(q, d, w)
                    v = bp[y]
                    if v == BORDER or v == c:
                        continue
                    r = cer[row, y]
                    if cmark[r] != tg:
                        cmark[r] = tg
                        cacc[r] = 0
                        rlist[nr] = r
                        nr += 1
                    if v == EMPTY:
                        cacc[r] = 1
        chf[ch, 4] = nr
        p5n = 0
        p5s = 0.0
        p5c = 0
        p9n = 0
        p9s = 0.0
        p9c = 0
        for j in range(nr):
            r = rlist[j]
            rs = cerstart[r + 1] - cerstart[r]
            if cernopp[r] == 0:
                chf[ch, 5] += 1
                chf[ch, 6] += rs
                chf[ch, 7] += cerperim[r]
                chf[ch, 8] += cersplit[r]
            elif cacc[r] == 1:
                pw = cerpow[r]  # already signed towards the encloser, the chain's colour
                if rs <= 5:
                    p5n += 1
                    p5s += pw
                    p5c += rs
                if rs <= 9:
                    p9n += 1
                    p9s += pw
                    p9c += rs
        chf[ch, 12] = p5n
        chf[ch, 13] = p5s / p5c if p5c > 0 else 0.0
        chf[ch, 14] = p9n
        chf[ch, 15] = p9s / p9c if p9c > 0 else 0.0
        # external liberties shared with the opponent; liberties joining blocks; territory
        ext = 0
        spl = 0
        tg += 1
        est = 0
        for i in range(chlstart[ch], chlstart[ch + 1]):
            p = chl[i]
            touch_o = False
            first = -1
            two = False
            for d in range(4):
                y = neighbour(p, d, w)
                v = bp[y]
                if v == o:
                    touch_o = True
                elif v == c:
                    if first < 0:
                        first = blk[y]
                    elif blk[y] != first:
                        two = True
            if touch_o:
                ext += 1
            if two:
                spl += 1
            t = tlab[p]
            if t >= 0 and tcol[t] == c and tmark[t] != tg:
                tmark[t] = tg
                est += tsize[t]
        chf[ch, 9] = ext
        chf[ch, 10] = spl
        chf[ch, 11] = est

    # ---- every block's own vector -----------------------------------------------
    key_a = np.zeros(17, dtype=np.float64)
    key_b = np.zeros(17, dtype=np.float64)
    cand = np.empty(nb, dtype=np.int32)
    ccom = np.zeros(nb, dtype=np.float64)
    for b in range(nb):
        c = bcol[b]
        o = WHITE if c == BLACK else BLACK
        row = c - 1
        orow = o - 1
        lo = bstart[b]
        hi = bstart[b + 1]
        size = hi - lo
        ch = chain[b]
        # block: size, perimeter, liberties of three ranks, protected, connections
        out[b, 0] = size
        out[b, 1] = desc[b, 1]
        out[b, 2] = desc[b, 2]
        tg += 1
        t1 = tg
        for i in range(lstart[b], lstart[b + 1]):
            mark[lpts[i]] = t1
        tg += 1
        t2 = tg
        n2 = 0
        for i in range(lstart[b], lstart[b + 1]):
            p = lpts[i]
            for d in range(4):
                y = neighbour(p, d, w)
                if bp[y] == EMPTY and mark[y] != t1 and mark[y] != t2:
                    mark[y] = t2
                    buf[n2] = y
                    n2 += 1
        out[b, 3] = n2
        tg += 1
        t3 = tg
        n3 = 0
        for i in range(n2):
            p = buf[i]
            for d in range(4):
                y = neighbour(p, d, w)
                if bp[y] == EMPTY and mark[y] != t1 and mark[y] != t2 and mark[y] != t3:
                    mark[y] = t3
                    n3 += 1
        out[b, 4] = n3
        out[b, 5] = desc[b, 4]
        out[b, 6] = desc[b, 5]
        # adjacent opponent blocks
        tg += 1
        nopp = 0
        for i in range(lo, hi):
            q = bpts[i]
            for d in range(4):
                y = neighbour(q, d, w)
                if bp[y] == o:
                    k = blk[y]
                    if bmark[k] != tg:
                        bmark[k] = tg
                        cand[nopp] = k
                        nopp += 1
        out[b, 7] = nopp
        # local majority within Manhattan distance 2; centre of mass; bounding box
        tg += 1
        maj = 0
        rmin = n
        rmax = -1
        cmin = n
        cmax = -1
        rsum = 0.0
        csum = 0.0
        for i in range(lo, hi):
            q = bpts[i]
            rr = q // w - 1
            cc = q % w - 1
            rsum += rr
            csum += cc
            rmin = min(rmin, rr)
            rmax = max(rmax, rr)
            cmin = min(cmin, cc)
            cmax = max(cmax, cc)
            for dr in range(-2, 3):
                span = 2 - abs(dr)
                r2 = rr + dr
                if r2 < 0 or r2 >= n:
                    continue
                for dc in range(-span, span + 1):
                    c2 = cc + dc
                    if c2 < 0 or c2 >= n:
                        continue
                    y = (r2 + 1) * w + c2 + 1
                    if mark[y] != tg:
                        mark[y] = tg
                        if bp[y] == c:
                            maj += 1
                        elif bp[y] == o:
                            maj -= 1
        out[b, 8] = maj
        cx = csum / size
        cy = rsum / size
        out[b, 9] = min(cx, n - 1 - cx)
        out[b, 10] = min(cy, n - 1 - cy)
        out[b, 11] = (rmax - rmin + 1) * (cmax - cmin + 1)
        # eyes
        for j in range(4):
            out[b, _C_EYE + j] = desc[b, 6 + j]
        # partially accessible regions
        tg += 1
        nr = 0
        for i in range(lo, hi):
            q = bpts[i]
            for d in range(4):
                y = neighbour(q, d, w)
                v = bp[y]
                if v == BORDER or v == c:
                    continue
                r = cer[row, y]
                if cmark[r] != tg:
                    cmark[r] = tg
                    cacc[r] = 0
                    rlist[nr] = r
                    nr += 1
                if v == EMPTY:
                    cacc[r] = 1
        acc_size = 0
        acc_per = 0
        int_size = 0
        int_per = 0
        int_split = 0
        pw_sum = 0.0
        pw_cnt = 0
        for j in range(nr):
            r = rlist[j]
            if cernopp[r] == 0 or cacc[r] == 0:
                continue
            rs = cerstart[r + 1] - cerstart[r]
            pw_sum += cerpow[r]  # signed towards the encloser, the block's colour
            pw_cnt += rs
            # accessible: the empty spaces in r that hold a liberty of the block
            tg += 1
            te = tg
            tg += 1
            ta = tg
            m = 0
            for i in range(lstart[b], lstart[b + 1]):
                p = lpts[i]
                if cer[row, p] != r:
                    continue
                e = esp[p]
                if emark[e] != te:
                    emark[e] = te
                    for k in range(estart[e], estart[e + 1]):
                        buf[m] = epts[k]
                        mem[epts[k]] = ta
                        m += 1
            acc_size += m
            tg += 1
            acc_per += perimeter(buf, m, mem, ta, seen, tg, w)
            # internal: the rest of the region
            tg += 1
            ti = tg
            mi = 0
            for i in range(cerstart[r], cerstart[r + 1]):
                q = cerpts[i]
                if mem[q] != ta:
                    buf2[mi] = q
                    mi += 1
            for i in range(mi):
                mem[buf2[i]] = ti
            int_size += mi
            tg += 1
            int_per += perimeter(buf2, mi, mem, ti, seen, tg, w)
            int_split += split_points(buf2, mi, mem, ti, w, work)
        out[b, _C_PACER + 0] = acc_size
        out[b, _C_PACER + 1] = acc_per
        out[b, _C_PACER + 2] = int_size
        out[b, _C_PACER + 3] = int_per
        out[b, _C_PACER + 4] = int_split
        out[b, _C_PACER + 5] = pw_sum / pw_cnt if pw_cnt > 0 else 0.0
        # the region of the opponent the block stands in
        r = cer[orow, bpts[lo]]
        out[b, _C_OPPCER + 0] = cerstart[r + 1] - cerstart[r]
        out[b, _C_OPPCER + 1] = cerperim[r]
        # chain
        for j in range(16):
            out[b, _C_CHAIN + j] = chf[ch, j]

        # ---- neighbours: keys are (liberties, size, perimeter, common, protected,
        # connections, eyes x4, then the chain's 7 for opponents); weakest = smallest.
        tg += 1
        tl = tg
        for i in range(lstart[b], lstart[b + 1]):
            mark[lpts[i]] = tl
        for j in range(nopp):
            k = cand[j]
            ccom[k] = _marked(lpts, lstart[k], lstart[k + 1], mark, tl)
        best1 = -1
        best2 = -1
        for j in range(nopp):
            k = cand[j]
            _fill_key(key_a, k, ccom[k], desc, chf, chain[k])
            if best1 < 0:
                best1 = k
                continue
            _fill_key(key_b, best1, ccom[best1], desc, chf, chain[best1])
            if _key_less(key_a, key_b):
                best2 = best1
                best1 = k
                continue
            if best2 < 0:
                best2 = k
                continue
            _fill_key(key_b, best2, ccom[best2], desc, chf, chain[best2])
            if _key_less(key_a, key_b):
                best2 = k
        if best1 >= 0:
            _write_neighbour(out, b, _C_OPP1, best1, ccom[best1], desc)
            oc = chain[best1]
            out[b, _C_OPPCHAIN + 0] = chf[oc, 1]
            out[b, _C_OPPCHAIN + 1] = chf[oc, 2]
            for j in range(4):
                out[b, _C_OPPCHAIN + 2 + j] = chf[oc, 5 + j]
            out[b, _C_OPPCHAIN + 6] = chf[oc, 10]
        if best2 >= 0:
            _write_neighbour(out, b, _C_OPP2, best2, ccom[best2], desc)
        # weakest opponent block sharing a liberty with the block's chain
        tg += 1
        best = -1
        for i in range(chlstart[ch], chlstart[ch + 1]):
            p = chl[i]
            for d in range(4):
                y = neighbour(p, d, w)
                if bp[y] != o:
                    continue
                k = blk[y]
                if bmark[k] == tg:
                    continue
                bmark[k] = tg
                cm = _marked(lpts, lstart[k], lstart[k + 1], mark, tl)
                ccom[k] = cm
                _fill_key(key_a, k, cm, desc, chf, chain[k])
                if best < 0:
                    best = k
                    continue
                _fill_key(key_b, best, ccom[best], desc, chf, chain[best])
                if _key_less(key_a, key_b):
                    best = k
        if best >= 0:
            _write_neighbour(out, b, _C_SHARED, best, ccom[best], desc)
        # strongest block of own colour sharing a liberty with the block (largest key)
        tg += 1
        best = -1
        bmark[b] = tg
        for i in range(lstart[b], lstart[b + 1]):
            p = lpts[i]
            for d in range(4):
                y = neighbour(p, d, w)
                if bp[y] != c:
                    continue
                k = blk[y]
                if bmark[k] == tg:
                    continue
                bmark[k] = tg
                cm = _marked(lpts, lstart[k], lstart[k + 1], mark, tl)
                ccom[k] = cm
                _fill_key(key_a, k, cm, desc, chf, -1)
                if best < 0:
                    best = k
                    continue
                _fill_key(key_b, best, ccom[best], desc, chf, -1)
                if _key_less(key_b, key_a):
                    best = k
        if best >= 0:
            _write_neighbour(out, b, _C_FRIEND, best, ccom[best], desc)
        # territory: the empty spaces holding a liberty of the block that 5/21 gives
        # to the block's colour (their values sum to the block's sign)
        tg += 1
        direct = 0
        fr = 0
        op = 0
        for i in range(lstart[b], lstart[b + 1]):
            p = lpts[i]
            e = esp[p]
            if (esum[e] > 0 and c == BLACK) or (esum[e] < 0 and c == WHITE):
                direct += 1
                if emark[e] != tg:
                    emark[e] = tg
                    fr += etouch[e, c]
                    op += etouch[e, o]
        out[b, _C_TERR + 0] = direct
        out[b, _C_TERR + 1] = fr
        out[b, _C_TERR + 2] = op
    return out


@njit(cache=True)
def _fill_key(key: np.ndarray, k: int, common: float, desc: np.ndarray, chf: np.ndarray, ch: int) -> None:
    """The weakness key of block ``k``: liberties, size, perimeter, common, the rest, its chain."""
    key[0] = desc[k, 2]
    key[1] = desc[k, 0]
    key[2] = desc[k, 1]
    key[3] = common
    for j in range(4, 10):
        key[j] = desc[k, j]
    if ch >= 0:
        key[10] = chf[ch, 1]
        key[11] = chf[ch, 2]
        for j in range(4):
            key[12 + j] = chf[ch, 5 + j]
        key[16] = chf[ch, 10]
    else:
        for j in range(10, 17):
            key[j] = 0.0


@njit(cache=True)
def _write_neighbour(out: np.ndarray, b: int, col: int, k: int, common: float, desc: np.ndarray) -> None:
    """Write block ``k``'s 10-number description into ``out[b, col:col + 10]``."""
    out[b, col + 0] = desc[k, 0]
    out[b, col + 1] = desc[k, 1]
    out[b, col + 2] = desc[k, 2]
    out[b, col + 3] = common
    for j in range(4, 10):
        out[b, col + j] = desc[k, j]


# ---- Python API ----------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One block (string) of stones: its colour, its stones and its liberties, row-major.

    The thesis pre-marks a block in atari (one liberty) at the end of a game
    as dead before any network sees it ("players do not leave stones in
    atari if they can be saved", Introduction, *Formulation*); see
    :attr:`in_atari`.
    """

    color: Color
    points: tuple[Point, ...]
    liberties: tuple[Point, ...]

    @property
    def anchor(self) -> Point:
        """The block's first point in row-major order (its identity in a position)."""
        return self.points[0]

    @property
    def size(self) -> int:
        return len(self.points)

    @property
    def in_atari(self) -> bool:
        return len(self.liberties) == 1


def _unpad(q: int, w: int) -> Point:
    return Point(q // w - 1, q % w - 1)


def _blocks_from(regions: tuple, n: int) -> list[Block]:
    """Block objects from :func:`analyze`'s arrays."""
    nb, bcol, bstart, bpts, lstart, lpts = regions[1:7]
    w = n + 2
    pts = [Point(int(q) // w - 1, int(q) % w - 1) for q in bpts.tolist()]
    libs = [Point(int(q) // w - 1, int(q) % w - 1) for q in lpts.tolist()]
    bs = bstart.tolist()
    ls = lstart.tolist()
    colours = bcol.tolist()
    return [
        Block(Color(colours[b]), tuple(pts[bs[b] : bs[b + 1]]), tuple(libs[ls[b] : ls[b + 1]])) for b in range(nb)
    ]


def find_blocks(state: "GameState | np.ndarray") -> list[Block]:
    """Every block of the position, ordered by first point (row-major).

    ``state`` is a :class:`~fuseki.go.state.GameState` or a square array of
    0 (empty), 1 (black), 2 (white).
    """
    board = board_array(state)
    bp = pad_board(board)
    n = int(board.shape[0])
    return _blocks_from(analyze(bp, n), n)


def board_features(board: np.ndarray, feature_set: str = "A") -> tuple[list[Block], np.ndarray]:
    """:func:`block_features` for a square array of 0/1/2 instead of a GameState."""
    cols = _COLUMNS.get(feature_set) if isinstance(feature_set, str) else None
    if cols is None:
        feature_names(feature_set)  # raises the one-line error
    board = np.asarray(board)
    bp = pad_board(board)
    n = int(board.shape[0])
    regions = analyze(bp, n)
    power = bouzy_map(bp, n, POWER_DILATIONS, POWER_EROSIONS)
    terr = bouzy_map(bp, n, TERRITORY_DILATIONS, TERRITORY_EROSIONS)
    full = _features(bp, n, *regions, power, terr)
    x = full if feature_set == "full" else np.ascontiguousarray(full[:, cols])
    return _blocks_from(regions, n), x


def block_features(state: "GameState | np.ndarray", feature_set: str = "A") -> tuple[list[Block], np.ndarray]:
    """The blocks of a (finished) position and their feature vectors, ``float32 (n_blocks, k)``.

    ``feature_set`` is ``"A"`` (33 features), ``"B"`` (89) or ``"full"`` (90);
    row ``i`` describes ``blocks[i]``; columns follow :func:`feature_names`.
    An empty board gives no blocks and a ``(0, k)`` array.
    """
    return board_features(board_array(state), feature_set)
