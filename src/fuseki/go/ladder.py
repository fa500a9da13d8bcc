"""Ladders: does a chase of ataris capture a string? (A Numba reader shared by the
encoders' ladder planes and the MCTS priors.)

The attacker only plays ataris on a two-liberty string; the defender only
extends on its last liberty or captures an adjacent attacking string in atari.
A string that reaches three liberties has escaped. The reader searches with an
explicit stack of buffer copies and plays with :func:`fuseki.go.kernels.play`,
so it obeys exactly the same rules (captures, simple ko, suicide) as the game.

>>> from fuseki.go import Color, GameState, Move, Point
>>> s = GameState.from_ascii('''
...     . . . . . .
...     . . X . . .
...     . X O . . .
...     . . . X . .
...     . . . . . .
...     . . . . . .
... ''', to_move=Color.BLACK)
>>> ladder_captured(s._buf, 2 * 6 + 2)   # Black ataris from below; White runs into the top edge
True
>>> ladder_captured(s.play(Move.play(Point(0, 5)))._buf, 2 * 6 + 2)   # ... unless Black lets White move first
False
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fuseki.go import kernels as K

_META = K.META
_B_HEAD = K.B_HEAD
_B_NEXT = K.B_NEXT
_B_PLIB = K.B_PLIB
_B_LSUM = K.B_LSUM
_B_LSQ = K.B_LSQ
_EMPTY = K.EMPTY
_BLACK = K.BLACK
_WHITE = K.WHITE
_M_N = K.M_N
_M_W = K.M_W
_M_NP = K.M_NP
_M_TOMOVE = K.M_TOMOVE

#: Ladder reading stops (and counts the string as escaping) after this many plies.
LADDER_MAX_DEPTH = 160
#: ... or after this many positions read for one question.
LADDER_MAX_NODES = 2000

_play = K.play


@njit(cache=True)
def two_liberties(buf: np.ndarray, q: int) -> tuple:
    """(count capped at 3, first liberty, second liberty) of the string at padded ``q``."""
    w = buf[_M_W]
    np_ = buf[_M_NP]
    nxt = _META + _B_NEXT * np_
    l1 = -1
    l2 = -1
    count = 0
    s = q
    while True:
        for nb in (s - w, s + w, s - 1, s + 1):
            if buf[_META + nb] == _EMPTY and nb != l1 and nb != l2:
                if count == 0:
                    l1 = nb
                elif count == 1:
                    l2 = nb
                else:
                    return 3, l1, l2
                count += 1
        s = buf[nxt + s]
        if s == q:
            break
    return count, l1, l2


LADDER_MAX_MOVES = 16  # defender's candidate moves: extend, or capture one of <= 15 attackers


@njit(cache=True, inline="always")
def ladder_moves(moves: np.ndarray, d: int, count: int, l1: int, l2: int, attacker: bool) -> tuple[int, int]:
    """A ladder position judged by the liberties of the chased string (``count`` capped at 3, the first two
    ``l1``, ``l2``), ``attacker`` to move or not: ``(verdict, moves written)``.

    The verdict is 1 captured, 0 escaped, -1 read on. The attacker ataris a
    two-liberty string on either liberty (two moves into ``moves[d]``); the
    defender must be in atari, else it is no ladder, and extends on its
    liberty (one move: the caller adds the counter-captures). Shared by this
    reader and :mod:`fuseki.search.go.reader`.
    """
    if attacker:
        if count <= 1:
            return 1, 0
        if count >= 3:
            return 0, 0
        moves[d, 0] = l1
        moves[d, 1] = l2
        return -1, 2
    if count >= 2:
        return 0, 0
    if count == 0:
        return 1, 0
    moves[d, 0] = l1
    return -1, 1


@njit(cache=True, inline="always")
def ladder_add_move(moves: np.ndarray, d: int, nm: int, m: int, limit: int) -> int:
    """Append move ``m`` to ``moves[d, :nm]`` unless it is there or ``limit`` moves are; the new count."""
    for i in range(nm):
        if moves[d, i] == m:
            return nm
    if nm >= limit:
        return nm
    moves[d, nm] = m
    return nm + 1


@njit(cache=True, inline="always")
def ladder_settle(d: int, result: int, root_attacker: bool) -> int:
    """Hand the result of the resolved frame ``d`` (1 captured, 0 escaped) up the AND-OR stack.

    A capture decides an attacker's parent, an escape a defender's: such a
    parent is resolved with the same result, and so on up. Returns the frame
    that tries its next move, or -1 when the root is resolved (its result is
    ``result``). The attacker moves at the root when ``root_attacker``, and
    the sides alternate a ply.
    """
    while d > 0:
        d -= 1
        if (root_attacker == (d % 2 == 0)) != (result == 1):
            return d
    return -1


@njit(cache=True)
def _ladder_node(bufs: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, d: int, q: int, defender: int) -> int:
    """Look at the position ``bufs[d]``: 1 captured, 0 escaped, -1 read on (moves filled)."""
    buf = bufs[d]
    if buf[_META + q] != defender:
        return 1
    w = buf[_M_W]
    np_ = buf[_M_NP]
    count, l1, l2 = two_liberties(buf, q)
    attacker_to_move = buf[_M_TOMOVE] != defender
    verdict, nm = ladder_moves(moves, d, count, l1, l2, attacker_to_move)
    nmoves[d] = nm
    if verdict >= 0 or attacker_to_move:
        return verdict
    # Defender to move, in atari: besides extending, capture an adjacent attacker in atari.
    head = _META + _B_HEAD * np_
    nxt = _META + _B_NEXT * np_
    attacker = 3 - defender
    s = q
    while True:
        for nb in (s - w, s + w, s - 1, s + 1):
            if buf[_META + nb] == attacker:
                root = buf[head + nb]
                pl = np.int64(buf[_META + _B_PLIB * np_ + root])
                ls = np.int64(buf[_META + _B_LSUM * np_ + root])
                if pl > 0 and pl * np.int64(buf[_META + _B_LSQ * np_ + root]) == ls * ls:
                    nm = ladder_add_move(moves, d, nm, int(ls // pl), LADDER_MAX_MOVES)
        s = buf[nxt + s]
        if s == q:
            break
    nmoves[d] = nm
    return -1


@njit(cache=True)
def ladder_search(bufs: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, idx: np.ndarray, q: int, max_nodes: int) -> bool:
    """Is the string at padded ``q`` in ``bufs[0]`` lost to a ladder? (AND-OR search, explicit stack.)

    The attacker only plays ataris on a two-liberty string; the defender only
    extends on its last liberty or captures an adjacent attacking string in
    atari. A string that reaches three liberties has escaped. Reading that
    runs out of depth (``len(bufs) - 1`` plies) or of ``max_nodes`` positions
    counts as an escape. An explicit stack, not recursion: Numba's on-disk
    cache does not survive recursive functions.
    """
    defender = bufs[0, _META + q]
    if defender != _BLACK and defender != _WHITE:
        return False
    max_depth = bufs.shape[0] - 1
    root_attacker = bufs[0, _M_TOMOVE] != defender
    nodes = 1
    r = _ladder_node(bufs, moves, nmoves, 0, q, defender)
    if r >= 0:
        return r == 1
    idx[0] = 0
    d = 0
    while True:
        # Frame d reads on: try its next move, or resolve it.
        attacker_node = bufs[d, _M_TOMOVE] != defender
        result = -1
        if idx[d] >= nmoves[d]:
            result = 0 if attacker_node else 1
        else:
            m = moves[d, idx[d]]
            idx[d] += 1
            if d + 1 > max_depth or nodes >= max_nodes:
                result = 0  # out of reading: the string escapes
            else:
                child = bufs[d + 1]
                child[:] = bufs[d]
                n = child[_M_N]
                w = child[_M_W]
                if _play(child, (m // w - 1) * n + m % w - 1) < 0:
                    continue
                nodes += 1
                c = _ladder_node(bufs, moves, nmoves, d + 1, q, defender)
                if c < 0:
                    d += 1
                    idx[d] = 0
                    continue
                # A leaf: an attacker node is decided by a capture, a defender node by an escape.
                if attacker_node != (c == 1):
                    continue
                result = c
        # Frame d is resolved: hand the result to its parent.
        d = ladder_settle(d, result, root_attacker)
        if d < 0:
            return result == 1
    return False


def ladder_stack(size: int, depth: int = LADDER_MAX_DEPTH) -> tuple:
    """Work arrays for :func:`ladder_search` on a ``size`` x ``size`` board."""
    bufs = np.empty((depth + 1, K.buffer_length(size)), dtype=np.int32)
    moves = np.empty((depth + 1, LADDER_MAX_MOVES), dtype=np.int64)
    nmoves = np.zeros(depth + 1, dtype=np.int64)
    idx = np.zeros(depth + 1, dtype=np.int64)
    return bufs, moves, nmoves, idx


def ladder_captured(state_buf: np.ndarray, p: int, max_nodes: int = LADDER_MAX_NODES) -> bool:
    """True when the string at unpadded point ``p`` is lost to a ladder.

    The side to move in ``state_buf`` moves first: if it is the string's owner
    the string must be in atari (it may extend or capture); if it is the
    opponent the string must have two liberties (the opponent ataris). Other
    liberty counts are no ladder and give False, except one liberty with the
    opponent to move (captured at once). An empty point gives False.
    """
    n = int(state_buf[_M_N])
    bufs, moves, nmoves, idx = ladder_stack(n)
    bufs[0] = state_buf
    q = (p // n + 1) * (n + 2) + p % n + 1
    return bool(ladder_search(bufs, moves, nmoves, idx, q, max_nodes))
