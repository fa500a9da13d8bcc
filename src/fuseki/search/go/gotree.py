"""The Go MCTS tree in flat arrays, and the simulation loop, as Numba kernels.

Why flat arrays: a tree of Python objects costs a microsecond or more per
node visit, which alone would cap a search at a few thousand playouts per
second. Here a node is one row of two arrays, children are a contiguous
block of rows, and a whole simulation (descent, expansion, playout,
backup) runs in one kernel call:

``ti[node]`` (int32)
    ``T_MOVE`` the move into the node (unpadded index, ``N*N`` = pass; a
    negative value ``-1 - move`` marks a child the root may not play, such as
    a superko violation), ``T_FIRST`` its first child's row (-1 while
    unexpanded), ``T_NCHILD`` how many children.
``tf[node]`` (float32)
    ``F_N``/``F_W`` real visits and wins, ``F_PN``/``F_PW`` prior visits and
    wins (virtual experience from heuristics, as in Michi and Fuego),
    ``F_AN``/``F_AW`` AMAF (all-moves-as-first) visits and wins for RAVE,
    ``F_S``/``F_SS`` the sum and the sum of squares of the final score
    (area difference against komi) of the simulations through the node, so
    that analysis can report a mean score and its spread per move.
    Wins and scores are counted for the player who made the move into the node.
``th[0]``
    rows in use. The root is row 0.

Selection (Michi's, after Gelly and Silver 2007) maximises::

    value = (W + PW) / (N + PN)
    beta  = AN / (AN + N + PN + (N + PN) * AN / rave_equiv)
    score = beta * AW / AN + (1 - beta) * value  [+ c * sqrt(ln N_parent / (N + PN))]

with no exploration term by default: the priors and RAVE do that job. With
``c > 0`` and no priors or RAVE it is plain UCT (an unvisited child first).

Below the root, moves follow the simple ko rule; the root's children are
filtered against the game's real ko rule by the Python driver.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fuseki.go.kernels import (
    B_ENB,
    B_HEAD,
    BLACK,
    EMPTY,
    META,
    M_KO,
    M_LAST,
    M_MOVENUM,
    M_N,
    M_NEMPTY,
    M_NLEGAL,
    M_NP,
    M_PASSES,
    M_TOMOVE,
    M_W,
    NBLOCKS,
    OK,
    WHITE,
    PAD,
    UNPAD,
    is_eye_padded,
    legal_code_slow,
    place_stone,
    area_score,
)
from fuseki.search.go.flattree import FIRST, MOVE, NCHILD
from fuseki.search.go.playouts import (
    bad_self_atari,
    fix_atari,
    heavy_playout,
    light_playout,
    pat3_match,
    true_eye,
)

T_MOVE, T_FIRST, T_NCHILD = MOVE, FIRST, NCHILD  # the columns every flat tree shares
F_N, F_W, F_PN, F_PW, F_AN, F_AW, F_S, F_SS = 0, 1, 2, 3, 4, 5, 6, 7
NF = 8  # columns of ``tf``

# Parameter slots (a float64 array, so that one compiled kernel serves every setting).
P_EXPAND = 0  # visits before a leaf is expanded
P_RAVE_EQUIV = 1
P_C = 2  # UCB exploration constant (0 = none)
P_KOMI = 3
P_CAPTURE = 4  # playout: probability of trying the capture/atari heuristic
P_PAT3 = 5  # playout: probability of trying 3x3 patterns
P_SA = 6  # playout: probability of rejecting a self-atari heuristic move
P_SA_RANDOM = 7  # playout: probability of rejecting a self-atari random move
P_MAXMOVES = 8  # playout length limit
P_RAVE = 9  # 1 = use AMAF statistics in selection
P_PRIORS = 10  # 1 = heuristic priors in new nodes
P_POLICY = 11  # 0 = the book's light playout, 1 = heavy
P_PRIOR_EVEN = 12
P_PRIOR_CAPTURE_ONE = 13
P_PRIOR_CAPTURE_MANY = 14
P_PRIOR_PAT3 = 15
P_PRIOR_SELFATARI = 16
P_PRIOR_CFG1 = 17
P_PRIOR_CFG2 = 18
P_PRIOR_CFG3 = 19
P_PRIOR_EMPTYAREA = 20
P_LADDERS = 21  # 1 = read ladders for the capture/escape priors
P_LADDER_NODES = 22  # positions one ladder read may visit (priors)
P_PLAYOUT_LADDER_NODES = 23  # ... in a playout
NPARAMS = 24

MAX_DEPTH = 1024  # longest tree path a simulation may take


@njit(cache=True)
def _cfg_distances(buf: np.ndarray, start: int, dist: np.ndarray, stack: np.ndarray) -> None:
    """Common-fate-graph distance from padded ``start`` to every point (-1 = far).

    Stones of one string are one node: stepping within a string costs 0,
    any other step 1 (Michi's ``cfg_distances``, a label-correcting fill).
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    for q in range(np_):
        dist[q] = -1
    dist[start] = 0
    top = 0
    stack[top] = start
    top += 1
    while top > 0:
        top -= 1
        c = stack[top]
        dc = dist[c]
        bc = buf[META + c]
        for d in (c - w, c + w, c - 1, c + 1):
            b = buf[META + d]
            if b == 3:
                continue
            old = dist[d]
            if 0 <= old <= dc:
                continue
            nd = dc if (b != EMPTY and b == bc) else dc + 1
            if old < 0 or old > nd:
                dist[d] = nd
                if nd < 4 and top < stack.shape[0]:
                    stack[top] = d
                    top += 1


@njit(cache=True)
def _empty_area(buf: np.ndarray, q: int, radius: int) -> bool:
    """No stone within Manhattan distance ``radius`` of padded ``q``."""
    n = buf[M_N]
    w = buf[M_W]
    r0 = q // w - 1
    c0 = q % w - 1
    for dr in range(-radius, radius + 1):
        r = r0 + dr
        if r < 0 or r >= n:
            continue
        span = radius - abs(dr)
        for dc in range(-span, span + 1):
            c = c0 + dc
            if c < 0 or c >= n:
                continue
            b = buf[META + (r + 1) * w + c + 1]
            if b == BLACK or b == WHITE:
                return False
    return True


@njit(cache=True)
def expand(
    buf: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    th: np.ndarray,
    node: int,
    prm: np.ndarray,
    pn_add: np.ndarray,
    pw_add: np.ndarray,
    cand: np.ndarray,
    dist: np.ndarray,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
) -> bool:
    """Give ``node`` (whose position is ``buf``) its children; False when the tree is full.

    Children are the legal moves that fill no own eye, in random order, and
    pass. Priors (Michi's): every move starts at ``prior_even`` visits with
    half of them won; capture and atari-escape moves, pattern moves and moves
    close to the last one (common-fate-graph distance 1-3) get extra won
    visits; self-atari and first/second-line moves far from any stone get
    extra lost ones; third-line moves there get won ones.
    """
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    n2 = n * n
    color = buf[M_TOMOVE]
    e0 = META + NBLOCKS * np_
    ne = buf[M_NEMPTY]
    first = th[0]
    if first + ne + 1 > ti.shape[0]:
        return False
    even = prm[P_PRIOR_EVEN]
    priors = prm[P_PRIORS] != 0.0
    max_nodes = int(prm[P_LADDER_NODES]) if prm[P_LADDERS] != 0.0 else 0
    if priors:
        for q in range(np_):
            pn_add[q] = 0.0
            pw_add[q] = 0.0
        # Captures, counter-captures and escapes of strings in atari, and
        # ataris that catch a two-liberty string in a ladder: Michi's
        # fix_atari on every string, each move once, with the capture
        # bonus for one stone or several. An escape that only runs into a
        # ladder is no save: it gets no bonus here, and the self-atari
        # test below (which reads ladders too) gives it lost visits.
        sizes = cand[2 * np_ : 4 * np_]
        k = 0
        for q in range(np_):
            b = buf[META + q]
            if (b == BLACK or b == WHITE) and buf[META + B_HEAD * np_ + q] == q:
                k = fix_atari(buf, q, color, cand, sizes, k, False, cols, rmoves, rwork, max_nodes)
        for j in range(k):
            bonus = prm[P_PRIOR_CAPTURE_MANY] if sizes[j] > 1 else prm[P_PRIOR_CAPTURE_ONE]
            pn_add[cand[j]] += bonus
            pw_add[cand[j]] += bonus
        last = buf[M_LAST]
        have_cfg = 0 <= last < n2
        if have_cfg:
            _cfg_distances(buf, PAD[n, last], dist, cand)
    k = 0
    enb = META + B_ENB * np_
    michi_eyes = prm[P_POLICY] != 0.0  # the heavy playout's eye test (true_eye); the book's with its playout
    for e in range(ne):
        q = buf[e0 + e]
        if q == buf[M_KO]:
            continue
        if buf[enb + q] == 0:
            if legal_code_slow(buf, q, color) != OK:
                continue
            if true_eye(buf, q, color) if michi_eyes else is_eye_padded(buf, q, color):
                continue
        row = first + k
        k += 1
        ti[row, T_MOVE] = UNPAD[n, q]
        ti[row, T_FIRST] = -1
        ti[row, T_NCHILD] = 0
        pn = even
        pw = even * 0.5
        if priors:
            pn += pn_add[q]
            pw += pw_add[q]
            if pat3_match(buf, q):
                pn += prm[P_PRIOR_PAT3]
                pw += prm[P_PRIOR_PAT3]
            if have_cfg:
                d = dist[q]
                if d == 1:
                    pn += prm[P_PRIOR_CFG1]
                    pw += prm[P_PRIOR_CFG1]
                elif d == 2:
                    pn += prm[P_PRIOR_CFG2]
                    pw += prm[P_PRIOR_CFG2]
                elif d == 3:
                    pn += prm[P_PRIOR_CFG3]
                    pw += prm[P_PRIOR_CFG3]
            r = q // w - 1
            c = q % w - 1
            height = min(min(r, c), min(n - 1 - r, n - 1 - c))
            if height <= 2 and _empty_area(buf, q, 3):
                pn += prm[P_PRIOR_EMPTYAREA]
                if height == 2:
                    pw += prm[P_PRIOR_EMPTYAREA]
            if bad_self_atari(buf, q, color, False, cols, rmoves, rwork, max_nodes):
                pn += prm[P_PRIOR_SELFATARI]
        tf[row, F_N] = 0.0
        tf[row, F_W] = 0.0
        tf[row, F_PN] = pn
        tf[row, F_PW] = pw
        tf[row, F_AN] = 0.0
        tf[row, F_AW] = 0.0
        tf[row, F_S] = 0.0
        tf[row, F_SS] = 0.0
    # Shuffle, so that ties in selection go to a random child.
    for j in range(k - 1, 0, -1):
        i = np.random.randint(j + 1)
        a = first + i
        b = first + j
        for f in range(3):
            t = ti[a, f]
            ti[a, f] = ti[b, f]
            ti[b, f] = t
        for f in range(NF):
            t2 = tf[a, f]
            tf[a, f] = tf[b, f]
            tf[b, f] = t2
    # Pass, last. It starts as a loss (it rarely helps before the end) unless
    # nothing else is left. After the opponent's pass it ends the game, so
    # its value is known exactly: the area count against komi. It gets that
    # as a strong prior, because pass has no AMAF statistics and would
    # otherwise never catch up with RAVE-lifted moves that merely also win
    # (with priors on; plain UCT visits it like any other child).
    row = first + k
    k += 1
    ti[row, T_MOVE] = n2
    ti[row, T_FIRST] = -1
    ti[row, T_NCHILD] = 0
    tf[row, F_N] = 0.0
    tf[row, F_W] = 0.0
    pass_n = even
    pass_w = even * 0.5 if k == 1 else 0.0
    if priors and buf[M_PASSES] > 0:  # plain UCT finds it anyway: its playouts are exact
        diff = area_score(buf) - prm[P_KOMI]
        mine = diff if color == BLACK else -diff
        pass_n = max(even, 1.0) * 100.0
        pass_w = pass_n if mine > 0 else (0.5 * pass_n if mine == 0 else 0.0)
    tf[row, F_PN] = pass_n
    tf[row, F_PW] = pass_w
    tf[row, F_AN] = 0.0
    tf[row, F_AW] = 0.0
    tf[row, F_S] = 0.0
    tf[row, F_SS] = 0.0
    ti[node, T_FIRST] = first
    ti[node, T_NCHILD] = k
    th[0] = first + k
    return True


@njit(cache=True, inline="always")
def _select(ti: np.ndarray, tf: np.ndarray, node: int, prm: np.ndarray) -> int:
    """The child of ``node`` with the highest (RAVE-blended, optionally UCB) value."""
    first = ti[node, T_FIRST]
    rave = prm[P_RAVE] != 0.0
    equiv = prm[P_RAVE_EQUIV]
    cexp = prm[P_C]
    logn = math.log(tf[node, F_N] + 1.0) if cexp > 0.0 else 0.0
    best = -1
    best_u = -1e30
    for j in range(first, first + ti[node, T_NCHILD]):
        if ti[j, T_MOVE] < 0:
            continue
        v = tf[j, F_N] + tf[j, F_PN]
        if v <= 0.0:
            u = 1e10  # plain UCT: every child once before any twice
        else:
            u = (tf[j, F_W] + tf[j, F_PW]) / v
            an = tf[j, F_AN]
            if rave and an > 0.0:
                beta = an / (an + v + v * an / equiv)
                u = beta * tf[j, F_AW] / an + (1.0 - beta) * u
            if cexp > 0.0:
                u += cexp * math.sqrt(logn / v)
        if u > best_u:
            best_u = u
            best = j
    return best


@njit(cache=True)
def run_simulations(
    root: np.ndarray,
    work: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    th: np.ndarray,
    prm: np.ndarray,
    count: int,
    amaf: np.ndarray,
    path: np.ndarray,
    cand: np.ndarray,
    pn_add: np.ndarray,
    pw_add: np.ndarray,
    dist: np.ndarray,
    owner: np.ndarray,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    kinds: np.ndarray,
) -> int:
    """Run ``count`` simulations from position ``root`` on the tree; return how many ran.

    Each one copies the root into ``work``, descends by :func:`_select`
    (expanding a leaf once it has ``P_EXPAND`` visits), finishes the game with
    a playout, scores it by area against komi, and backs the result up the
    path, updating the AMAF statistics of every sibling whose move the
    player to move played first later in the simulation. ``owner[q]`` adds
    +1 when Black owns padded point ``q`` at the end and -1 for White.

    AMAF entries are ``(step << 2) | colour`` of the first play at a point,
    so that a node at depth d counts only moves made at step d or later.
    ``kinds`` counts the heavy playouts' moves by rule (:func:`heavy_playout`).
    """
    n = root[M_N]
    n2 = n * n
    np_ = root[M_NP]
    length = root.shape[0]
    root_color = root[M_TOMOVE]
    komi = prm[P_KOMI]
    heavy = prm[P_POLICY] != 0.0
    expand_at = prm[P_EXPAND]
    ladder_nodes = int(prm[P_PLAYOUT_LADDER_NODES]) if prm[P_LADDERS] != 0.0 else 0
    for _ in range(count):
        for i in range(length):
            work[i] = root[i]
        for q in range(np_):
            amaf[q] = 0
        node = 0
        depth = 0
        path[0] = 0
        prev = -1  # padded point of the move before the last (for the playout)
        while True:
            if work[M_PASSES] >= 2:
                break
            if ti[node, T_FIRST] < 0:
                if node != 0 and tf[node, F_N] < expand_at:
                    break
                if not expand(work, ti, tf, th, node, prm, pn_add, pw_add, cand, dist, cols, rmoves, rwork):
                    break
            if depth + 1 >= path.shape[0]:
                break
            child = _select(ti, tf, node, prm)
            if child < 0:
                break
            m = ti[child, T_MOVE]
            color = work[M_TOMOVE]
            lp = work[M_LAST]
            prev = PAD[n, lp] if 0 <= lp < n2 else -1
            if m == n2:
                work[M_PASSES] += 1
                work[M_KO] = -1
            else:
                q = PAD[n, m]
                if amaf[q] == 0:
                    amaf[q] = (depth << 2) | color
                place_stone(work, q, color)
                work[M_PASSES] = 0
            work[M_LAST] = m
            work[M_TOMOVE] = 3 - color
            work[M_MOVENUM] += 1
            depth += 1
            path[depth] = child
            node = child
        if work[M_PASSES] >= 2:
            work[M_NLEGAL] = -1
            diff = area_score(work)
        else:
            budget = int(prm[P_MAXMOVES]) - depth
            if budget < 1:
                budget = 1
            if heavy:
                heavy_playout(
                    work,
                    budget,
                    amaf,
                    prev,
                    prm[P_CAPTURE],
                    prm[P_PAT3],
                    prm[P_SA],
                    prm[P_SA_RANDOM],
                    cand,
                    depth,
                    kinds,
                    cols,
                    rmoves,
                    rwork,
                    ladder_nodes,
                )
            else:
                light_playout(work, budget, amaf, depth)
            diff = -(1 << 30)  # counted below, with the ownership
        # Ownership at the end of the simulation (and the playout's score,
        # in the same pass: see playout_score for why this count is exact).
        w = work[M_W]
        count = 0
        for r in range(n):
            q = (r + 1) * w + 1
            for _ in range(n):
                b = work[META + q]
                if b == BLACK:
                    owner[q] += 1.0
                    count += 1
                elif b == WHITE:
                    owner[q] -= 1.0
                    count -= 1
                else:
                    seen = 0
                    for d in (q - w, q + w, q - 1, q + 1):
                        v = work[META + d]
                        if v == BLACK or v == WHITE:
                            seen |= v
                    if seen == BLACK:
                        owner[q] += 1.0
                        count += 1
                    elif seen == WHITE:
                        owner[q] -= 1.0
                        count -= 1
                q += 1
        if diff == -(1 << 30):
            diff = count
        black_score = diff - komi
        if diff > komi:
            black_result = 1.0
        elif diff < komi:
            black_result = 0.0
        else:
            black_result = 0.5
        # Back up along the path. The mover into path[d] is the player to move at depth d-1.
        use_rave = prm[P_RAVE] != 0.0
        for d in range(depth + 1):
            nd = path[d]
            to_move = root_color if d % 2 == 0 else 3 - root_color
            mover = 3 - to_move
            tf[nd, F_N] += 1.0
            tf[nd, F_W] += black_result if mover == BLACK else 1.0 - black_result
            mine = black_score if mover == BLACK else -black_score
            tf[nd, F_S] += mine
            tf[nd, F_SS] += mine * mine
            if use_rave and ti[nd, T_FIRST] >= 0:
                res = black_result if to_move == BLACK else 1.0 - black_result
                first = ti[nd, T_FIRST]
                for j in range(first, first + ti[nd, T_NCHILD]):
                    mv = ti[j, T_MOVE]
                    if mv < 0 or mv >= n2:
                        continue
                    a = amaf[PAD[n, mv]]
                    if a != 0 and (a & 3) == to_move and (a >> 2) >= d:
                        tf[j, F_AN] += 1.0
                        tf[j, F_AW] += res
    return count


@njit(cache=True)
def principal_variation(ti: np.ndarray, tf: np.ndarray, row: int, out: np.ndarray, visits: np.ndarray) -> int:
    """The line from tree row ``row``: its move, then the most visited child's, and so on.

    Writes the moves (unpadded indices, ``N*N`` = pass) into ``out`` and each
    node's visits into ``visits`` (same length); returns how many. Stops at a
    node without visited children or when ``out`` is full. A Numba kernel
    because analysis asks for one line per root move several times a second.
    """
    if out.shape[0] == 0:
        return 0
    m = ti[row, T_MOVE]
    out[0] = m if m >= 0 else -1 - m
    visits[0] = tf[row, F_N]
    k = 1
    node = row
    while k < out.shape[0]:
        first = ti[node, T_FIRST]
        if first < 0:
            break
        best = -1
        best_n = 0.0
        for j in range(first, first + ti[node, T_NCHILD]):
            if ti[j, T_MOVE] >= 0 and tf[j, F_N] > best_n:
                best_n = tf[j, F_N]
                best = j
        if best < 0:
            break
        out[k] = ti[best, T_MOVE]
        visits[k] = best_n
        k += 1
        node = best
    return k
