"""What the two flat-array search trees share: the MCTS engine's and AlphaGo's.

Both (:mod:`fuseki.search.go.gotree` and :mod:`fuseki.search.go.agtree`)
keep a node as one row of an int32 array ``ti`` and a float array ``tf``,
the children of a node as one contiguous block of rows, the root at row 0. The first three columns of ``ti`` mean the same in both:

``ti[node, MOVE]``
    the move into the node (unpadded index, ``N*N`` = pass; ``-1 - move``
    marks a root move that the game's ko rule forbids);
``ti[node, FIRST]``
    the row of its first child (-1 while unexpanded);
``ti[node, NCHILD]``
    how many children it has.

The other columns are each tree's own. What lives here is what works on the
shared part only: copying the subtree of the moves played into a new tree
for the next search (tree reuse, :func:`compact`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MOVE", "FIRST", "NCHILD", "compact"]

MOVE, FIRST, NCHILD = 0, 1, 2


@njit(cache=True)
def compact(
    ti: np.ndarray,
    tf: np.ndarray,
    new_root: int,
    ti2: np.ndarray,
    tf2: np.ndarray,
    queue: np.ndarray,
    flags: int,
    keep: int,
) -> int:
    """Copy the subtree under ``new_root`` into ``ti2``/``tf2`` with it at row 0 (tree reuse); rows used.

    Breadth-first, so each node's children stay one contiguous block. A
    subtree that no longer fits in ``ti2`` (or ``queue``) is cut: its root
    stays, unexpanded. ``flags`` is a column of ``ti`` holding bit flags (-1:
    none): a copied node keeps only the bits of ``keep``, and gets back all of
    its own once its children come along too (bits such as "the priors of my
    children are in" belong to the children).
    """
    for f in range(ti.shape[1]):
        ti2[0, f] = ti[new_root, f]
    for f in range(tf.shape[1]):
        tf2[0, f] = tf[new_root, f]
    ti2[0, FIRST] = -1
    ti2[0, NCHILD] = 0
    if flags >= 0:
        ti2[0, flags] = ti[new_root, flags] & keep
    used = 1
    head = 0
    tail = 0
    queue[tail] = new_root
    tail += 1
    dst = np.empty(queue.shape[0], dtype=np.int64)
    dst[0] = 0
    while head < tail:
        src = queue[head]
        at = dst[head]
        head += 1
        first = ti[src, FIRST]
        k = ti[src, NCHILD]
        if first < 0 or k == 0 or used + k > ti2.shape[0]:
            continue
        ti2[at, FIRST] = used
        ti2[at, NCHILD] = k
        if flags >= 0:
            ti2[at, flags] = ti[src, flags]
        for j in range(k):
            s = first + j
            r = used + j
            for f in range(ti.shape[1]):
                ti2[r, f] = ti[s, f]
            for f in range(tf.shape[1]):
                tf2[r, f] = tf[s, f]
            ti2[r, FIRST] = -1
            ti2[r, NCHILD] = 0
            if flags >= 0:
                ti2[r, flags] = ti[s, flags] & keep
            if ti[s, FIRST] >= 0 and tail < queue.shape[0]:
                queue[tail] = s
                dst[tail] = r
                tail += 1
        used += k
    return used
