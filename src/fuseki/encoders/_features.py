"""Numba feature kernels shared by the encoders: liberties, move features, ladders.

Every kernel reads the board's flat ``int32`` buffer (``state.buffer``, laid out
as :mod:`fuseki.go.kernels` describes) and writes ``uint8`` planes into an
output array of shape ``(planes, size * size)`` that the caller allocated, so
one encoder call is one kernel call. Points inside the kernels are padded
indices ``q``; planes are indexed by unpadded ``p = row * size + col``.

The per-point loops are written flat (no helper calls that take arrays in the
hot loop), as the design notes ask. The ladder reader searches with an explicit
stack of buffer copies and plays with :func:`fuseki.go.kernels.play`, so it obeys
exactly the same rules (captures, simple ko, suicide) as the game.

>>> from fuseki.go import GameState
>>> s = GameState.from_ascii('''
...     . X O
...     X O .
...     . O .
... ''')
>>> string_liberties(s.buffer).reshape(3, 3).tolist()
[[0, 1, 1], [2, 3, 0], [0, 3, 0]]
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fuseki.go import kernels as K
from fuseki.go.ladder import (  # noqa: F401  (re-exported: the encoders' ladder planes use them)
    LADDER_MAX_DEPTH,
    LADDER_MAX_NODES,
    LADDER_MAX_MOVES,
    ladder_search,
    two_liberties,
    ladder_captured,
    ladder_stack,
)

_META = K.META
_B_HEAD = K.B_HEAD
_B_NEXT = K.B_NEXT
_B_SIZE = K.B_SIZE
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
_ERR_SUICIDE = K.ERR_SUICIDE

_play = K.play
_legal_code = K.legal_code
is_eye_padded = K.is_eye


# ---------------------------------------------------------------------------
# liberties of every string


@njit(cache=True)
def _root_liberties(buf: np.ndarray, mark: np.ndarray, libs: np.ndarray) -> None:
    """``libs[root]`` = exact liberty count of every string (padded, by root)."""
    n = buf[_M_N]
    w = buf[_M_W]
    np_ = buf[_M_NP]
    head = _META + _B_HEAD * np_
    nxt = _META + _B_NEXT * np_
    for r in range(n):
        for c in range(n):
            q = (r + 1) * w + c + 1
            b = buf[_META + q]
            if (b == _BLACK or b == _WHITE) and buf[head + q] == q:
                count = 0
                s = q
                while True:
                    for nb in (s - w, s + w, s - 1, s + 1):
                        if buf[_META + nb] == _EMPTY and mark[nb] != q:
                            mark[nb] = q
                            count += 1
                    s = buf[nxt + s]
                    if s == q:
                        break
                libs[q] = count


@njit(cache=True)
def string_liberties(buf: np.ndarray) -> np.ndarray:
    """Exact liberty count of the string at each point (0 for empty), ``int32[size * size]``."""
    n = buf[_M_N]
    w = buf[_M_W]
    np_ = buf[_M_NP]
    mark = np.full(np_, -1, dtype=np.int32)
    libs = np.zeros(np_, dtype=np.int32)
    _root_liberties(buf, mark, libs)
    out = np.zeros(n * n, dtype=np.int32)
    head = _META + _B_HEAD * np_
    for r in range(n):
        for c in range(n):
            q = (r + 1) * w + c + 1
            b = buf[_META + q]
            if b == _BLACK or b == _WHITE:
                out[r * n + c] = libs[buf[head + q]]
    return out


# ---------------------------------------------------------------------------
# the book's liberty planes (sevenplane, simple, zero)


@njit(cache=True)
def liberty_planes(
    buf: np.ndarray,
    legal: np.ndarray,
    out: np.ndarray,
    base_black: int,
    base_white: int,
    cap: int,
    ko_plane: int,
) -> None:
    """Stones by colour and liberties (``1 .. cap``, the last plane ``cap`` or more), and ko.

    A stone of a string with ``k`` liberties sets plane
    ``base + min(k, cap) - 1``, where ``base`` is ``base_black`` or
    ``base_white``. ``ko_plane`` (if >= 0) marks the empty points that the
    player to move may not play because of ko or superko: empty, not in
    ``legal`` (the legal points, without pass), and not suicide.
    """
    n = buf[_M_N]
    w = buf[_M_W]
    np_ = buf[_M_NP]
    mark = np.full(np_, -1, dtype=np.int32)
    libs = np.zeros(np_, dtype=np.int32)
    _root_liberties(buf, mark, libs)
    head = _META + _B_HEAD * np_
    is_legal = np.zeros(n * n, dtype=np.uint8)
    for i in range(legal.shape[0]):
        is_legal[legal[i]] = 1
    for r in range(n):
        for c in range(n):
            p = r * n + c
            q = (r + 1) * w + c + 1
            b = buf[_META + q]
            if b == _EMPTY:
                if ko_plane >= 0 and is_legal[p] == 0 and _legal_code(buf, p) != _ERR_SUICIDE:
                    out[ko_plane, p] = 1
                continue
            k = libs[buf[head + q]]
            if k > cap:
                k = cap
            base = base_black if b == _BLACK else base_white
            out[base + k - 1, p] = 1


# ---------------------------------------------------------------------------
# AlphaGo's 48 (49) planes

# Plane offsets, in the order of the book's table 13.1 (and dlgo's FEATURE_OFFSETS).
P_STONE = 0  # own, opponent, empty
P_ONES = 3
P_ZEROS = 4
P_SENSIBLE = 5
P_TURNS = 6  # 1, 2, ..., 7, >= 8 moves ago
P_LIBS = 14  # 1, 2, ..., 7, >= 8 liberties
P_LIBS_AFTER = 22  # 1, ..., >= 8 liberties after the move
P_CAPTURE = 30  # 0, 1, ..., 6, >= 7 stones captured
P_SELF_ATARI = 38  # 1, ..., >= 8 own stones left in atari
P_LADDER_CAPTURE = 46
P_LADDER_ESCAPE = 47
P_PLAYER = 48  # only with the player plane (value networks): 1 when Black is to move


@njit(cache=True)
def alphago_planes(
    buf: np.ndarray,
    legal: np.ndarray,
    ages: np.ndarray,
    out: np.ndarray,
    player_plane: bool,
    max_nodes: int,
) -> None:
    """Write AlphaGo's feature planes for the player to move into zeroed ``out``.

    ``legal``: the legal points (no pass, superko already applied);
    ``ages[p]``: how many moves ago the last move at ``p`` was played (1 = the
    last move), 0 if not in the last seven moves.
    """
    n = buf[_M_N]
    w = buf[_M_W]
    np_ = buf[_M_NP]
    n2 = n * n
    me = buf[_M_TOMOVE]
    opp = 3 - me
    head = _META + _B_HEAD * np_
    nxt = _META + _B_NEXT * np_
    size_ = _META + _B_SIZE * np_
    plib = _META + _B_PLIB * np_
    lsum = _META + _B_LSUM * np_
    lsq = _META + _B_LSQ * np_

    mark = np.full(np_, -1, dtype=np.int32)
    libs = np.zeros(np_, dtype=np.int32)
    _root_liberties(buf, mark, libs)
    is_legal = np.zeros(n2, dtype=np.uint8)
    for i in range(legal.shape[0]):
        is_legal[legal[i]] = 1
    # Own strings in atari (roots), for ladder escapes.
    own_atari = np.empty(n2, dtype=np.int64)
    n_own_atari = 0

    for p in range(n2):
        out[P_ONES, p] = 1
        if player_plane and me == _BLACK:
            out[P_PLAYER, p] = 1
        q = (p // n + 1) * w + p % n + 1
        b = buf[_META + q]
        if b == _EMPTY:
            out[P_STONE + 2, p] = 1
            continue
        out[P_STONE + (0 if b == me else 1), p] = 1
        a = ages[p]
        if a <= 0 or a > 8:
            a = 8
        out[P_TURNS + a - 1, p] = 1
        root = buf[head + q]
        k = libs[root]
        if k > 8:
            k = 8
        out[P_LIBS + k - 1, p] = 1
        if b == me and root == q and libs[root] == 1:
            own_atari[n_own_atari] = q
            n_own_atari += 1

    # Move features for every legal point. ``mark`` is reused with stamps
    # below -1 so that they never collide with the roots written above.
    stamp = -1
    roots = np.empty(4, dtype=np.int64)
    caps = np.empty(4, dtype=np.int64)
    bufs = np.empty((LADDER_MAX_DEPTH + 1, buf.shape[0]), dtype=np.int32)
    lmoves = np.empty((LADDER_MAX_DEPTH + 1, LADDER_MAX_MOVES), dtype=np.int64)
    lnm = np.zeros(LADDER_MAX_DEPTH + 1, dtype=np.int64)
    lidx = np.zeros(LADDER_MAX_DEPTH + 1, dtype=np.int64)
    for i in range(legal.shape[0]):
        p = legal[i]
        q = (p // n + 1) * w + p % n + 1
        if not is_eye_padded(buf, p, me):
            out[P_SENSIBLE, p] = 1
        # Adjacent own strings and opponent strings captured by the move.
        nr = 0
        nc = 0
        captured = 0
        two_lib_opp = False
        for nb in (q - w, q + w, q - 1, q + 1):
            bb = buf[_META + nb]
            if bb == me:
                r = buf[head + nb]
                dup = False
                for j in range(nr):
                    if roots[j] == r:
                        dup = True
                if not dup:
                    roots[nr] = r
                    nr += 1
            elif bb == opp:
                r = buf[head + nb]
                if libs[r] == 1:
                    dup = False
                    for j in range(nc):
                        if caps[j] == r:
                            dup = True
                    if not dup:
                        caps[nc] = r
                        nc += 1
                        captured += buf[size_ + r]
                elif libs[r] == 2:
                    two_lib_opp = True
        # Liberties of the new string: empty points next to it (not q itself),
        # plus the stones it captures that touch it.
        stamp -= 1
        mark[q] = stamp
        count = 0
        stones = 1
        for j in range(nr + 1):
            if j < nr:
                s0 = roots[j]
                stones += buf[size_ + s0]
            else:
                s0 = q
            s = s0
            while True:
                for nb in (s - w, s + w, s - 1, s + 1):
                    if mark[nb] != stamp:
                        bb = buf[_META + nb]
                        if bb == _EMPTY:
                            mark[nb] = stamp
                            count += 1
                        elif bb == opp and nc > 0:
                            r = buf[head + nb]
                            for jj in range(nc):
                                if caps[jj] == r:
                                    mark[nb] = stamp
                                    count += 1
                                    break
                if j == nr:
                    break  # the new stone is not linked into a list yet
                s = buf[nxt + s]
                if s == s0:
                    break
        if count > 0:
            out[P_LIBS_AFTER + (count if count < 8 else 8) - 1, p] = 1
        out[P_CAPTURE + (captured if captured < 7 else 7), p] = 1
        if count == 1:
            out[P_SELF_ATARI + (stones if stones < 8 else 8) - 1, p] = 1
        # Ladder capture: the move ataris a two-liberty opponent string that
        # then cannot escape.
        if two_lib_opp:
            b2 = bufs[0]
            b2[:] = buf
            if _play(b2, p) >= 0:
                for nb in (q - w, q + w, q - 1, q + 1):
                    if b2[_META + nb] == opp:
                        r = b2[head + nb]
                        pl = np.int64(b2[plib + r])
                        ls = np.int64(b2[lsum + r])
                        if pl > 0 and pl * np.int64(b2[lsq + r]) == ls * ls:
                            if ladder_search(bufs, lmoves, lnm, lidx, nb, max_nodes):
                                out[P_LADDER_CAPTURE, p] = 1
                                break
        # Ladder escape: the move takes an own string out of atari for good.
        if n_own_atari > 0:
            relevant = False
            for j in range(n_own_atari):
                r = own_atari[j]
                lib = np.int64(buf[lsum + r]) // np.int64(buf[plib + r])
                if lib == q:
                    relevant = True
            if nc > 0:
                relevant = True
            if relevant:
                b2 = bufs[0]
                b2[:] = buf
                if _play(b2, p) >= 0:
                    for j in range(n_own_atari):
                        r = own_atari[j]
                        if b2[_META + r] != me:
                            continue
                        c2, _, _ = two_liberties(b2, r)
                        if c2 >= 3:
                            out[P_LADDER_ESCAPE, p] = 1
                            break
                        if c2 == 2:
                            if not ladder_search(bufs, lmoves, lnm, lidx, r, max_nodes):
                                out[P_LADDER_ESCAPE, p] = 1
                                break
