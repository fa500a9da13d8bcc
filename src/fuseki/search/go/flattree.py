"""What the two flat-array search trees share: the MCTS engine's and AlphaGo's.

Both (:mod:`fuseki.search.go.gotree` and :mod:`fuseki.search.go.agtree`)
keep a node as one row of an int32 array ``ti`` and a float array ``tf``,
the children of a node as one contiguous block of rows, the root at row 0.
The first three columns of ``ti`` mean the same in both:

``ti[node, MOVE]``
    the move into the node (unpadded index, ``N*N`` = pass; ``-1 - move``
    marks a root move that the game's ko rule forbids);
``ti[node, FIRST]``
    the row of its first child (-1 while unexpanded);
``ti[node, NCHILD]``
    how many children it has.

The other columns are each tree's own. What lives here is what works on the
shared part only: keeping the subtree of the moves played for the next
search (tree reuse: :func:`reroot`, which walks from the new position back to
the old root on the Python side and copies the subtree with :func:`compact`
in Numba), and marking the root moves the game's real ko rule forbids
(:func:`ban_root_moves`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["MOVE", "FIRST", "NCHILD", "compact", "signature", "find_child", "reroot", "ban_root_moves", "KeptTree"]

MOVE, FIRST, NCHILD = 0, 1, 2

#: How many moves back from the new position :func:`reroot` looks for the old root.
REUSE_MOVES = 8


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


def signature(state: Any) -> tuple[int, int, int]:
    """``(key, move number, size)``: which position a tree's root is."""
    return (int(state.key), int(state.move_number), int(state.size))


def find_child(ti: np.ndarray, node: int, move: int) -> int:
    """The row of the child of ``node`` reached by ``move`` (banned or not), or -1."""
    first, k = int(ti[node, FIRST]), int(ti[node, NCHILD])
    if first < 0:
        return -1
    moves = ti[first : first + k, MOVE]
    hit = np.nonzero((moves == move) | (moves == -1 - move))[0]
    return first + int(hit[0]) if len(hit) else -1


def reroot(
    ti: np.ndarray,
    tf: np.ndarray,
    root_sig: tuple[int, int, int] | None,
    state: Any,
    flags: int = -1,
    keep: int = -1,
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The tree with ``state`` at its root: ``(ti, tf, rows used)`` in new arrays, or None for none to keep.

    ``root_sig`` is the :func:`signature` of the tree's root now (None: no
    tree). ``state`` must follow it by at most :data:`REUSE_MOVES` moves that
    the tree has expanded; else there is nothing to keep and the caller
    starts a new tree. ``flags`` and ``keep`` as in :func:`compact`.
    """
    if root_sig is None:
        return None
    # Walk back from ``state`` to the old root (at most a few moves).
    moves: list[int] = []
    s = state
    found = False
    while s is not None and len(moves) <= REUSE_MOVES and s.move_number >= root_sig[1]:
        if signature(s) == root_sig:
            found = True
            break
        if s.parent is None:
            break
        moves.append(int(s.move_index(s.move_played())))
        s = s.parent
    if not found:
        return None
    node = 0
    for m in reversed(moves):
        node = find_child(ti, node, m)
        if node < 0:
            break
    if node <= 0:
        return None
    ti2 = np.empty_like(ti)
    tf2 = np.empty_like(tf)
    queue = np.empty(ti.shape[0], dtype=np.int64)
    used = compact(ti, tf, node, ti2, tf2, queue, flags, keep)
    ti2[0, MOVE] = -1
    return ti2, tf2, used


def ban_root_moves(ti: np.ndarray, state: Any, allow_pass: bool = True) -> None:
    """Mark the root's children that the game's real ko rule forbids (superko), and the pass unless allowed; unmark the rest."""
    first, k = int(ti[0, FIRST]), int(ti[0, NCHILD])
    if first < 0:
        return
    legal = state.legal_points()
    moves = ti[first : first + k, MOVE]
    plain = np.where(moves < 0, -1 - moves, moves)
    ok = np.isin(plain, legal)
    if not allow_pass:
        ok &= plain != state.size * state.size
    ti[first : first + k, MOVE] = np.where(ok, plain, -1 - plain)


class KeptTree:
    """The Python side of a flat tree that lives from one search to the next (mixed into
    :class:`~fuseki.search.go.gomcts.GoMCTS` and :class:`~fuseki.search.go.alphago_search.AlphaGoSearch`).

    The owner keeps the tree in ``_ti``, ``_tf`` and ``_th`` (rows used in
    ``_th[0]``) and the :func:`signature` of its root in ``_root_sig``, and
    says how a new tree starts (``_reset_tree``), which column of ``ti``
    holds flags and which of their bits a kept node keeps (``_FLAGS``,
    ``_KEEP``: see :func:`compact`), and what else a new root makes stale
    (``_rerooted``).
    """

    _ti: np.ndarray
    _tf: np.ndarray
    _th: np.ndarray
    _root_sig: tuple[int, int, int] | None
    _FLAGS = -1
    _KEEP = -1

    def _reset_tree(self) -> None:
        raise NotImplementedError

    def _rerooted(self) -> None:
        """The tree's root moved down to a kept subtree (nothing by default)."""

    def _find_child(self, node: int, move: int) -> int:
        return find_child(self._ti, node, move)

    def _reuse(self, state: Any, reuse: bool) -> None:
        """Make ``state`` the root, keeping the matching subtree of the old root when there is one and ``reuse``."""
        sig = signature(state)
        if self._root_sig == sig:
            return
        kept = reroot(self._ti, self._tf, self._root_sig, state, self._FLAGS, self._KEEP) if reuse else None
        if kept is None:
            self._reset_tree()
        else:
            self._ti, self._tf, self._th[0] = kept
            self._rerooted()
        self._root_sig = sig
