"""AlphaGo's search tree in flat arrays, as Numba kernels (Silver et al. 2016, Methods, "Search algorithm").

The same layout as :mod:`fuseki.search.go.gotree` (a node is one row of an
int32 and a float64 array, children one contiguous block; the columns they
share, and tree reuse, are in :mod:`fuseki.search.go.flattree`), with
AlphaGo's statistics:

``ti[node]`` (int32)
    ``A_MOVE`` the move into the node (unpadded, ``N*N`` = pass; ``-1 - move``
    for a root move the game's ko rule forbids), ``A_FIRST`` the first child
    (-1 while unexpanded), ``A_NCHILD``, ``A_FLAGS`` (``FLAG_PRIORS``: the
    policy network's priors are in; ``FLAG_VALUE``: the value network's
    estimate is in; ``FLAG_PENDING``: both are asked for and not back yet).
``tf[node]`` (float64)
    ``A_N`` simulations through the node; ``A_WR`` rollout wins; ``A_NV`` and
    ``A_WV`` value-network evaluations and their sum; ``A_P`` the prior of the
    move into the node; ``A_V`` the node's own value estimate (Black's win
    probability). Wins and values are for the player who made the move into
    the node.

One simulation (:func:`simulate`):

1. **selection**: from the root, the child maximising ``Q + u`` with
   ``u = c_puct · P · sqrt(N_parent) / (1 + N)`` and
   ``Q = (1 − λ)·W_r/N + λ·W_v/N_v`` (each part only when it has data; an
   unvisited child gets the parent's value, "first-play urgency");
2. **expansion**: a leaf visited ``expand_visits`` times gets its children
   (legal moves that fill no true eye, and pass) with the rollout policy's
   probabilities as placeholder priors (the paper's tree policy does this
   job), and goes into the evaluation queue: the caller runs the SL policy
   (priors) and the value network on the whole queue in one batch and hands
   the results to :func:`apply_evaluations`. While a leaf waits, every node
   on its path counts ``virtual_loss`` lost value evaluations, so the next
   simulations of the batch look elsewhere;
3. **evaluation**: a rollout from the leaf to the end of the game with the
   fast rollout policy (or the engine's heavy playout), scored by area
   against komi: ``z``. The value side is the estimate of the deepest node
   on the path whose value is known;
4. **backup**: ``N`` and ``W_r`` along the path; ``N_v`` and ``W_v`` on the
   nodes above the valued node.

``λ = 0`` skips the value network, ``λ = 1`` the rollouts (then every leaf
is expanded on its first visit, as in AlphaGo Zero). Q is kept in [0, 1];
the paper's ``c_puct = 5`` is for values in [-1, 1], which is ``2.5`` here
(:class:`fuseki.search.go.alphago_search.AlphaGoConfig` converts).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fuseki.encoders._features import alphago_planes
from fuseki.go.kernels import (
    BLACK,
    EMPTY,
    M_KO,
    M_LAST,
    M_MOVENUM,
    M_N,
    M_NEMPTY,
    M_NLEGAL,
    M_PASSES,
    M_TOMOVE,
    PAD,
    UNPAD,
    area_score,
    legal_points,
    place_stone,
)
from fuseki.go.ladder import LADDER_MAX_NODES
from fuseki.search.go.flattree import FIRST, MOVE, NCHILD
from fuseki.search.go.playouts import heavy_playout, light_playout, playout_score
from fuseki.search.go.rollout_policy import policy_rollout, score_candidates

A_MOVE, A_FIRST, A_NCHILD = MOVE, FIRST, NCHILD  # the columns every flat tree shares
A_FLAGS = 3
A_N, A_WR, A_NV, A_WV, A_P, A_V = 0, 1, 2, 3, 4, 5
TI_COLS, TF_COLS = 4, 6
FLAG_PRIORS, FLAG_VALUE, FLAG_PENDING = 1, 2, 4

# Parameter slots.
Q_CPUCT = 0  # on the [0, 1] scale of Q
Q_LAMBDA = 1
Q_EXPAND = 2  # visits before a leaf is expanded and evaluated
Q_VL = 3  # virtual loss, in value evaluations
Q_KOMI = 4
Q_MAXMOVES = 5  # rollout length limit
Q_ROLLOUT = 6  # 0 = the rollout policy, 1 = heavy playout, 2 = light playout
Q_PASS_PRIOR = 7  # prior of pass (after the opponent's pass: Q_PASS_PRIOR_AFTER)
Q_PASS_PRIOR_AFTER = 8
Q_DEPTH = 9  # longest path in the tree (the book's ``depth``)
Q_CAPTURE, Q_PAT3, Q_SA, Q_SA_RANDOM = 10, 11, 12, 13  # heavy playout probabilities
Q_LADDER_NODES = 14  # positions one ladder read of a heavy playout may visit (the MCTS engine's playout_ladder_nodes)
Q_FPU_REDUCTION = 15  # first-play urgency below the parent's value: this times sqrt(the visited children's priors)
NPARAMS = 16

MAX_DEPTH = 512
HIST = 8  # moves of history a queued position carries (for the "turns since" planes)


@njit(cache=True)
def expand(
    buf: np.ndarray,
    last2: int,
    ti: np.ndarray,
    tf: np.ndarray,
    th: np.ndarray,
    node: int,
    prm: np.ndarray,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
) -> bool:
    """Give ``node`` (position ``buf``) its children with the rollout policy's priors; False when the tree is full."""
    n = buf[M_N]
    n2 = n * n
    first = th[0]
    if first + buf[M_NEMPTY] + 1 > ti.shape[0]:
        return False
    k, best = score_candidates(buf, last2, w6, wr, ws, points, scores)
    total = 0.0
    for i in range(k):
        scores[i] = math.exp(scores[i] - best)
        total += scores[i]
    pass_prior = prm[Q_PASS_PRIOR_AFTER] if buf[M_PASSES] > 0 else prm[Q_PASS_PRIOR]
    if k == 0:
        pass_prior = 1.0
    for i in range(k):
        row = first + i
        ti[row, A_MOVE] = UNPAD[n, points[i]]
        ti[row, A_FIRST] = -1
        ti[row, A_NCHILD] = 0
        ti[row, A_FLAGS] = 0
        for f in range(TF_COLS):
            tf[row, f] = 0.0
        tf[row, A_P] = (1.0 - pass_prior) * scores[i] / total
    row = first + k
    ti[row, A_MOVE] = n2
    ti[row, A_FIRST] = -1
    ti[row, A_NCHILD] = 0
    ti[row, A_FLAGS] = 0
    for f in range(TF_COLS):
        tf[row, f] = 0.0
    tf[row, A_P] = pass_prior
    ti[node, A_FIRST] = first
    ti[node, A_NCHILD] = k + 1
    th[0] = first + k + 1
    return True


@njit(cache=True, inline="always")
def _q(tf: np.ndarray, j: int, lam: float, fpu: float) -> float:
    n = tf[j, A_N]
    nv = tf[j, A_NV]
    if lam <= 0.0:
        return tf[j, A_WR] / n if n > 0.0 else fpu
    if lam >= 1.0:
        return tf[j, A_WV] / nv if nv > 0.0 else fpu
    if n > 0.0 and nv > 0.0:
        return (1.0 - lam) * tf[j, A_WR] / n + lam * tf[j, A_WV] / nv
    if n > 0.0:
        return tf[j, A_WR] / n
    if nv > 0.0:
        return tf[j, A_WV] / nv
    return fpu


@njit(cache=True)
def select_child(ti: np.ndarray, tf: np.ndarray, node: int, prm: np.ndarray) -> int:
    """The child of ``node`` maximising Q + u (the paper's selection rule)."""
    first = ti[node, A_FIRST]
    lam = prm[Q_LAMBDA]
    # First-play urgency: the node's own value for the player to move there (1 - its mover's).
    fpu = 1.0 - _q(tf, node, lam, 0.5) if (tf[node, A_N] > 0.0 or tf[node, A_NV] > 0.0) else 0.5
    reduction = prm[Q_FPU_REDUCTION]
    if reduction > 0.0:
        # Leela Zero's reduction: the more of the policy's mass the visited children hold, the less an unvisited
        # one is worth trying. Without it, noisy rollout values make the search try every move on a 19x19 root.
        seen = 0.0
        for j in range(first, first + ti[node, A_NCHILD]):
            if tf[j, A_N] > 0.0 or tf[j, A_NV] > 0.0:
                seen += tf[j, A_P]
        fpu -= reduction * math.sqrt(seen)
    sq = prm[Q_CPUCT] * math.sqrt(max(tf[node, A_N], 1.0))
    best = -1
    best_u = -1e30
    for j in range(first, first + ti[node, A_NCHILD]):
        if ti[j, A_MOVE] < 0:
            continue
        u = _q(tf, j, lam, fpu) + sq * tf[j, A_P] / (1.0 + tf[j, A_N])
        if u > best_u:
            best_u = u
            best = j
    return best


@njit(cache=True)
def simulate(
    root: np.ndarray,
    root_hist: np.ndarray,
    ti: np.ndarray,
    tf: np.ndarray,
    th: np.ndarray,
    prm: np.ndarray,
    count: int,
    work: np.ndarray,
    path: np.ndarray,
    moves: np.ndarray,
    qbufs: np.ndarray,
    qhist: np.ndarray,
    qnode: np.ndarray,
    qpath: np.ndarray,
    qdepth: np.ndarray,
    qcount: int,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
    amaf: np.ndarray,
    cand: np.ndarray,
    kinds: np.ndarray,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
) -> tuple[int, int]:
    """Run up to ``count`` simulations; stop early when the evaluation queue (``qbufs``) is full.

    ``root_hist[0..7]``: the game's last moves before the root, most recent
    first (-1: none). Returns ``(simulations run, queue length)``.
    """
    n = root[M_N]
    n2 = n * n
    root_color = root[M_TOMOVE]
    komi = prm[Q_KOMI]
    lam = prm[Q_LAMBDA]
    do_rollout = lam < 1.0
    use_value = lam > 0.0
    expand_at = prm[Q_EXPAND]
    vl = prm[Q_VL]
    qmax = qbufs.shape[0]
    max_depth = min(int(prm[Q_DEPTH]), path.shape[0] - 1)
    done = 0
    while done < count and qcount < qmax:
        work[:] = root
        node = 0
        depth = 0
        path[0] = 0
        dv = 0 if (ti[0, A_FLAGS] & FLAG_VALUE) != 0 else -1
        queued = False
        while True:
            if work[M_PASSES] >= 2:
                break
            if ti[node, A_FIRST] < 0:
                if node != 0 and tf[node, A_N] + 1.0 < expand_at:
                    break
                if depth >= max_depth:
                    break
                last2 = -1
                if depth >= 2:
                    m2 = moves[depth - 2]
                    last2 = PAD[n, m2] if m2 < n2 else -1
                elif depth == 1:
                    m2 = root_hist[0]
                    last2 = PAD[n, m2] if 0 <= m2 < n2 else -1
                else:
                    m2 = root_hist[1]
                    last2 = PAD[n, m2] if 0 <= m2 < n2 else -1
                if not expand(work, last2, ti, tf, th, node, prm, w6, wr, ws, points, scores):
                    break
                if (ti[node, A_FLAGS] & (FLAG_PENDING | FLAG_PRIORS)) == 0:
                    # Queue the new node for the SL policy (and the value network).
                    ti[node, A_FLAGS] |= FLAG_PENDING
                    qbufs[qcount, :] = work
                    k = 0
                    for j in range(depth - 1, -1, -1):
                        if k < HIST:
                            qhist[qcount, k] = moves[j]
                            k += 1
                    j = 0
                    while k < HIST:
                        qhist[qcount, k] = root_hist[j]
                        k += 1
                        j += 1
                    qnode[qcount] = node
                    qdepth[qcount] = depth
                    for j in range(depth + 1):
                        qpath[qcount, j] = path[j]
                        if use_value and j > 0:
                            tf[path[j], A_NV] += vl
                    qcount += 1
                    queued = True
                break
            if depth >= max_depth:
                break
            child = select_child(ti, tf, node, prm)
            if child < 0:
                break
            m = ti[child, A_MOVE]
            color = work[M_TOMOVE]
            if m == n2:
                work[M_PASSES] += 1
                work[M_KO] = -1
            else:
                place_stone(work, PAD[n, m], color)
                work[M_PASSES] = 0
            work[M_LAST] = m
            work[M_TOMOVE] = 3 - color
            work[M_MOVENUM] += 1
            work[M_NLEGAL] = -1
            moves[depth] = m
            depth += 1
            path[depth] = child
            node = child
            if (ti[node, A_FLAGS] & FLAG_VALUE) != 0:
                dv = depth
        # Evaluation.
        terminal = work[M_PASSES] >= 2
        if terminal:
            diff = float(area_score(work))
        elif do_rollout:
            if depth >= 2:
                lp = moves[depth - 2]
            else:
                lp = root_hist[1 - depth]
            last2 = PAD[n, lp] if 0 <= lp < n2 else -1
            budget = int(prm[Q_MAXMOVES])
            mode = int(prm[Q_ROLLOUT])
            if mode == 0:
                diff = float(policy_rollout(work, last2, budget, w6, wr, ws, points, scores))
            elif mode == 1:
                amaf[:] = 0
                heavy_playout(
                    work,
                    budget,
                    amaf,
                    last2,
                    prm[Q_CAPTURE],
                    prm[Q_PAT3],
                    prm[Q_SA],
                    prm[Q_SA_RANDOM],
                    cand,
                    0,
                    kinds,
                    cols,
                    rmoves,
                    rwork,
                    int(prm[Q_LADDER_NODES]),
                )
                diff = float(playout_score(work))
            else:
                amaf[:] = 0
                light_playout(work, budget, amaf, 0)
                diff = float(playout_score(work))
        else:
            diff = 0.0
        black = 1.0 if diff > komi else (0.0 if diff < komi else 0.5)
        # Backup.
        tf[0, A_N] += 1.0
        if do_rollout or terminal:
            # The root's rollout wins too, for the player who moved into it, as every node's: its children's
            # first-play urgency is 1 - their share. Left at 0, it made an unvisited root move worth a certain win,
            # and the search tried every legal move at the root (on 19x19 half the simulations went to them).
            tf[0, A_WR] += black if root_color != BLACK else 1.0 - black
        for j in range(1, depth + 1):
            nd = path[j]
            mover = root_color if (j - 1) % 2 == 0 else 3 - root_color
            r = black if mover == BLACK else 1.0 - black
            tf[nd, A_N] += 1.0
            if do_rollout or terminal:
                tf[nd, A_WR] += r
            if terminal:
                tf[nd, A_NV] += 1.0
                tf[nd, A_WV] += r
        if use_value and not terminal and not queued and dv > 0:
            vb = tf[path[dv], A_V]
            for j in range(1, dv + 1):
                nd = path[j]
                mover = root_color if (j - 1) % 2 == 0 else 3 - root_color
                tf[nd, A_NV] += 1.0
                tf[nd, A_WV] += vb if mover == BLACK else 1.0 - vb
        done += 1
    return done, qcount


@njit(cache=True)
def encode_queue(qbufs: np.ndarray, qhist: np.ndarray, count: int, out: np.ndarray) -> None:
    """The 49 AlphaGo planes (48 for the policy, plus the player plane) of queued positions into zeroed ``out``."""
    for i in range(count):
        buf = qbufs[i]
        n = buf[M_N]
        n2 = n * n
        pts = legal_points(buf)
        legal = np.empty(pts.shape[0] - 1, dtype=np.int32)
        for j in range(pts.shape[0] - 1):
            legal[j] = pts[j]
        ages = np.zeros(n2, dtype=np.int32)
        for k in range(HIST - 1):
            m = qhist[i, k]
            if 0 <= m < n2 and ages[m] == 0:
                ages[m] = k + 1
        alphago_planes(buf, legal, ages, out[i], True, LADDER_MAX_NODES)


@njit(cache=True)
def apply_evaluations(
    ti: np.ndarray,
    tf: np.ndarray,
    prm: np.ndarray,
    qbufs: np.ndarray,
    qnode: np.ndarray,
    qpath: np.ndarray,
    qdepth: np.ndarray,
    count: int,
    priors: np.ndarray,
    values: np.ndarray,
    have_priors: bool,
    have_values: bool,
) -> None:
    """Put the networks' answers for the queue into the tree and take the virtual losses back.

    ``priors[i]``: the SL policy's probabilities over the ``N*N`` points for
    queued position ``i``; they replace its children's placeholder priors,
    renormalised over the children, pass keeping its own prior.
    ``values[i]``: the value network's ``v`` in [-1, 1] for the player to move there.
    """
    vl = prm[Q_VL]
    for i in range(count):
        node = qnode[i]
        buf = qbufs[i]
        n = buf[M_N]
        n2 = n * n
        first = ti[node, A_FIRST]
        k = ti[node, A_NCHILD]
        if have_priors and first >= 0:
            total = 0.0
            pass_prior = 0.0
            for j in range(first, first + k):
                m = ti[j, A_MOVE]
                m = m if m >= 0 else -1 - m
                if m < n2:
                    total += priors[i, m]
                else:
                    pass_prior = tf[j, A_P]
            if total > 0.0:
                for j in range(first, first + k):
                    m = ti[j, A_MOVE]
                    m = m if m >= 0 else -1 - m
                    if m < n2:
                        tf[j, A_P] = (1.0 - pass_prior) * priors[i, m] / total
            ti[node, A_FLAGS] |= FLAG_PRIORS
        ti[node, A_FLAGS] &= ~FLAG_PENDING
        depth = qdepth[i]
        if have_values:
            v = values[i]
            to_move = buf[M_TOMOVE]
            vb = (1.0 + v) / 2.0 if to_move == BLACK else (1.0 - v) / 2.0
            tf[node, A_V] = vb
            ti[node, A_FLAGS] |= FLAG_VALUE
            for j in range(1, depth + 1):
                nd = qpath[i, j]
                tf[nd, A_NV] += 1.0 - vl
                # The mover into path node j: the root's player for odd j, the other for even j.
                # to_move is the player at depth ``depth``; at depth j - 1 it is to_move when (depth - j + 1) is even.
                mover = to_move if (depth - (j - 1)) % 2 == 0 else 3 - to_move
                tf[nd, A_WV] += vb if mover == BLACK else 1.0 - vb


_ = EMPTY  # imported for readers of the buffer layout
