"""A small, fast ladder reader for the heavy playouts and the priors (Numba).

Michi's playouts ask "does this string die in a ladder?" before saving a
string in atari, and before a move that leaves two liberties at the edge;
its priors ask it for every two-liberty string. The answer is the same as
that of :func:`fuseki.go.ladder.ladder_search` (the attacker only ataris a
two-liberty string, the defender only extends on its last liberty or
captures an adjacent attacker in atari, three liberties escape), but asked
hundreds of times per playout it must be cheap. That reader copies the whole
incremental board buffer (string tables, hash, empty list: 5 KB on 9×9) at
every ply, which made the heavy playouts three times slower. This one reads
on a bare copy of the colours (one byte a point) and counts liberties by
flood fill, as michi-c does: strings in a ladder are small.

Simple ko is kept while reading (a capture that the ladder makes is often a
ko that the defender may not retake at once); reading stops after ``max_nodes`` positions or when
the stack is full, and then counts as an escape.

Scratch space (:func:`reader_stack`): ``cols`` (depth + 1 boards of
``int8`` colours), ``rmoves`` (candidate moves a ply) and ``rwork`` (an
``int64`` array holding the per-ply counters and ko points, a mark array
with its stamp, and two point stacks).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fuseki.go.kernels import BLACK, EMPTY, META, M_KO, M_NP, M_W, WHITE
from fuseki.go.ladder import ladder_add_move, ladder_moves, ladder_settle

__all__ = ["READER_DEPTH", "READER_MOVES", "reader_stack", "load", "play", "libs", "ladder_read"]

#: Plies a read may go (a ladder across a 19×19 board takes about 40).
READER_DEPTH = 64
#: The defender's candidates at one ply: extend, or capture one of up to 15 attackers.
READER_MOVES = 16


def reader_stack(size: int, depth: int = READER_DEPTH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for a ``size`` × ``size`` board: ``(cols, rmoves, rwork)``."""
    np_ = (size + 2) ** 2
    cols = np.zeros((depth + 1, np_), dtype=np.int8)
    rmoves = np.zeros((depth + 1, READER_MOVES), dtype=np.int64)
    # nmoves[depth + 1], idx[depth + 1], ko[depth + 1], stamp[1], mark[np], stack[np], group[np]
    rwork = np.zeros(3 * (depth + 1) + 1 + 3 * np_, dtype=np.int64)
    return cols, rmoves, rwork


@njit(cache=True)
def load(buf: np.ndarray, cols: np.ndarray) -> None:
    """Copy the colours of an incremental board buffer (:mod:`fuseki.go.kernels`) into ``cols[0]``."""
    np_ = buf[M_NP]
    c0 = cols[0]
    for q in range(np_):
        c0[q] = buf[META + q]


@njit(cache=True)
def libs(col: np.ndarray, q: int, w: int, rwork: np.ndarray, limit: int) -> tuple[int, int, int]:
    """Distinct liberties of the string at ``q`` (counted up to ``limit``), and the first two (-1 if none)."""
    depth1 = (rwork.shape[0] - 1 - 3 * col.shape[0]) // 3
    np_ = col.shape[0]
    st = 3 * depth1
    mark0 = st + 1
    stk0 = mark0 + np_
    rwork[st] += 1
    s = rwork[st]
    color = col[q]
    top = 0
    rwork[stk0] = q
    top = 1
    rwork[mark0 + q] = s
    count = 0
    l1 = -1
    l2 = -1
    while top > 0:
        top -= 1
        p = rwork[stk0 + top]
        for nb in (p - w, p + w, p - 1, p + 1):
            if rwork[mark0 + nb] == s:
                continue
            c = col[nb]
            if c == color:
                rwork[mark0 + nb] = s
                rwork[stk0 + top] = nb
                top += 1
            elif c == EMPTY:
                rwork[mark0 + nb] = s
                if count == 0:
                    l1 = nb
                elif count == 1:
                    l2 = nb
                count += 1
                if count >= limit:
                    return count, l1, l2
    return count, l1, l2


@njit(cache=True)
def _remove(col: np.ndarray, q: int, w: int, rwork: np.ndarray) -> None:
    """Take the string at ``q`` off the board."""
    np_ = col.shape[0]
    stk0 = rwork.shape[0] - 2 * np_  # the stack area
    color = col[q]
    col[q] = EMPTY
    rwork[stk0] = q
    top = 1
    while top > 0:
        top -= 1
        p = rwork[stk0 + top]
        for nb in (p - w, p + w, p - 1, p + 1):
            if col[nb] == color:
                col[nb] = EMPTY
                rwork[stk0 + top] = nb
                top += 1


@njit(cache=True)
def play(col: np.ndarray, q: int, color: int, w: int, rwork: np.ndarray, ko: int) -> int:
    """Put a ``color`` stone on empty ``q`` with its captures, simple ko ``ko`` forbidden.

    Returns -1 (and changes nothing) for an occupied point, the ko point or
    suicide; else the point that simple ko forbids next (0, a border point,
    if none): the captured stone's, when one stone was taken by a lone stone
    left with that one liberty.
    """
    if col[q] != EMPTY or q == ko:
        return -1
    col[q] = color
    opp = 3 - color
    taken = 0
    last = 0
    for nb in (q - w, q + w, q - 1, q + 1):
        if col[nb] == opp and libs(col, nb, w, rwork, 1)[0] == 0:
            # One stone or more: count up to two (a lone captured stone may make a ko).
            if col[nb - w] != opp and col[nb + w] != opp and col[nb - 1] != opp and col[nb + 1] != opp:
                taken += 1
                last = nb
            else:
                taken += 2
            _remove(col, nb, w, rwork)
    if taken == 0:
        if libs(col, q, w, rwork, 1)[0] == 0:
            col[q] = EMPTY
            return -1
        return 0
    if taken == 1:
        lone = col[q - w] != color and col[q + w] != color and col[q - 1] != color and col[q + 1] != color
        if lone and libs(col, q, w, rwork, 2)[0] == 1:
            return last
    return 0


@njit(cache=True)
def _node(cols: np.ndarray, rmoves: np.ndarray, rwork: np.ndarray, d: int, q: int, defender: int, to_move: int, w: int) -> int:
    """Look at the position ``cols[d]``: 1 captured, 0 escaped, -1 read on (``rmoves[d]`` filled)."""
    col = cols[d]
    if col[q] != defender:
        return 1
    count, l1, l2 = libs(col, q, w, rwork, 3)
    verdict, nm = ladder_moves(rmoves, d, count, l1, l2, to_move != defender)
    rwork[d] = nm  # nmoves[d]
    if verdict >= 0 or to_move != defender:
        return verdict
    # Counter-captures: attacker strings in atari next to the defender. The
    # defender's stones are collected first (libs() reuses the mark array).
    np_ = col.shape[0]
    grp0 = rwork.shape[0] - np_
    stk0 = grp0 - np_
    attacker = 3 - defender
    col[q] = 3  # flood with a temporary colour
    rwork[stk0] = q
    top = 1
    ng = 0
    while top > 0:
        top -= 1
        p = rwork[stk0 + top]
        rwork[grp0 + ng] = p
        ng += 1
        for nb in (p - w, p + w, p - 1, p + 1):
            if col[nb] == defender:
                col[nb] = 3
                rwork[stk0 + top] = nb
                top += 1
    for i in range(ng):
        col[rwork[grp0 + i]] = defender
    for i in range(ng):
        p = rwork[grp0 + i]
        for nb in (p - w, p + w, p - 1, p + 1):
            if col[nb] == attacker:
                c, a, _ = libs(col, nb, w, rwork, 2)
                if c == 1:
                    nm = ladder_add_move(rmoves, d, nm, a, READER_MOVES)
    rwork[d] = nm
    return -1


@njit(cache=True)
def ladder_read(cols: np.ndarray, rmoves: np.ndarray, rwork: np.ndarray, q: int, to_move: int, ko: int, w: int, max_nodes: int) -> bool:
    """Is the string at ``q`` in ``cols[0]`` lost to a ladder, ``to_move`` moving first, ``ko`` forbidden? (AND-OR search.)

    The same search as :func:`fuseki.go.ladder.ladder_search`, on colour
    boards: reading that runs out of depth or of ``max_nodes`` positions
    counts as an escape.
    """
    defender = cols[0, q]
    if defender != BLACK and defender != WHITE:
        return False
    max_depth = cols.shape[0] - 1
    idx0 = max_depth + 1  # idx[d] lives at rwork[idx0 + d], the ko point of cols[d] at rwork[ko0 + d]
    ko0 = 2 * (max_depth + 1)
    rwork[ko0] = ko
    nodes = 1
    r = _node(cols, rmoves, rwork, 0, q, defender, to_move, w)
    if r >= 0:
        return r == 1
    rwork[idx0] = 0
    d = 0
    while True:
        mover = to_move if d % 2 == 0 else 3 - to_move
        attacker_node = mover != defender
        result = -1
        if rwork[idx0 + d] >= rwork[d]:
            result = 0 if attacker_node else 1
        else:
            m = rmoves[d, rwork[idx0 + d]]
            rwork[idx0 + d] += 1
            if d + 1 > max_depth or nodes >= max_nodes:
                result = 0  # out of reading: the string escapes
            else:
                child = cols[d + 1]
                child[:] = cols[d]
                k = play(child, m, mover, w, rwork, rwork[ko0 + d])
                if k < 0:
                    continue
                rwork[ko0 + d + 1] = k
                nodes += 1
                c = _node(cols, rmoves, rwork, d + 1, q, defender, 3 - mover, w)
                if c < 0:
                    d += 1
                    rwork[idx0 + d] = 0
                    continue
                if attacker_node != (c == 1):
                    continue
                result = c
        d = ladder_settle(d, result, to_move != defender)
        if d < 0:
            return result == 1
    return False


@njit(cache=True)
def ladder_after_move(buf: np.ndarray, q: int, color: int, cols: np.ndarray, rmoves: np.ndarray, rwork: np.ndarray, max_nodes: int) -> bool:
    """``color`` plays at padded ``q`` in ``buf``: is the string it makes then lost to a ladder, the opponent moving first?"""
    load(buf, cols)
    w = buf[M_W]
    ko = play(cols[0], q, color, w, rwork, buf[M_KO])
    if ko < 0:
        return False
    return ladder_read(cols, rmoves, rwork, q, 3 - color, ko, w, max_nodes)
