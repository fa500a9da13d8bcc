"""Numba kernels for the Go board: one flat ``int32`` buffer per position.

Why one buffer: a Python-level ``play`` must copy the position (states are
immutable from the outside) and call one kernel. One ``ndarray.copy()`` plus one
kernel call is the cheapest that can be done from Python, so every piece of the
position lives in a single array::

    buf[0:META]            metadata (size, player to move, ko point, passes,
                           captures, last move, move number, hash, flags)
    buf[BOARD + q]         colour at padded point q (EMPTY, BLACK, WHITE, BORDER)
    buf[HEAD + q]          root point of the string that holds q
    buf[NEXT + q]          next stone of that string (circular list)
    buf[SIZE + r]          stones in the string whose root is r
    buf[PLIB + r]          pseudo-liberties of string r (with multiplicity)
    buf[LSUM + r]          sum of the pseudo-liberties' point indices
    buf[LSQ + r]           sum of their squares

where ``q`` is a padded index (stride ``N + 2``, one-point border) and the
block offsets are multiples of the padded area ``NP = (N + 2) ** 2``.

Pseudo-liberties with a sum and a sum of squares give an exact atari test in
O(1): a string has exactly one liberty ``L`` iff every pseudo-liberty is ``L``,
i.e. iff ``plib * lsq == lsum ** 2`` (Cauchy-Schwarz is tight only when all
terms are equal). No marking pass is needed on the hot path.

Moves at the kernel level are unpadded indices ``row * N + col``; ``N * N`` is a
pass. Kernels never raise; illegal moves return a negative code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3

# Metadata slots.
M_N = 0  # board size
M_W = 1  # stride N + 2
M_NP = 2  # padded area (N + 2) ** 2
M_TOMOVE = 3  # BLACK or WHITE
M_KO = 4  # padded point forbidden by simple ko, or -1
M_PASSES = 5  # consecutive passes
M_CAPB = 6  # stones captured by Black
M_CAPW = 7  # stones captured by White
M_LAST = 8  # last move (unpadded index, N*N = pass, -1 = none)
M_MOVENUM = 9  # moves played (passes included)
M_HLO = 10  # low 31 bits of the board hash
M_HHI = 11  # high 31 bits of the board hash
M_SUICIDE = 12  # 1 when multi-stone and single-stone suicide is legal
M_NLEGAL = 13  # length of the legal-move list at the end of the buffer, -1 if stale
M_NEMPTY = 14  # number of empty points (length of the empty-point list)
META = 16

# Block numbers: block k starts at META + k * NP.
B_BOARD, B_HEAD, B_NEXT, B_SIZE, B_PLIB, B_LSUM, B_LSQ, B_WHERE, B_ENB = 0, 1, 2, 3, 4, 5, 6, 7, 8
NBLOCKS = 9
# B_ENB[q]: how many of q's four neighbours are empty. Kept by place_stone and
# _remove_string, so that move generation decides the common case ("a point
# with an empty neighbour is legal") with one load instead of four.
# After the blocks come two lists:
# - the empty points (padded), M_NEMPTY long, in no order; B_WHERE[q] is the
#   position of q in it (-1 for a stone). Move generation and playouts walk
#   this list instead of the whole board: late in a game most points are full.
# - the legal moves of the player to move (simple ko, unpadded), pass last,
#   M_NLEGAL long. ``play`` fills it, because a caller that plays a move nearly
#   always asks for the next legal moves, and one kernel call is cheaper than two.

# Error codes returned by kernels (negative so that a hash, always >= 0, is success).
OK = 0
ERR_OCCUPIED = -1
ERR_SUICIDE = -2
ERR_KO = -3
ERR_OFFBOARD = -4

MAX_PADDED = (25 + 2) ** 2
HASH_MASK = (1 << 62) - 1
OVER_BIT = 1 << 62  # set in play's result when the game ended by two passes

# Playout policies.
POLICY_UNIFORM = 0  # uniform over legal moves and pass
POLICY_NO_EYES = 1  # the book's: never fill an own eye; pass only when nothing else


def _make_zobrist() -> np.ndarray:
    """Fixed-seed 62-bit Zobrist keys: ``[colour, padded point]`` and a side-to-move key."""
    rng = np.random.Generator(np.random.PCG64(20161203))
    table = rng.integers(1, 1 << 62, size=(3, MAX_PADDED + 1), dtype=np.int64)
    table[EMPTY, :] = 0
    return table


def _make_unpad() -> np.ndarray:
    """``UNPAD[n, q]``: padded point -> unpadded index on an n x n board (-1 off board).

    A table lookup instead of ``q // (n + 2)``: integer division is slow, and
    move generation converts every legal point.
    """
    table = np.full((26, MAX_PADDED), -1, dtype=np.int32)
    for n in range(2, 26):
        w = n + 2
        for r in range(n):
            for c in range(n):
                table[n, (r + 1) * w + c + 1] = r * n + c
    return table


def _make_pad() -> np.ndarray:
    """``PAD[n, p]``: unpadded index -> padded point on an n x n board."""
    table = np.zeros((26, 26 * 26), dtype=np.int32)
    for n in range(2, 26):
        for p in range(n * n):
            table[n, p] = (p // n + 1) * (n + 2) + p % n + 1
    return table


ZOBRIST = _make_zobrist()
UNPAD = _make_unpad()
PAD = _make_pad()
#: XORed into the board hash to distinguish "White to move" (situational superko).
SIDE_KEY = int(ZOBRIST[0, MAX_PADDED] ^ ZOBRIST[1, MAX_PADDED]) or 1
_Z = ZOBRIST  # module global -> compile-time constant inside kernels


def buffer_length(size: int) -> int:
    """Length of the int32 buffer for a ``size`` x ``size`` board."""
    return META + NBLOCKS * (size + 2) ** 2 + 2 * size * size + 1


def legal_offset(size: int) -> int:
    """Where the legal-move list starts in the buffer."""
    return META + NBLOCKS * (size + 2) ** 2 + size * size


@njit(cache=True)
def new_board(n: int, suicide: int) -> np.ndarray:
    """An empty position with Black to move."""
    w = n + 2
    np_ = w * w
    buf = np.zeros(META + NBLOCKS * np_ + 2 * n * n + 1, dtype=np.int32)
    buf[M_N] = n
    buf[M_W] = w
    buf[M_NP] = np_
    buf[M_TOMOVE] = BLACK
    buf[M_KO] = -1
    buf[M_LAST] = -1
    buf[M_SUICIDE] = suicide
    for q in range(np_):
        r = q // w
        c = q % w
        if r == 0 or c == 0 or r == w - 1 or c == w - 1:
            buf[META + q] = BORDER
    _index_empties(buf)
    fill_legal(buf)
    return buf


@njit(cache=True)
def _index_empties(buf: np.ndarray) -> None:
    """Rebuild the empty-point list and its index from the board."""
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    e0 = META + NBLOCKS * np_
    where = META + B_WHERE * np_
    ne = 0
    for q in range(np_):
        buf[where + q] = -1
    enb = META + B_ENB * np_
    for r in range(n):
        for c in range(n):
            q = (r + 1) * w + c + 1
            if buf[META + q] == EMPTY:
                buf[e0 + ne] = q
                buf[where + q] = ne
                ne += 1
            count = 0
            for nb in (q - w, q + w, q - 1, q + 1):
                if buf[META + nb] == EMPTY:
                    count += 1
            buf[enb + q] = count
    buf[M_NEMPTY] = ne


@njit(cache=True, inline="always")
def _hash_of(buf: np.ndarray) -> np.int64:
    return np.int64(buf[M_HLO]) | (np.int64(buf[M_HHI]) << 31)


@njit(cache=True, inline="always")
def _set_hash(buf: np.ndarray, h: int | np.int64) -> None:
    buf[M_HLO] = np.int32(h & 0x7FFFFFFF)
    buf[M_HHI] = np.int32((h >> 31) & 0x7FFFFFFF)


@njit(cache=True)
def board_hash(buf: np.ndarray) -> int:
    """The position's 62-bit Zobrist hash (stones only)."""
    return _hash_of(buf)  # type: ignore[return-value]  # Numba returns a Python int


@njit(cache=True, inline="always")
def _in_atari(buf: np.ndarray, np_: int, root: int) -> bool | np.bool_:
    """True when the string has exactly one liberty (see module docstring)."""
    pl = np.int64(buf[META + B_PLIB * np_ + root])
    s = np.int64(buf[META + B_LSUM * np_ + root])
    sq = np.int64(buf[META + B_LSQ * np_ + root])
    return pl > 0 and pl * sq == s * s


@njit(cache=True)
def legal_code_slow(buf: np.ndarray, q: int, color: int) -> int:
    """Legality of a move with no empty neighbour: it must connect or capture."""
    np_ = buf[M_NP]
    w = buf[M_W]
    opp = 3 - color
    for n in (q - w, q + w, q - 1, q + 1):
        b = buf[META + n]
        if b == color:
            if not _in_atari(buf, np_, buf[META + B_HEAD * np_ + n]):
                return OK
        elif b == opp:
            if _in_atari(buf, np_, buf[META + B_HEAD * np_ + n]):
                return OK
    if buf[M_SUICIDE] != 0:
        return OK
    return ERR_SUICIDE


@njit(cache=True, inline="always")
def _legal_code(buf: np.ndarray, q: int, color: int) -> int:
    """OK or an error code for ``color`` playing at padded point ``q`` (simple ko only).

    The common case (an empty neighbour, read from B_ENB) is decided inline;
    the rest goes to a separate function so that the hot loop stays small.
    """
    if buf[META + q] != EMPTY:
        return ERR_OCCUPIED
    if q == buf[M_KO]:
        return ERR_KO
    if buf[META + B_ENB * buf[M_NP] + q] > 0:  # an empty neighbour: always legal
        return OK
    return legal_code_slow(buf, q, color)


@njit(cache=True)
def _remove_string(buf: np.ndarray, root: int, h: int) -> tuple:
    """Take the string off the board, give its points back as liberties. Returns (stones, hash)."""
    np_ = buf[M_NP]
    w = buf[M_W]
    color = buf[META + root]
    e0 = META + NBLOCKS * np_
    where = META + B_WHERE * np_
    ne = buf[M_NEMPTY]
    count = 0
    s = root
    while True:
        buf[META + s] = EMPTY
        h ^= _Z[color, s]
        buf[e0 + ne] = s
        buf[where + s] = ne
        ne += 1
        count += 1
        s = buf[META + B_NEXT * np_ + s]
        if s == root:
            break
    buf[M_NEMPTY] = ne
    # Second walk: the emptied points are now liberties of the adjacent strings.
    enb = META + B_ENB * np_
    s = root
    while True:
        for n in (s - w, s + w, s - 1, s + 1):
            buf[enb + n] += 1
            b = buf[META + n]
            if b == BLACK or b == WHITE:
                r = buf[META + B_HEAD * np_ + n]
                buf[META + B_PLIB * np_ + r] += 1
                buf[META + B_LSUM * np_ + r] += s
                buf[META + B_LSQ * np_ + r] += s * s
        nxt = buf[META + B_NEXT * np_ + s]
        buf[META + B_HEAD * np_ + s] = 0
        buf[META + B_NEXT * np_ + s] = 0
        s = nxt
        if s == root:
            break
    return count, h


@njit(cache=True)
def _merge(buf: np.ndarray, big: int, small: int) -> None:
    """Merge string ``small`` into string ``big`` (roots)."""
    np_ = buf[M_NP]
    s = small
    while True:
        buf[META + B_HEAD * np_ + s] = big
        s = buf[META + B_NEXT * np_ + s]
        if s == small:
            break
    # Splice the two circular lists.
    a = buf[META + B_NEXT * np_ + big]
    buf[META + B_NEXT * np_ + big] = buf[META + B_NEXT * np_ + small]
    buf[META + B_NEXT * np_ + small] = a
    buf[META + B_SIZE * np_ + big] += buf[META + B_SIZE * np_ + small]
    buf[META + B_PLIB * np_ + big] += buf[META + B_PLIB * np_ + small]
    buf[META + B_LSUM * np_ + big] += buf[META + B_LSUM * np_ + small]
    buf[META + B_LSQ * np_ + big] += buf[META + B_LSQ * np_ + small]


@njit(cache=True, inline="always")
def place_stone(buf: np.ndarray, q: int, color: int) -> int:
    """Put a stone whose legality was checked; update strings, captures, ko and hash.

    Returns the number of opponent stones captured.
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    opp = 3 - color
    h = _hash_of(buf)
    buf[META + q] = color
    h ^= _Z[color, q]
    # Take q off the empty-point list (swap in the last entry).
    e0 = META + NBLOCKS * np_
    where = META + B_WHERE * np_
    i = buf[where + q]
    ne = buf[M_NEMPTY] - 1
    last = buf[e0 + ne]
    buf[e0 + i] = last
    buf[where + last] = i
    buf[where + q] = -1
    buf[M_NEMPTY] = ne
    buf[META + B_HEAD * np_ + q] = q
    buf[META + B_NEXT * np_ + q] = q
    buf[META + B_SIZE * np_ + q] = 1
    pl = 0
    ls = 0
    lq = 0
    enb = META + B_ENB * np_
    for n in (q - w, q + w, q - 1, q + 1):
        buf[enb + n] -= 1
        b = buf[META + n]
        if b == EMPTY:
            pl += 1
            ls += n
            lq += n * n
        elif b == BLACK or b == WHITE:
            r = buf[META + B_HEAD * np_ + n]
            buf[META + B_PLIB * np_ + r] -= 1
            buf[META + B_LSUM * np_ + r] -= q
            buf[META + B_LSQ * np_ + r] -= q * q
    buf[META + B_PLIB * np_ + q] = pl
    buf[META + B_LSUM * np_ + q] = ls
    buf[META + B_LSQ * np_ + q] = lq
    # Merge with friendly neighbours; the larger string keeps its root.
    root = q
    for n in (q - w, q + w, q - 1, q + 1):
        if buf[META + n] == color:
            r = buf[META + B_HEAD * np_ + n]
            if r != root:
                if buf[META + B_SIZE * np_ + r] >= buf[META + B_SIZE * np_ + root]:
                    _merge(buf, r, root)
                    root = r
                else:
                    _merge(buf, root, r)
    # Captures.
    captured = 0
    ko_point = -1
    for n in (q - w, q + w, q - 1, q + 1):
        if buf[META + n] == opp:
            r = buf[META + B_HEAD * np_ + n]
            if buf[META + B_PLIB * np_ + r] == 0:
                c, h = _remove_string(buf, r, h)
                captured += c
                ko_point = n
    # Simple ko: one stone took exactly one stone and is left with one liberty.
    buf[M_KO] = -1
    if captured == 1 and buf[META + B_SIZE * np_ + root] == 1 and buf[META + B_PLIB * np_ + root] == 1:
        buf[M_KO] = ko_point
    if color == BLACK:
        buf[M_CAPB] += captured
    else:
        buf[M_CAPW] += captured
    # Suicide (only reached when the rules allow it): the opponent takes the string.
    if buf[META + B_PLIB * np_ + root] == 0:
        c, h = _remove_string(buf, root, h)
        if color == BLACK:
            buf[M_CAPW] += c
        else:
            buf[M_CAPB] += c
    _set_hash(buf, h)
    return captured


@njit(cache=True)
def play(buf: np.ndarray, p: int) -> int:
    """Play move ``p`` (unpadded index, ``N*N`` = pass) for the player to move, in place.

    Returns the new board hash (>= 0), with bit 62 (``OVER_BIT``) set when this
    move was the second pass in a row, or a negative error code, in which case
    the buffer is unchanged. One return value carries both, so that the
    Python caller needs no second look into the buffer.
    """
    n = buf[M_N]
    color = buf[M_TOMOVE]
    if p == n * n:
        buf[M_PASSES] += 1
        buf[M_KO] = -1
    else:
        if p < 0 or p > n * n:
            return ERR_OFFBOARD
        q = PAD[n, p]
        code = _legal_code(buf, q, color)
        if code != OK:
            return code
        place_stone(buf, q, color)
        buf[M_PASSES] = 0
    buf[M_TOMOVE] = 3 - color
    buf[M_LAST] = p
    buf[M_MOVENUM] += 1
    fill_legal(buf)
    if buf[M_PASSES] >= 2:
        return _hash_of(buf) | OVER_BIT  # type: ignore[return-value]  # an int64 in Numba, an int to callers
    return _hash_of(buf)  # type: ignore[return-value]


@njit(cache=True)
def legal_code(buf: np.ndarray, p: int) -> int:
    """OK (0) or the error code for the player to move playing ``p`` (simple ko only)."""
    n = buf[M_N]
    if p == n * n:
        return OK
    if p < 0 or p > n * n:
        return ERR_OFFBOARD
    return _legal_code(buf, PAD[n, p], buf[M_TOMOVE])


@njit(cache=True)
def fill_legal(buf: np.ndarray) -> int:
    """Write the legal moves of the player to move (simple ko), pass last, into the
    buffer's legal-move list; return their number.

    Walks the empty-point list, not the board, and writes the common case
    (an empty neighbour) flat: helper calls that take the array cost reference
    counting on every point.
    """
    n = buf[M_N]
    w = buf[M_W]
    ko = buf[M_KO]
    color = buf[M_TOMOVE]
    np_ = buf[M_NP]
    e0 = META + NBLOCKS * np_
    out = e0 + n * n
    head = B_HEAD * np_  # + i (= META + q) gives META + B_HEAD * np_ + q
    plib = META + B_PLIB * np_
    lsum = META + B_LSUM * np_
    lsq = META + B_LSQ * np_
    enb = META + B_ENB * np_
    suicide = buf[M_SUICIDE] != 0
    k = 0
    for e in range(buf[M_NEMPTY]):
        q = buf[e0 + e]
        if buf[enb + q] > 0 and q != ko:
            buf[out + k] = UNPAD[n, q]
            k += 1
            continue
        if q == ko:
            continue
        i = META + q
        # No empty neighbour: legal if it joins a string with another
        # liberty, or captures (a neighbouring enemy string in atari).
        # Neighbours are often one string (an eye): test each string once.
        ok = suicide
        last = -1
        for j in (i - w, i + w, i - 1, i + 1):
            b = buf[j]
            if b == BLACK or b == WHITE:
                root = buf[head + j]
                if root == last:
                    continue
                last = root
                pl = np.int64(buf[plib + root])
                s = np.int64(buf[lsum + root])
                atari = pl * np.int64(buf[lsq + root]) == s * s
                if atari != (b == color):
                    ok = True
                    break
        if ok:
            buf[out + k] = UNPAD[n, q]
            k += 1
    buf[out + k] = n * n
    buf[M_NLEGAL] = k + 1
    return k + 1


@njit(cache=True)
def legal_points(buf: np.ndarray) -> np.ndarray:
    """All legal moves of the player to move (simple ko), pass (``N*N``) last, as a new array."""
    k = buf[M_NLEGAL]
    if k < 0:
        k = fill_legal(buf)
    start = META + NBLOCKS * buf[M_NP] + buf[M_N] * buf[M_N]
    return buf[start : start + k].astype(np.int64)


@njit(cache=True, inline="always")
def is_eye_padded(buf: np.ndarray, q: int, color: int) -> bool:
    """The book's eye test (``is_point_an_eye``): an empty point that ``color`` controls."""
    w = buf[M_W]
    if buf[META + q] != EMPTY:
        return False
    for n in (q - w, q + w, q - 1, q + 1):
        b = buf[META + n]
        if b != color and b != BORDER:
            return False
    friendly = 0
    off = 0
    for k in range(4):
        if k == 0:
            d = q - w - 1
        elif k == 1:
            d = q - w + 1
        elif k == 2:
            d = q + w - 1
        else:
            d = q + w + 1
        b = buf[META + d]
        if b == BORDER:
            off += 1
        elif b == color:
            friendly += 1
    if off > 0:
        return off + friendly == 4
    return friendly >= 3


@njit(cache=True)
def is_eye(buf: np.ndarray, p: int, color: int) -> bool:
    """True when unpadded point ``p`` is an eye of ``color`` in the book's sense."""
    n = buf[M_N]
    return is_eye_padded(buf, PAD[n, p], color)


@njit(cache=True)
def seed_kernels(seed: int) -> None:
    """Seed the random generator that the kernels use (Numba keeps its own)."""
    np.random.seed(seed)


@njit(cache=True)
def playout(buf: np.ndarray, policy: int, max_moves: int) -> int:
    """Play a whole random game in place from the current position.

    The game stops after two passes in a row or ``max_moves`` moves. With
    ``POLICY_UNIFORM`` each move is uniform over the legal points and pass; with
    ``POLICY_NO_EYES`` a player never fills an own eye (the book's random bot)
    and passes only when no other move is left. Ko is the simple ko rule.
    Returns the number of moves played.
    """
    n = buf[M_N]
    np_ = buf[M_NP]
    area = n * n
    e0 = META + NBLOCKS * np_
    where = META + B_WHERE * np_
    enb = META + B_ENB * np_
    extra = 1 if policy == POLICY_UNIFORM else 0
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        # Rejection sampling without replacement over a window of the empty
        # list: a rejected point is swapped behind the window, so the draw stays
        # uniform over the legal points (and the pass slot, index m, for
        # POLICY_UNIFORM). place_stone keeps the list itself up to date.
        m = buf[M_NEMPTY]
        chosen = -1
        while m + extra > 0:
            i = np.random.randint(m + extra)
            if i == m:
                break
            q = buf[e0 + i]
            if q == buf[M_KO]:
                ok = False
            elif buf[enb + q] > 0:
                ok = True
            else:
                # The rare path: no empty neighbour. The eye test lives in
                # is_eye_padded; calling it here costs nothing on the hot path.
                ok = legal_code_slow(buf, q, color) == OK
                if ok and policy == POLICY_NO_EYES and is_eye_padded(buf, q, color):
                    ok = False
            if ok:
                chosen = q
                break
            m -= 1
            a = buf[e0 + m]
            buf[e0 + i] = a
            buf[e0 + m] = q
            buf[where + a] = i
            buf[where + q] = m
        if chosen < 0:
            buf[M_PASSES] += 1
            buf[M_KO] = -1
            buf[M_LAST] = area
        else:
            place_stone(buf, chosen, color)
            buf[M_PASSES] = 0
            buf[M_LAST] = UNPAD[n, chosen]
        buf[M_TOMOVE] = 3 - color
        buf[M_MOVENUM] += 1
        moves += 1
    buf[M_NLEGAL] = -1
    return moves


@njit(cache=True)
def rebuild(buf: np.ndarray) -> None:
    """Recompute strings, pseudo-liberties and the hash from the colours alone.

    Used after setting up stones directly (handicap, SGF ``AB``/``AW``, ASCII
    positions) and by tests to check the incremental bookkeeping.
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    for q in range(np_):
        buf[META + B_HEAD * np_ + q] = 0
        buf[META + B_NEXT * np_ + q] = 0
        buf[META + B_SIZE * np_ + q] = 0
        buf[META + B_PLIB * np_ + q] = 0
        buf[META + B_LSUM * np_ + q] = 0
        buf[META + B_LSQ * np_ + q] = 0
    h = np.int64(0)
    stack = np.empty(np_, dtype=np.int32)
    seen = np.zeros(np_, dtype=np.uint8)
    for q0 in range(np_):
        color = buf[META + q0]
        if color != BLACK and color != WHITE:
            continue
        h ^= _Z[color, q0]
        if seen[q0]:
            continue
        # Flood fill one string; link its stones into a circular list.
        top = 0
        stack[top] = q0
        top += 1
        seen[q0] = 1
        prev = q0
        size = 0
        pl = 0
        ls = 0
        lq = 0
        while top > 0:
            top -= 1
            s = stack[top]
            buf[META + B_HEAD * np_ + s] = q0
            if s != q0:
                buf[META + B_NEXT * np_ + prev] = s
                prev = s
            size += 1
            for n in (s - w, s + w, s - 1, s + 1):
                b = buf[META + n]
                if b == EMPTY:
                    pl += 1
                    ls += n
                    lq += n * n
                elif b == color and not seen[n]:
                    seen[n] = 1
                    stack[top] = n
                    top += 1
        buf[META + B_NEXT * np_ + prev] = q0
        buf[META + B_SIZE * np_ + q0] = size
        buf[META + B_PLIB * np_ + q0] = pl
        buf[META + B_LSUM * np_ + q0] = ls
        buf[META + B_LSQ * np_ + q0] = lq
    _set_hash(buf, h)
    _index_empties(buf)


@njit(cache=True)
def liberties(buf: np.ndarray, p: int) -> int:
    """Exact number of liberties of the string at unpadded point ``p`` (0 if empty)."""
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    q0 = PAD[n, p]
    if buf[META + q0] != BLACK and buf[META + q0] != WHITE:
        return 0
    root = buf[META + B_HEAD * np_ + q0]
    mark = np.zeros(np_, dtype=np.uint8)
    count = 0
    s = root
    while True:
        for nb in (s - w, s + w, s - 1, s + 1):
            if buf[META + nb] == EMPTY and not mark[nb]:
                mark[nb] = 1
                count += 1
        s = buf[META + B_NEXT * np_ + s]
        if s == root:
            break
    return count


# Codes of region_map.
R_DAME, R_BLACK_STONE, R_WHITE_STONE, R_BLACK_AREA, R_WHITE_AREA = 0, 1, 2, 3, 4


@njit(cache=True)
def region_map(buf: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """Who owns each point once the ``dead`` stones (unpadded 0/1 mask) are removed.

    Returns an int8 array over unpadded points: ``R_BLACK_STONE``/``R_WHITE_STONE``
    for living stones, ``R_BLACK_AREA``/``R_WHITE_AREA`` for empty (or dead-stone)
    points whose region touches only that colour, ``R_DAME`` otherwise. Both
    area and territory scoring are sums over this map.
    """
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    col = np.empty(np_, dtype=np.int8)
    for q in range(np_):
        col[q] = buf[META + q]
    for r in range(n):
        for c in range(n):
            if dead[r * n + c]:
                col[(r + 1) * w + c + 1] = EMPTY
    out = np.zeros(n * n, dtype=np.int8)
    seen = np.zeros(np_, dtype=np.uint8)
    stack = np.empty(np_, dtype=np.int32)
    region = np.empty(np_, dtype=np.int32)
    for r0 in range(n):
        for c0 in range(n):
            q = (r0 + 1) * w + c0 + 1
            c = col[q]
            if c == BLACK:
                out[r0 * n + c0] = R_BLACK_STONE
                continue
            if c == WHITE:
                out[r0 * n + c0] = R_WHITE_STONE
                continue
            if seen[q]:
                continue
            # Flood the empty region; note which colours border it.
            touch = 0
            top = 0
            size = 0
            stack[top] = q
            top += 1
            seen[q] = 1
            while top > 0:
                top -= 1
                s = stack[top]
                region[size] = s
                size += 1
                for nb in (s - w, s + w, s - 1, s + 1):
                    b = col[nb]
                    if b == EMPTY:
                        if not seen[nb]:
                            seen[nb] = 1
                            stack[top] = nb
                            top += 1
                    elif b == BLACK:
                        touch |= 1
                    elif b == WHITE:
                        touch |= 2
            code = R_DAME
            if touch == 1:
                code = R_BLACK_AREA
            elif touch == 2:
                code = R_WHITE_AREA
            for i in range(size):
                s = region[i]
                out[(s // w - 1) * n + s % w - 1] = code
    return out


@njit(cache=True)
def area_score(buf: np.ndarray) -> int:
    """Black's area minus White's (Tromp-Taylor, all stones alive), without komi."""
    n = buf[M_N]
    regions = region_map(buf, np.zeros(n * n, dtype=np.uint8))
    diff = 0
    for p in range(n * n):
        r = regions[p]
        if r == R_BLACK_STONE or r == R_BLACK_AREA:
            diff += 1
        elif r == R_WHITE_STONE or r == R_WHITE_AREA:
            diff -= 1
    return diff


@njit(cache=True)
def _xor_string_once(buf: np.ndarray, r: int, roots: np.ndarray, nroots: int, h: int) -> tuple:
    """XOR the stones of string ``r`` into ``h`` unless ``roots[:nroots]`` has it.

    Returns the new hash and the new number of roots.
    """
    for j in range(nroots):
        if roots[j] == r:
            return h, nroots
    roots[nroots] = r
    color = buf[META + r]
    np_ = buf[M_NP]
    s = r
    while True:
        h ^= _Z[color, s]
        s = buf[META + B_NEXT * np_ + s]
        if s == r:
            break
    return h, nroots + 1


@njit(cache=True)
def _hash_after(buf: np.ndarray, q: int, color: int) -> int:
    """Board hash after ``color`` plays legal padded point ``q``, without playing it.

    Only the stone and the strings it would capture (or, with suicide allowed,
    its own string) are XORed into the current hash.
    """
    w = buf[M_W]
    np_ = buf[M_NP]
    opp = 3 - color
    h = _hash_of(buf) ^ _Z[color, q]
    roots = np.empty(4, dtype=np.int32)
    nroots = 0
    alive = False
    for nb in (q - w, q + w, q - 1, q + 1):
        b = buf[META + nb]
        if b == EMPTY:
            alive = True
        elif b == color:
            if not _in_atari(buf, np_, buf[META + B_HEAD * np_ + nb]):
                alive = True
        elif b == opp:
            r = buf[META + B_HEAD * np_ + nb]
            if _in_atari(buf, np_, r):
                h, nroots = _xor_string_once(buf, r, roots, nroots, h)
    if nroots == 0 and not alive:
        # Suicide (legal only when the rules allow it): the whole new string goes.
        h ^= _Z[color, q]
        for nb in (q - w, q + w, q - 1, q + 1):
            if buf[META + nb] == color:
                h, nroots = _xor_string_once(buf, buf[META + B_HEAD * np_ + nb], roots, nroots, h)
    return h


@njit(cache=True)
def hash_after(buf: np.ndarray, p: int) -> int:
    """Board hash after the player to move plays legal unpadded move ``p`` (``N*N``: pass), without playing it.

    One move at a time, for Numba callers that check a superko history
    move by move (the Zero search of :mod:`fuseki.search.go.zerotree`).
    """
    n = buf[M_N]
    if p == n * n:
        return _hash_of(buf)  # type: ignore[return-value]  # an int64 in Numba, an int to callers
    return _hash_after(buf, PAD[n, p], buf[M_TOMOVE])


@njit(cache=True)
def hashes_after(buf: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Board hash after the player to move plays each of ``points`` (legal, unpadded)."""
    n = buf[M_N]
    color = buf[M_TOMOVE]
    out = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        p = points[i]
        out[i] = _hash_of(buf) if p == n * n else _hash_after(buf, PAD[n, p], color)
    return out


@njit(cache=True)
def superko_suspects(buf: np.ndarray, bits: np.ndarray, side_key: int) -> np.ndarray:
    """Legal moves whose resulting position may have occurred before.

    ``bits`` is a 65,536-bit filter of the keys of earlier positions (bit
    ``key & 0xFFFF``); ``side_key`` is XORed into each resulting hash (the
    situational-superko side key, or 0). Returns ``[p0, key0, p1, key1, ...]``
    for the moves whose key hits the filter, so that the caller checks only
    those exactly; usually none do. The common move (no enemy neighbour, an
    empty neighbour: no capture) is hashed inline.
    """
    n = buf[M_N]
    w = buf[M_W]
    color = buf[M_TOMOVE]
    opp = 3 - color
    np_ = buf[M_NP]
    start = META + NBLOCKS * np_ + n * n
    h0 = _hash_of(buf) ^ side_key
    out = np.empty(2 * buf[M_NLEGAL], dtype=np.int64)
    k = 0
    for e in range(buf[M_NLEGAL] - 1):
        p = buf[start + e]
        q = PAD[n, p]
        i = META + q
        a0 = buf[i - w]
        a1 = buf[i + w]
        a2 = buf[i - 1]
        a3 = buf[i + 1]
        if a0 != opp and a1 != opp and a2 != opp and a3 != opp and (
            a0 == EMPTY or a1 == EMPTY or a2 == EMPTY or a3 == EMPTY
        ):
            key = h0 ^ _Z[color, q]
        else:
            key = _hash_after(buf, q, color) ^ side_key
        bit = key & 0xFFFF
        if bits[bit >> 3] & (1 << (bit & 7)):
            out[k] = p
            out[k + 1] = key
            k += 2
    return out[:k]


@njit(cache=True)
def colors(buf: np.ndarray) -> np.ndarray:
    """The colours of the unpadded points as an int8 array of length N*N."""
    n = buf[M_N]
    w = buf[M_W]
    out = np.empty(n * n, dtype=np.int8)
    for r in range(n):
        base = META + (r + 1) * w + 1
        for c in range(n):
            out[r * n + c] = buf[base + c]
    return out


@njit(cache=True)
def set_colors(buf: np.ndarray, stones: np.ndarray) -> None:
    """Overwrite the board with ``stones`` (unpadded int8 colours), then rebuild strings."""
    n = buf[M_N]
    w = buf[M_W]
    for r in range(n):
        for c in range(n):
            buf[META + (r + 1) * w + c + 1] = stones[r * n + c]
    buf[M_KO] = -1
    rebuild(buf)
    fill_legal(buf)
