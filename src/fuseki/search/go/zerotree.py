"""The Go Zero search in Numba arrays: many games' PUCT trees, walked and fed in one kernel call each.

:mod:`fuseki.search.puct` is PUCT for any game, a tree of Python objects;
on Go a node costs a Python object, a copied board and a Python legal-move
list, and self-play on 9×9 ran at 31 moves a second. Here the trees of many
games live in a few arrays, as the MCTS engine's tree does
(:mod:`fuseki.search.go.gotree`), and one kernel call walks every game's
tree to its next leaves (under virtual loss), writes their network input
(AlphaGo Zero's planes) and legal-move masks into one batch, and one more
call takes the network's answers back. Python touches each game once a
move, not once a simulation.

The arithmetic is the Python PUCT's, operation for operation (the same
float64 sums, numpy's pairwise summation included), so that with the same
network outputs both searches give the same visit counts and the same
games; ``tests/search/test_zeropuct.py`` checks it.

Layout (``g`` a game slot, ``r`` a row of its tree; row 0 is the root)::

    ti[g, r]  int32  (move into the node: an action index, -1 at the root;
                      first child's row, -1 while unexpanded; children)
    tf[g, r]  float64 (N, W, P): the node's visits, the sum of its values
                      from the view of the player who moved into it, and its
                      prior (at the root's children, with Dirichlet noise)
    tv[g, r]  float32 the network's value of the node, for its player to move
    tflag[g, r] int8  FREE, PENDING (a leaf waiting for the network) or a
                      finished game: BLACK_WINS, WHITE_WINS, DRAW

A node's ``N`` is both the visit count of the edge into it and its own
visit count (the Python tree keeps these two apart; they are always equal,
virtual visits included, except at a pending leaf, whose own count nothing
reads). Children are one block of rows in the order of the legal-move list
of the rules engine (:func:`fuseki.go.kernels.fill_legal`, then the superko
filter), which is the order of ``GoGame.legal_actions``: ties in selection
go to the same move as in the Python tree.

Positions are not stored: each walk copies the root's board buffer and
replays the moves of its path (a few microseconds), recording each board for
the history planes and each position's key for the superko check.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fuseki.go.kernels import (
    BLACK,
    M_CAPB,
    M_CAPW,
    M_HHI,
    M_HLO,
    M_KO,
    M_LAST,
    M_MOVENUM,
    M_N,
    M_NLEGAL,
    M_NP,
    M_PASSES,
    M_TOMOVE,
    M_W,
    META,
    NBLOCKS,
    PAD,
    R_BLACK_AREA,
    R_BLACK_STONE,
    R_WHITE_AREA,
    R_WHITE_STONE,
    SIDE_KEY,
    WHITE,
    fill_legal,
    hash_after,
    place_stone,
    region_map,
)

# ti fields
I_MOVE, I_FIRST, I_NCHILD = 0, 1, 2
# tf fields
F_N, F_W, F_P = 0, 1, 2
# tflag values
FREE, PENDING, BLACK_WINS, WHITE_WINS, DRAW = 0, 1, 2, 3, 4

# Per-slot search state (ss[g, S_*], int64).
S_ACTIVE = 0  # a search is open
S_TARGET = 1  # simulations to run
S_DONE = 2  # simulations run (the root's evaluation counts as one, as in the Python PUCT)
S_AWAIT = 3  # the root waits for its evaluation
S_NPEND = 4  # leaves waiting for their evaluation
S_ROW0 = 5  # first row of this slot's leaves in the last batch
S_ROWS = 6  # and how many
S_GUMBEL = 7  # 1: the root is a Gumbel root (sequential halving)
S_ROOTPLAYER = 8  # 0 (Black) or 1 (White) to move at the root
S_HLEN = 9  # superko keys of the game so far
S_HCOUNT = 10  # positions of the game so far (for the history planes)
S_USED = 11  # tree rows in use
S_JUSTROOT = 12  # the last feed evaluated the root (the driver then adds noise or the Gumbel root)
NSS = 13

# Parameters (prm[P_*], float64).
P_CPUCT = 0
P_FPU = 1
P_VL = 2
P_BATCH = 3
P_WHITE_BONUS = 4  # komi plus any handicap bonus, added to White's count
P_TERRITORY = 5  # 1: territory scoring (captures count), 0: area
P_KO = 6  # KO_SIMPLE, KO_POSITIONAL or KO_SITUATIONAL
P_HISTORY = 7  # positions in the planes (8: AlphaGo Zero's 17 planes)
P_CVISIT = 8
P_CSCALE = 9
NPARAMS = 10

KO_SIMPLE, KO_POSITIONAL, KO_SITUATIONAL = 0, 1, 2

#: The smallest positive float64 (the Python PUCT's TINY).
TINY = float(np.finfo(np.float64).tiny)


@njit(cache=True)
def _block(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of at most 128 values: 8 accumulators, then the rest in turn."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of ``a[lo:lo + n]`` (float64), bit for bit: ``np.sum`` of the same values.

    Above 128 values numpy sums the two halves (the first a multiple of 8)
    and adds them. That recursion is unrolled here with a small stack: a
    Numba function that calls itself crashes when it is loaded from the cache.
    """
    if n <= 128:
        return _block(a, lo, n)
    los = np.empty(64, dtype=np.int64)
    ns = np.empty(64, dtype=np.int64)
    phase = np.empty(64, dtype=np.int64)
    vals = np.empty(64)
    top = 0
    nv = 0
    los[0] = lo
    ns[0] = n
    phase[0] = 0
    top = 1
    while top > 0:
        top -= 1
        lo_ = los[top]
        n_ = ns[top]
        if n_ <= 128:
            vals[nv] = _block(a, lo_, n_)
            nv += 1
        elif phase[top] == 0:
            n2 = n_ // 2
            n2 -= n2 % 8
            phase[top] = 1
            top += 1  # keep this entry, to add its halves once both are summed
            los[top] = lo_ + n2
            ns[top] = n_ - n2
            phase[top] = 0
            top += 1
            los[top] = lo_
            ns[top] = n2
            phase[top] = 0
            top += 1
        else:
            right = vals[nv - 1]
            left = vals[nv - 2]
            nv -= 2
            vals[nv] = left + right
            nv += 1
    return vals[0]


@njit(cache=True)
def np_sum(a: np.ndarray) -> float:
    """``float(np.sum(a))`` for a 1-D float64 array, computed the way numpy does."""
    return 0.0 + _pairwise(a, 0, a.shape[0])


@njit(cache=True, inline="always")
def _key(buf: np.ndarray, situational: bool) -> np.int64:
    """The superko key of the position: the board hash, with the side key when White is to move (situational)."""
    h = np.int64(buf[M_HLO]) | (np.int64(buf[M_HHI]) << 31)
    if situational and buf[M_TOMOVE] == WHITE:
        h ^= SIDE_KEY
    return h


@njit(cache=True, inline="always")
def _apply(buf: np.ndarray, move: int) -> None:
    """Play a move known to be legal (a tree edge), as ``kernels.play`` does, without its legal-move list."""
    n = buf[M_N]
    color = buf[M_TOMOVE]
    if move == n * n:
        buf[M_PASSES] += 1
        buf[M_KO] = -1
    else:
        place_stone(buf, PAD[n, move], color)
        buf[M_PASSES] = 0
    buf[M_TOMOVE] = 3 - color
    buf[M_LAST] = move
    buf[M_MOVENUM] += 1
    buf[M_NLEGAL] = -1


@njit(cache=True, inline="always")
def _colors(buf: np.ndarray, out: np.ndarray) -> None:
    """The colours of the unpadded points (0 empty, 1 black, 2 white) into ``out`` (int8, N*N)."""
    n = buf[M_N]
    w = buf[M_W]
    k = 0
    for r in range(n):
        base = META + (r + 1) * w + 1
        for c in range(n):
            out[k] = buf[base + c]
            k += 1


@njit(cache=True)
def _result_code(buf: np.ndarray, prm: np.ndarray) -> int:
    """BLACK_WINS, WHITE_WINS or DRAW of a finished position, counted as ``GameState.score`` counts it (all stones alive)."""
    n = buf[M_N]
    regions = region_map(buf, np.zeros(n * n, dtype=np.uint8))
    black = 0
    white = 0
    territory = prm[P_TERRITORY] != 0.0
    for p in range(n * n):
        r = regions[p]
        if r == R_BLACK_AREA or (r == R_BLACK_STONE and not territory):
            black += 1
        elif r == R_WHITE_AREA or (r == R_WHITE_STONE and not territory):
            white += 1
    if territory:
        black += buf[M_CAPB]  # prisoners
        white += buf[M_CAPW]
    margin = float(black) - (float(white) + prm[P_WHITE_BONUS])
    if margin > 0:
        return BLACK_WINS
    if margin < 0:
        return WHITE_WINS
    return DRAW


@njit(cache=True)
def _legal(
    buf: np.ndarray,
    out: np.ndarray,
    ko_rule: int,
    hkeys: np.ndarray,
    hlen: int,
    hbits: np.ndarray,
    pkeys: np.ndarray,
    depth: int,
) -> int:
    """The legal moves of ``buf`` (pass last) into ``out``, without the moves that repeat a position of the
    game (``hkeys[:hlen]``, with the bit filter ``hbits``) or of the walk (``pkeys[1:depth + 1]``) when the
    ko rule is a superko. The order is the rules engine's: that of ``GameState.legal_points``."""
    k = fill_legal(buf)
    n = buf[M_N]
    start = META + NBLOCKS * buf[M_NP] + n * n
    if ko_rule == KO_SIMPLE:
        for e in range(k):
            out[e] = buf[start + e]
        return k
    side = np.int64(0)
    if ko_rule == KO_SITUATIONAL and buf[M_TOMOVE] == BLACK:
        side = np.int64(SIDE_KEY)
    m = 0
    for e in range(k - 1):
        p = buf[start + e]
        key = np.int64(hash_after(buf, p)) ^ side
        bad = False
        bit = key & 0xFFFF
        if hbits[bit >> 3] & (1 << (bit & 7)):
            for j in range(hlen):
                if hkeys[j] == key:
                    bad = True
                    break
        if not bad:
            for d in range(1, depth + 1):
                if pkeys[d] == key:
                    bad = True
                    break
        if not bad:
            out[m] = p
            m += 1
    out[m] = buf[start + k - 1]  # pass
    return m + 1


@njit(cache=True)
def _write_planes(
    planes: np.ndarray,
    masks: np.ndarray,
    row: int,
    buf: np.ndarray,
    ring: np.ndarray,
    depth: int,
    hboards: np.ndarray,
    hcount: int,
    history: int,
    legal: np.ndarray,
    nlegal: int,
) -> None:
    """AlphaGo Zero's planes of the position ``buf`` at ``depth`` below the root, and its legal mask.

    Plane ``2t`` holds the stones of the player to move ``t`` positions ago,
    ``2t + 1`` the opponent's (the walk's boards from ``ring``, then the
    game's from ``hboards``; empty before the game's start); the last plane
    is ones when Black is to move. ``GoGame.planes`` makes the same.
    """
    n = buf[M_N]
    me = buf[M_TOMOVE]
    opp = 3 - me
    for t in range(history):
        d = depth - t
        for p in range(n * n):
            if d >= 0:
                b = ring[d % history, p]
            elif t - depth < hcount:
                b = hboards[t - depth, p]
            else:
                b = 0
            r = p // n
            c = p % n
            planes[row, 2 * t, r, c] = 1.0 if b == me else 0.0
            planes[row, 2 * t + 1, r, c] = 1.0 if b == opp else 0.0
    black = 1.0 if me == BLACK else 0.0
    for r in range(n):
        for c in range(n):
            planes[row, 2 * history, r, c] = black
    for a in range(masks.shape[1]):
        masks[row, a] = False
    for e in range(nlegal):
        masks[row, legal[e]] = True


@njit(cache=True)
def _gumbel_sigma(
    tf: np.ndarray, tv: np.ndarray, g: int, first: int, k: int, prm: np.ndarray, out: np.ndarray, q: np.ndarray, tmp: np.ndarray
) -> None:
    """``σ(completedQ)`` of the root's children into ``out[:k]``: ``puct.gumbel_sigma``, operation for operation."""
    for j in range(k):
        nj = tf[g, first + j, F_N]
        q[j] = tf[g, first + j, F_W] / nj if nj > 0 else 0.0
        tmp[j] = nj
    total = 0.0 + _pairwise(tmp, 0, k)
    maxn = tmp[0]
    for j in range(1, k):
        if tmp[j] > maxn:
            maxn = tmp[j]
    for j in range(k):
        pj = max(TINY, tf[g, first + j, F_P])
        tmp[j] = pj if tf[g, first + j, F_N] > 0 else 0.0
    sum_probs = 0.0 + _pairwise(tmp, 0, k)
    weighted = 0.0
    if sum_probs > 0:
        for j in range(k):
            pj = max(TINY, tf[g, first + j, F_P])
            tmp[j] = pj * q[j] / sum_probs if tf[g, first + j, F_N] > 0 else 0.0
        weighted = 0.0 + _pairwise(tmp, 0, k)
    raw = np.float64(tv[g, 0])
    mixed = (raw + total * weighted) / (total + 1.0)
    scale = (prm[P_CVISIT] + maxn) * prm[P_CSCALE]
    for j in range(k):
        completed = q[j] if tf[g, first + j, F_N] > 0 else mixed
        out[j] = scale * ((completed + 1.0) / 2.0)


@njit(cache=True)
def gumbel_scores(tf: np.ndarray, tv: np.ndarray, ti: np.ndarray, gum: np.ndarray, g: int, prm: np.ndarray, out: np.ndarray) -> int:
    """``g + logits + σ(completedQ)`` of the root's children of slot ``g`` into ``out``; returns their number."""
    first = ti[g, 0, I_FIRST]
    k = ti[g, 0, I_NCHILD]
    q = np.empty(k)
    tmp = np.empty(k)
    _gumbel_sigma(tf, tv, g, first, k, prm, out, q, tmp)
    for j in range(k):
        out[j] = gum[g, 0, j] + gum[g, 1, j] + out[j]
    return k


@njit(cache=True)
def _select(ti: np.ndarray, tf: np.ndarray, g: int, node: int, c_puct: float, fpu: float) -> int:
    """The child row with the highest ``Q + c·P·sqrt(N)/(1 + n)`` (the first on a tie): ``PUCTNode.select``."""
    first = ti[g, node, I_FIRST]
    k = ti[g, node, I_NCHILD]
    s = c_puct * math.sqrt(max(tf[g, node, F_N], 1.0))
    best = first
    best_u = -np.inf
    for j in range(first, first + k):
        n = tf[g, j, F_N]
        u = tf[g, j, F_W] / n if n > 0 else fpu
        u = u + (s * tf[g, j, F_P]) / (1.0 + n)
        if u > best_u:
            best_u = u
            best = j
    return best


@njit(cache=True)
def _select_gumbel(
    ti: np.ndarray,
    tf: np.ndarray,
    tv: np.ndarray,
    gum: np.ndarray,
    gseq: np.ndarray,
    g: int,
    prm: np.ndarray,
    score: np.ndarray,
    q: np.ndarray,
    tmp: np.ndarray,
) -> int:
    """The root child the next walk visits by sequential halving: ``GumbelRoot.select``."""
    first = ti[g, 0, I_FIRST]
    k = ti[g, 0, I_NCHILD]
    _gumbel_sigma(tf, tv, g, first, k, prm, score, q, tmp)
    for j in range(k):
        tmp[j] = gum[g, 2, j]
    considered = gseq[g, int(0.0 + _pairwise(tmp, 0, k))]
    best = 0
    best_u = -np.inf
    for j in range(k):
        u = (gum[g, 0, j] + gum[g, 1, j]) + score[j]
        if gum[g, 2, j] != considered:
            u = -np.inf
        if u > best_u:
            best_u = u
            best = j
    return first + best


@njit(cache=True)
def _backup(ti: np.ndarray, tf: np.ndarray, g: int, path: np.ndarray, depth: int, root_player: int, v_black: float, v_white: float) -> None:
    """One visit and the value along ``path[0:depth + 1]`` (``v_black``/``v_white``: the value for each player)."""
    tf[g, path[0], F_N] += 1.0
    for k in range(1, depth + 1):
        r = path[k]
        tf[g, r, F_N] += 1.0
        mover = root_player ^ ((k - 1) & 1)  # the player to move at depth k - 1
        tf[g, r, F_W] += v_black if mover == 0 else v_white


@njit(cache=True)
def collect(
    order: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    tv: np.ndarray,
    tflag: np.ndarray,
    ss: np.ndarray,
    prm: np.ndarray,
    root_buf: np.ndarray,
    hkeys: np.ndarray,
    hbits: np.ndarray,
    hboards: np.ndarray,
    gum: np.ndarray,
    gseq: np.ndarray,
    pend_path: np.ndarray,
    pend_len: np.ndarray,
    pend_legal: np.ndarray,
    pend_nlegal: np.ndarray,
    planes: np.ndarray,
    masks: np.ndarray,
    work: np.ndarray,
    ring: np.ndarray,
    path: np.ndarray,
    pkeys: np.ndarray,
    score: np.ndarray,
    q: np.ndarray,
    tmp: np.ndarray,
) -> int:
    """Walk the trees of the slots in ``order`` to their next leaves; write the leaves' planes and masks.

    For each slot, as ``PUCT.pending_leaves`` does: the root if it waits for
    its evaluation, else up to ``min(batch, target - done)`` walks, each
    adding a virtual loss along its path; a walk that ends in a finished game
    backs up its exact value at once; one that reaches a leaf already waiting
    ends the slot's batch. Returns the number of rows written; ``ss[g,
    S_ROW0]`` and ``ss[g, S_ROWS]`` say which are slot ``g``'s.
    """
    history = int(prm[P_HISTORY])
    ko_rule = int(prm[P_KO])
    situational = ko_rule == KO_SITUATIONAL
    c_puct = prm[P_CPUCT]
    fpu = prm[P_FPU]
    vl = prm[P_VL]
    batch = int(prm[P_BATCH])
    maxd = path.shape[0]
    rows = 0
    for oi in range(order.shape[0]):
        g = order[oi]
        ss[g, S_ROW0] = rows
        ss[g, S_ROWS] = 0
        if ss[g, S_ACTIVE] == 0 or ss[g, S_AWAIT] != 0 or ss[g, S_NPEND] != 0:
            continue
        root_expanded = ti[g, 0, I_FIRST] >= 0
        if root_expanded and ss[g, S_DONE] >= ss[g, S_TARGET]:
            continue  # finished
        hlen = ss[g, S_HLEN]
        hcount = ss[g, S_HCOUNT]
        root_player = ss[g, S_ROOTPLAYER]
        if not root_expanded:
            work[:] = root_buf[g]
            for p in range(ring.shape[1]):
                ring[0, p] = hboards[g, 0, p]
            nl = _legal(work, pend_legal[g, 0], ko_rule, hkeys[g], hlen, hbits[g], pkeys, 0)
            pend_nlegal[g, 0] = nl
            _write_planes(planes, masks, rows, work, ring, 0, hboards[g], hcount, history, pend_legal[g, 0], nl)
            ss[g, S_AWAIT] = 1
            ss[g, S_ROWS] = 1
            rows += 1
            continue
        size = min(batch, ss[g, S_TARGET] - ss[g, S_DONE])
        gumbel = ss[g, S_GUMBEL] != 0
        done = 0
        npend = 0
        while done + npend < size:
            work[:] = root_buf[g]
            for p in range(ring.shape[1]):
                ring[0, p] = hboards[g, 0, p]
            node = 0
            depth = 0
            path[0] = 0
            choice = -1
            while ti[g, node, I_FIRST] >= 0 and tflag[g, node] < BLACK_WINS:
                if depth == 0 and gumbel:
                    c = _select_gumbel(ti, tf, tv, gum, gseq, g, prm, score, q, tmp)
                    choice = c - ti[g, 0, I_FIRST]
                else:
                    c = _select(ti, tf, g, node, c_puct, fpu)
                _apply(work, ti[g, c, I_MOVE])
                depth += 1
                if depth >= maxd:
                    raise ValueError("a Zero search path is longer than the walk buffer")
                path[depth] = c
                _colors(work, ring[depth % history])
                pkeys[depth] = _key(work, situational)
                if tflag[g, c] == FREE and ti[g, c, I_FIRST] < 0 and work[M_PASSES] >= 2:
                    tflag[g, c] = _result_code(work, prm)
                node = c
            flag = tflag[g, node]
            if flag >= BLACK_WINS:  # a finished game: its exact value, at once
                vb = 1.0 if flag == BLACK_WINS else (-1.0 if flag == WHITE_WINS else 0.0)
                _backup(ti, tf, g, path, depth, root_player, vb, -vb)
                done += 1
                if gumbel:
                    gum[g, 2, choice] += 1.0
                continue
            if flag == PENDING:  # another walk of this batch already waits here
                break
            tflag[g, node] = PENDING
            tf[g, 0, F_N] += vl
            for k in range(1, depth + 1):
                tf[g, path[k], F_N] += vl
                tf[g, path[k], F_W] -= vl
            nl = _legal(work, pend_legal[g, npend], ko_rule, hkeys[g], hlen, hbits[g], pkeys, depth)
            pend_nlegal[g, npend] = nl
            _write_planes(planes, masks, rows, work, ring, depth, hboards[g], hcount, history, pend_legal[g, npend], nl)
            for k in range(depth + 1):
                pend_path[g, npend, k] = path[k]
            pend_len[g, npend] = depth + 1
            rows += 1
            npend += 1
            if gumbel:
                gum[g, 2, choice] += 1.0
        ss[g, S_DONE] += done
        ss[g, S_NPEND] = npend
        ss[g, S_ROWS] = npend
    return rows


@njit(cache=True)
def _expand(
    ti: np.ndarray,
    tf: np.ndarray,
    tv: np.ndarray,
    tflag: np.ndarray,
    ss: np.ndarray,
    g: int,
    node: int,
    legal: np.ndarray,
    nlegal: int,
    priors: np.ndarray,
    value: float,
    tmp: np.ndarray,
) -> None:
    """Give ``node`` its children (the legal moves, in order) with the priors renormalised over them: ``PUCTNode.expand``."""
    first = ss[g, S_USED]
    if first + nlegal > ti.shape[1]:
        raise ValueError("a Zero search tree is full (the driver sizes it before each search)")
    for j in range(nlegal):
        tmp[j] = np.float64(priors[legal[j]])
    total = 0.0 + _pairwise(tmp, 0, nlegal)
    if not total > 0:
        raise ValueError("the evaluator gave no prior mass to any legal move")
    for j in range(nlegal):
        r = first + j
        ti[g, r, I_MOVE] = legal[j]
        ti[g, r, I_FIRST] = -1
        ti[g, r, I_NCHILD] = 0
        tf[g, r, F_N] = 0.0
        tf[g, r, F_W] = 0.0
        tf[g, r, F_P] = tmp[j] / total
        tv[g, r] = 0.0
        tflag[g, r] = FREE
    ti[g, node, I_FIRST] = first
    ti[g, node, I_NCHILD] = nlegal
    tv[g, node] = value
    ss[g, S_USED] = first + nlegal


@njit(cache=True)
def feed(
    order: np.ndarray,
    priors: np.ndarray,
    values: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    tv: np.ndarray,
    tflag: np.ndarray,
    ss: np.ndarray,
    prm: np.ndarray,
    pend_path: np.ndarray,
    pend_len: np.ndarray,
    pend_legal: np.ndarray,
    pend_nlegal: np.ndarray,
    tmp: np.ndarray,
) -> None:
    """Take the evaluations of the rows :func:`collect` wrote back into the trees: ``PUCT.feed`` for every slot.

    Each leaf in turn: its path's virtual loss taken back, the leaf expanded,
    its value backed up. A root that waited is expanded and counted as the
    search's first simulation; ``ss[g, S_JUSTROOT]`` tells the driver to add
    its noise (or Gumbel root).
    """
    vl = prm[P_VL]
    for oi in range(order.shape[0]):
        g = order[oi]
        ss[g, S_JUSTROOT] = 0
        row = ss[g, S_ROW0]
        if ss[g, S_AWAIT] != 0:
            v = np.float64(values[row])
            _expand(ti, tf, tv, tflag, ss, g, 0, pend_legal[g, 0], pend_nlegal[g, 0], priors[row], v, tmp)
            tf[g, 0, F_N] += 1.0
            ss[g, S_AWAIT] = 0
            ss[g, S_DONE] = 1
            ss[g, S_JUSTROOT] = 1
            continue
        npend = ss[g, S_NPEND]
        root_player = ss[g, S_ROOTPLAYER]
        for k in range(npend):
            length = pend_len[g, k]
            path = pend_path[g, k]
            tf[g, 0, F_N] -= vl
            for d in range(1, length):
                tf[g, path[d], F_N] -= vl
                tf[g, path[d], F_W] += vl
            leaf = path[length - 1]
            tflag[g, leaf] = FREE
            v = np.float64(values[row + k])
            _expand(ti, tf, tv, tflag, ss, g, leaf, pend_legal[g, k], pend_nlegal[g, k], priors[row + k], v, tmp)
            # The value is for the leaf's player to move.
            leaf_player = root_player ^ ((length - 1) & 1)
            if leaf_player == 0:
                _backup(ti, tf, g, path, length - 1, root_player, v, -v)
            else:
                _backup(ti, tf, g, path, length - 1, root_player, -v, v)
        ss[g, S_DONE] += npend
        ss[g, S_NPEND] = 0


@njit(cache=True)
def abandon(
    g: int, ti: np.ndarray, tf: np.ndarray, tflag: np.ndarray, ss: np.ndarray, prm: np.ndarray, pend_path: np.ndarray, pend_len: np.ndarray
) -> None:
    """Drop slot ``g``'s open search: take back the virtual loss of leaves never fed (``PUCT._abandon``)."""
    vl = prm[P_VL]
    for k in range(ss[g, S_NPEND]):
        length = pend_len[g, k]
        tf[g, 0, F_N] -= vl
        for d in range(1, length):
            tf[g, pend_path[g, k, d], F_N] -= vl
            tf[g, pend_path[g, k, d], F_W] += vl
        tflag[g, pend_path[g, k, length - 1]] = FREE
    ss[g, S_NPEND] = 0
    ss[g, S_AWAIT] = 0
    ss[g, S_ACTIVE] = 0


@njit(cache=True)
def compact(
    g: int,
    new_root: int,
    ti: np.ndarray,
    tf: np.ndarray,
    tv: np.ndarray,
    tflag: np.ndarray,
    ss: np.ndarray,
    ti2: np.ndarray,
    tf2: np.ndarray,
    tv2: np.ndarray,
    tflag2: np.ndarray,
    queue: np.ndarray,
    dst: np.ndarray,
) -> None:
    """Make row ``new_root`` of slot ``g`` the root, keeping its subtree, in place (tree reuse).

    Breadth-first into the scratch arrays, so that each node's children stay
    one block in their order, then back into the slot.
    """
    ti2[0, I_MOVE] = -1
    ti2[0, I_FIRST] = -1
    ti2[0, I_NCHILD] = 0
    for f in range(3):
        tf2[0, f] = tf[g, new_root, f]
    tv2[0] = tv[g, new_root]
    tflag2[0] = tflag[g, new_root]
    used = 1
    head = 0
    tail = 1
    queue[0] = new_root
    dst[0] = 0
    while head < tail:
        src = queue[head]
        at = dst[head]
        head += 1
        first = ti[g, src, I_FIRST]
        k = ti[g, src, I_NCHILD]
        if first < 0:
            continue
        ti2[at, I_FIRST] = used
        ti2[at, I_NCHILD] = k
        for j in range(k):
            s = first + j
            r = used + j
            ti2[r, I_MOVE] = ti[g, s, I_MOVE]
            ti2[r, I_FIRST] = -1
            ti2[r, I_NCHILD] = 0
            for f in range(3):
                tf2[r, f] = tf[g, s, f]
            tv2[r] = tv[g, s]
            tflag2[r] = tflag[g, s]
            if ti[g, s, I_FIRST] >= 0:
                queue[tail] = s
                dst[tail] = r
                tail += 1
        used += k
    for r in range(used):
        for f in range(3):
            ti[g, r, f] = ti2[r, f]
            tf[g, r, f] = tf2[r, f]
        tv[g, r] = tv2[r]
        tflag[g, r] = tflag2[r]
    ss[g, S_USED] = used


@njit(cache=True)
def set_bits(bits: np.ndarray, keys: np.ndarray, count: int) -> None:
    """The 65,536-bit filter of ``keys[:count]`` (bit ``key & 0xFFFF``), as ``GameState``'s history keeps it."""
    bits[:] = 0
    for i in range(count):
        b = keys[i] & 0xFFFF
        bits[b >> 3] |= np.uint8(1 << (b & 7))


@njit(cache=True)
def root_planes(buf: np.ndarray, hboards: np.ndarray, hcount: int, history: int, planes: np.ndarray) -> None:
    """The planes of the root position alone (a self-play sample), into ``planes[0]``."""
    n = buf[M_N]
    ring = np.empty((history, n * n), dtype=np.int8)
    for p in range(n * n):
        ring[0, p] = hboards[0, p]
    masks = np.zeros((1, n * n + 1), dtype=np.bool_)
    legal = np.empty(0, dtype=np.int16)
    _write_planes(planes, masks, 0, buf, ring, 0, hboards, hcount, history, legal, 0)
