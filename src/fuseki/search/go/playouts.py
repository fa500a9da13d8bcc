"""Playout policies for Monte Carlo tree search on Go, as Numba kernels.

The book's playout (``POLICY_NO_EYES``, in :mod:`fuseki.go.kernels`) picks a
random legal move that does not fill an own eye. Strong MCTS programs of the
pre-network era (MoGo, Fuego, Pachi, Michi) play "heavier" playouts: before a
random move they try, with set probabilities, local answers to the last move.
:func:`heavy_playout` follows Michi's ``mcplayout`` (checked rule by rule
against michi-c with benchmarks/michi_stats.py, docs/mcts-quality.md):

1. **capture / atari** (probability ``p_capture``): Michi's ``fix_atari``
   (:func:`fix_atari`) on every string of the 3×3 blocks around the last
   move, then around the move before it: capture an enemy string in atari;
   save an own one by a counter-capture or by extending, but only where
   extending gives three liberties or two that no ladder takes; and, at the
   edge, the atari that takes a two-liberty string in a ladder;
2. **3×3 patterns** (``p_pat3``): an empty point of those blocks whose
   neighbourhood matches a MoGo pattern (:mod:`fuseki.search.go.patterns`),
   around the last move first;
3. **random**: a legal move that does not fill an own eye (:func:`true_eye`,
   Michi's test: an empty diagonal does not make an eye false).

A candidate that makes a bad self-atari (:func:`bad_self_atari`: a string of
two or more stones left with one liberty, or with two on the first line that
a ladder takes) is rejected with probability ``p_selfatari``
(``p_selfatari_random`` for random moves): such moves are almost always
blunders, but throw-ins must stay possible.

All kernels work in place on the flat board buffer of :mod:`fuseki.go.kernels`
and record, in ``amaf``, which colour first played each point (for RAVE).
Candidate lists live in a caller-provided scratch array so that a playout
allocates nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fuseki.go.kernels import (
    B_ENB,
    B_HEAD,
    B_LSQ,
    B_LSUM,
    B_NEXT,
    B_PLIB,
    B_SIZE,
    B_WHERE,
    BLACK,
    BORDER,
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
)
from fuseki.go.ladder import two_liberties
from fuseki.search.go.patterns import PAT3
from fuseki.search.go.reader import ladder_after_move, ladder_read, load
from fuseki.search.go.reader import play as rplay

__all__ = [
    "KIND_CAPTURE",
    "KIND_PAT3",
    "KIND_RANDOM",
    "KIND_PASS",
    "NKINDS",
    "heavy_playout",
    "light_playout",
    "pat3_match",
    "self_atari",
    "bad_self_atari",
    "fix_atari",
    "ladder_after",
    "true_eye",
    "playout_score",
    "last_point",
]

_P3 = PAT3  # module global -> compile-time constant

#: Where a heavy playout's move came from (the ``kinds`` counters of :func:`heavy_playout`).
KIND_CAPTURE, KIND_PAT3, KIND_RANDOM, KIND_PASS = 0, 1, 2, 3
NKINDS = 4


@njit(cache=True, inline="always")
def last_point(buf: np.ndarray) -> int:
    """The padded point of the last move, or -1 when there is none or it was a pass."""
    n = buf[M_N]
    lp = buf[M_LAST]
    return PAD[n, lp] if 0 <= lp < n * n else -1


@njit(cache=True, inline="always")
def _legal(buf: np.ndarray, q: int, color: int) -> bool:
    """Simple-ko legality of ``color`` at padded point ``q``."""
    if buf[META + q] != EMPTY or q == buf[M_KO]:
        return False
    if buf[META + B_ENB * buf[M_NP] + q] > 0:
        return True
    return legal_code_slow(buf, q, color) == OK


@njit(cache=True, inline="always")
def _atari_liberty(buf: np.ndarray, np_: int, root: int) -> int:
    """The only liberty of string ``root`` if it is in atari, else -1."""
    pl = np.int64(buf[META + B_PLIB * np_ + root])
    s = np.int64(buf[META + B_LSUM * np_ + root])
    if pl > 0 and pl * np.int64(buf[META + B_LSQ * np_ + root]) == s * s:
        return int(s // pl)
    return -1


@njit(cache=True, inline="always")
def pat3_match(buf: np.ndarray, q: int) -> bool:
    """True when the 3×3 neighbourhood of empty padded point ``q`` matches a MoGo pattern."""
    w = buf[M_W]
    b = META + q
    code = (
        buf[b - w - 1]
        | (buf[b - w] << 2)
        | (buf[b - w + 1] << 4)
        | (buf[b - 1] << 6)
        | (buf[b + 1] << 8)
        | (buf[b + w - 1] << 10)
        | (buf[b + w] << 12)
        | (buf[b + w + 1] << 14)
    )
    return _P3[code]


@njit(cache=True, inline="always")
def _add_liberty(count: int, l0: int, l1: int, p: int) -> tuple[int, int, int]:
    """Count one more liberty ``p``, keeping the first two: the new ``(count, l0, l1)``."""
    if count == 0:
        l0 = p
    elif count == 1:
        l1 = p
    return count + 1, l0, l1


@njit(cache=True)
def _libs_after_pts(buf: np.ndarray, q: int, color: int, limit: int) -> tuple[int, int, int]:
    """Distinct liberties (counted up to ``limit``) of the string that ``color`` would
    form by playing at ``q``, after its captures; ``q`` itself is not counted.

    Walks the friendly neighbour strings only when the cheap tests cannot
    decide, so the common case costs a few loads. Points of captured stones
    count as liberties wherever they touch the new string.
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    opp = 3 - color
    head = META + B_HEAD * np_
    l0 = -1
    l1 = -1
    count = 0
    captures = False
    for n in (q - w, q + w, q - 1, q + 1):
        b = buf[META + n]
        takes = b == opp and _atari_liberty(buf, np_, buf[head + n]) == q
        if takes:
            captures = True
        if b == EMPTY or takes:
            # An empty neighbour, or an enemy stone this move captures: a liberty.
            if n != l0 and n != l1:
                count, l0, l1 = _add_liberty(count, l0, l1, n)
                if count >= limit:
                    return count, l0, l1
    for n in (q - w, q + w, q - 1, q + 1):
        if buf[META + n] != color:
            continue
        root = buf[head + n]
        if not captures and _atari_liberty(buf, np_, root) == q:
            continue  # its only liberty is q and nothing is captured: nothing to add
        s = root
        while True:
            for m in (s - w, s + w, s - 1, s + 1):
                if m == q or m == l0 or m == l1:
                    continue
                b = buf[META + m]
                if b == EMPTY or (captures and b == opp and _atari_liberty(buf, np_, buf[head + m]) == q):
                    count, l0, l1 = _add_liberty(count, l0, l1, m)
                    if count >= limit:
                        return count, l0, l1
            s = buf[META + B_NEXT * np_ + s]
            if s == root:
                break
    return count, l0, l1


@njit(cache=True, inline="always")
def _libs_after(buf: np.ndarray, q: int, color: int, limit: int) -> int:
    """The liberty count of :func:`_libs_after_pts`."""
    return _libs_after_pts(buf, q, color, limit)[0]


@njit(cache=True, inline="always")
def _empties_and_friend(buf: np.ndarray, q: int, color: int) -> tuple[int, bool]:
    """How many neighbours of padded ``q`` are empty, and whether one is a ``color`` stone: the cheap
    first look of the self-atari tests (with no friend, or enough empty points, a move cannot be one)."""
    w = buf[M_W]
    empties = 0
    friend = False
    for nb in (q - w, q + w, q - 1, q + 1):
        b = buf[META + nb]
        if b == EMPTY:
            empties += 1
        elif b == color:
            friend = True
    return empties, friend


@njit(cache=True)
def self_atari(buf: np.ndarray, q: int, color: int) -> bool:
    """True when ``color`` at padded ``q`` makes a string of two or more stones with
    one liberty. A lone stone is never "self-atari" here: throw-ins and ko
    captures must stay playable.
    """
    empties, friend = _empties_and_friend(buf, q, color)
    if empties >= 2 or not friend:
        return False
    return _libs_after(buf, q, color, 2) < 2


@njit(cache=True)
def playout_score(buf: np.ndarray) -> int:
    """Black's area minus White's at the end of a playout (no komi).

    A playout ends when neither side has a move that does not fill an own
    eye, so every empty point is an eye or a dame point: an empty point counts
    for a colour when all its on-board neighbours have that colour. Cheaper
    than a flood fill, and exact for finished playouts.
    """
    n = buf[M_N]
    w = buf[M_W]
    diff = 0
    for r in range(n):
        q = (r + 1) * w + 1
        for _ in range(n):
            b = buf[META + q]
            if b == BLACK:
                diff += 1
            elif b == WHITE:
                diff -= 1
            else:
                seen = 0
                for m in (q - w, q + w, q - 1, q + 1):
                    v = buf[META + m]
                    if v == BLACK or v == WHITE:
                        seen |= v
                if seen == BLACK:
                    diff += 1
                elif seen == WHITE:
                    diff -= 1
            q += 1
    return diff


@njit(cache=True, inline="always")
def true_eye(buf: np.ndarray, q: int, color: int) -> bool:
    """Michi's (and Pachi's, Fuego's) eye test: empty padded ``q`` whose on-board neighbours are all
    ``color``, with at most one enemy stone on its diagonals, none at the edge.

    Why not the book's test (:func:`fuseki.go.kernels.is_eye_padded`): it
    wants three of the four diagonals *occupied* by the own colour, so an eye
    with an empty diagonal is "no eye" and a random playout fills it. In a
    real game two such eyes (say F6 and G5 of one group, each with one empty
    diagonal) make a group alive that the book's playouts kill over and over:
    a position the playouts then misjudge by 80 points of win rate
    (docs/mcts-quality.md). Empty diagonals do not make an eye false; only
    the opponent's stones do.

    Inlined: the rollout policy (:mod:`fuseki.search.go.rollout_policy`)
    asks it for every candidate of every rollout move.
    """
    w = buf[M_W]
    for n in (q - w, q + w, q - 1, q + 1):
        b = buf[META + n]
        if b != color and b != BORDER:
            return False
    enemy = 0
    edge = 0
    opp = 3 - color
    for d in (q - w - 1, q - w + 1, q + w - 1, q + w + 1):
        b = buf[META + d]
        if b == BORDER:
            edge = 1
        elif b == opp:
            enemy += 1
    return enemy + edge < 2


@njit(cache=True, inline="always")
def _commit(buf: np.ndarray, q: int, color: int, amaf: np.ndarray, step: int) -> None:
    """Play a checked move at padded ``q`` (or pass for ``q < 0``) and record it for AMAF.

    ``amaf[q]`` becomes ``(step << 2) | colour`` at the first play on ``q``
    (see :func:`fuseki.search.go.gotree.run_simulations`).
    """
    n = buf[M_N]
    if q < 0:
        buf[M_PASSES] += 1
        buf[M_KO] = -1
        buf[M_LAST] = n * n
    else:
        if amaf[q] == 0:
            amaf[q] = (step << 2) | color
        place_stone(buf, q, color)
        buf[M_PASSES] = 0
        buf[M_LAST] = UNPAD[n, q]
    buf[M_TOMOVE] = 3 - color
    buf[M_MOVENUM] += 1


@njit(cache=True, inline="always")
def _height(buf: np.ndarray, q: int) -> int:
    """The line of padded ``q`` counted from the nearest edge, 0-based (0 = the first line)."""
    n = buf[M_N]
    w = buf[M_W]
    r = q // w - 1
    c = q % w - 1
    return min(min(r, c), min(n - 1 - r, n - 1 - c))


@njit(cache=True, inline="always")
def _add(cand: np.ndarray, sizes: np.ndarray, k: int, q: int, size: int) -> int:
    """Append ``q`` (with its string's size) to ``cand[:k]`` unless it is there; return the new length."""
    for i in range(k):
        if cand[i] == q:
            return k
    cand[k] = q
    sizes[k] = size
    return k + 1


@njit(cache=True, inline="always")
def _opens(buf: np.ndarray, b: int, a: int, q: int) -> bool:
    """Extending at liberty ``b`` after the attacker's atari at ``a`` gives three liberties at once.

    True when every neighbour of ``b`` but the string itself (``q``, the
    point that makes the string, counts as a stone) is empty and is not
    ``a``: the first two plies of a ladder read, which end most reads in
    open space without copying a board (a ladder read copies one a ply).
    """
    w = buf[M_W]
    e = 0
    for nb in (b - w, b + w, b - 1, b + 1):
        if nb != a and nb != q and buf[META + nb] == EMPTY:
            e += 1
    return e >= 3


@njit(cache=True)
def ladder_after(buf: np.ndarray, q: int, color: int, cols: np.ndarray, rmoves: np.ndarray, rwork: np.ndarray, max_nodes: int) -> bool:
    """True when ``color`` playing at padded ``q`` makes a string that the opponent, moving next, takes in a ladder.

    ``cols`` etc. are :func:`fuseki.search.go.reader.reader_stack` arrays; ``max_nodes <= 0`` reads nothing (False).
    """
    if max_nodes <= 0:
        return False
    cnt, l0, l1 = _libs_after_pts(buf, q, color, 3)
    if cnt != 2 or (_opens(buf, l0, l1, q) and _opens(buf, l1, l0, q)):
        return False
    return ladder_after_move(buf, q, color, cols, rmoves, rwork, max_nodes)


@njit(cache=True)
def fix_atari(
    buf: np.ndarray,
    c: int,
    me: int,
    cand: np.ndarray,
    sizes: np.ndarray,
    k: int,
    edge_only: bool,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    max_nodes: int,
) -> int:
    """Michi's ``fix_atari`` for the string at padded ``c``, for ``me`` (the player to move): append the
    moves that capture or save it to ``cand[k:]`` (no duplicates; ``sizes`` gets the string's size) and
    return the new length.

    - An enemy string in atari: its liberty.
    - An own string in atari: the liberties of adjacent enemy strings in
      atari (counter-captures), and its own liberty if extending there gives
      three liberties, or two that no ladder takes (or there are two or more
      counter-captures besides). The size given to an escape is the string's
      size after it, as in Michi: a lone stone saved by extending counts as
      two stones for the priors.
    - An enemy string with two liberties: the atari that catches it in a
      ladder, if one does. With ``edge_only`` (Michi's playouts: the cheap,
      common edge case) only for strings of two or more stones with both
      liberties on the first line; else (the priors) for every string, a
      lone stone too (Michi reads only strings of two or more there: a
      ladder on a single cutting stone decides as much).

    Ladders are read by :func:`fuseki.search.go.reader.ladder_read` with at
    most ``max_nodes`` positions; ``max_nodes <= 0`` reads none (two-liberty
    strings are then left alone and every escape counts).
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    color = buf[META + c]
    root = buf[META + B_HEAD * np_ + c]
    size = buf[META + B_SIZE * np_ + root]
    lib = _atari_liberty(buf, np_, root)
    if lib < 0:
        if color == me or (edge_only and size < 2) or max_nodes <= 0:
            return k
        cnt, l1, l2 = two_liberties(buf, root)
        if cnt != 2 or (edge_only and (_height(buf, l1) > 0 or _height(buf, l2) > 0)):
            return k
        for i in range(2):
            a = l1 if i == 0 else l2
            if _opens(buf, l2 if i == 0 else l1, a, -1):
                continue  # the string extends to three liberties at once: no ladder this way
            load(buf, cols)
            ko = rplay(cols[0], a, me, w, rwork, buf[M_KO])
            if ko >= 0 and cols[0, root] == color:
                if ladder_read(cols, rmoves, rwork, root, color, ko, w, max_nodes):
                    k = _add(cand, sizes, k, a, size)
        return k
    if color != me:
        return _add(cand, sizes, k, lib, size)
    opp = 3 - me
    e1 = -1
    counters = 0
    s = root
    while True:
        for nb in (s - w, s + w, s - 1, s + 1):
            if buf[META + nb] == opp:
                el = _atari_liberty(buf, np_, buf[META + B_HEAD * np_ + nb])
                if el >= 0:
                    if counters == 0 or (counters == 1 and el != e1):
                        counters += 1
                        e1 = el
                    k = _add(cand, sizes, k, el, size)
        s = buf[META + B_NEXT * np_ + s]
        if s == root:
            break
    cnt = _libs_after(buf, lib, me, 3)
    if cnt >= 3 or (cnt == 2 and (counters > 1 or not ladder_after(buf, lib, me, cols, rmoves, rwork, max_nodes))):
        k = _add(cand, sizes, k, lib, size + 1)
    return k


@njit(cache=True)
def bad_self_atari(
    buf: np.ndarray,
    q: int,
    color: int,
    edge_only: bool,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    max_nodes: int,
) -> bool:
    """Michi's self-atari test (its ``fix_atari`` on the string a move makes; lone stones exempt).

    True when ``color`` at padded ``q`` makes a string of two or more stones
    with one liberty, or with two that the opponent takes in a ladder (with
    ``edge_only``, Michi's playouts, only when both are on the first line).
    A lone stone is never refused: throw-ins and ko captures must stay playable.
    """
    empties, friend = _empties_and_friend(buf, q, color)
    if empties >= 3 or not friend:
        return False
    cnt, l0, l1 = _libs_after_pts(buf, q, color, 3)
    if cnt < 2:
        return True
    if cnt > 2 or max_nodes <= 0 or (edge_only and (_height(buf, l0) > 0 or _height(buf, l1) > 0)):
        return False
    return ladder_after(buf, q, color, cols, rmoves, rwork, max_nodes)


@njit(cache=True, inline="always")
def _has_friend(buf: np.ndarray, q: int, color: int) -> bool:
    """A stone of ``color`` next to padded ``q``: else a move there makes a lone stone, never a bad self-atari.

    Checked inline before :func:`bad_self_atari` is called: a call that
    takes arrays costs reference counting, and most moves have no friend.
    """
    w = buf[M_W]
    return buf[META + q - w] == color or buf[META + q + w] == color or buf[META + q - 1] == color or buf[META + q + 1] == color


@njit(cache=True, inline="always")
def _take(buf: np.ndarray, e0: int, where: int, i: int, m: int) -> None:
    """Swap entry ``i`` of the empty-point list with entry ``m`` (sampling without replacement)."""
    q = buf[e0 + i]
    a = buf[e0 + m]
    buf[e0 + i] = a
    buf[e0 + m] = q
    buf[where + a] = i
    buf[where + q] = m


@njit(cache=True)
def _random_move(
    buf: np.ndarray,
    color: int,
    michi: bool,
    p_selfatari: float,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    max_nodes: int,
) -> int:
    """A uniformly random legal point (padded) that is no own eye, or -1 to pass.

    ``michi`` (the heavy playout): no :func:`true_eye` of the mover, and a
    :func:`bad_self_atari` refused with probability ``p_selfatari``. Else
    (the book's playout, ``p_selfatari = 0``): no eye by the book's test
    (:func:`is_eye_padded`), and no ladder is read.

    Rejection sampling without replacement over the empty-point list, as in
    :func:`fuseki.go.kernels.playout`.
    """
    np_ = buf[M_NP]
    e0 = META + NBLOCKS * np_
    where = META + B_WHERE * np_
    enb = META + B_ENB * np_
    m = buf[M_NEMPTY]
    while m > 0:
        i = np.random.randint(m)
        q = buf[e0 + i]
        ok = False
        if q != buf[M_KO]:
            e = buf[enb + q]
            if e > 0:
                ok = True
            elif legal_code_slow(buf, q, color) == OK:
                ok = not (true_eye(buf, q, color) if michi else is_eye_padded(buf, q, color))
            # Two empty neighbours can only be a bad self-atari on the first line (two edge liberties).
            if ok and p_selfatari > 0.0 and (e < 2 or (e == 2 and _height(buf, q) == 0)) and _has_friend(buf, q, color):
                if np.random.random() < p_selfatari and bad_self_atari(buf, q, color, True, cols, rmoves, rwork, max_nodes):
                    ok = False
        if ok:
            return q
        m -= 1
        _take(buf, e0, where, i, m)
    return -1


@njit(cache=True)
def light_playout(buf: np.ndarray, max_moves: int, amaf: np.ndarray, step0: int) -> int:
    """The book's playout (random, never an own eye) with AMAF recording; returns moves played.

    ``step0`` is the number of moves already made since the search root (for AMAF).
    """
    # It reads no ladders: an empty reader stack.
    cols = np.empty((0, 0), dtype=np.int8)
    rmoves = np.empty((0, 0), dtype=np.int64)
    rwork = np.empty(0, dtype=np.int64)
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        _commit(buf, _random_move(buf, color, False, 0.0, cols, rmoves, rwork, 0), color, amaf, step0 + moves)
        moves += 1
    buf[M_NLEGAL] = -1
    return moves


@njit(cache=True)
def _pick(
    buf: np.ndarray,
    cand: np.ndarray,
    k: int,
    color: int,
    p_selfatari: float,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    max_nodes: int,
) -> int:
    """Try the candidates ``cand[:k]`` in random order; the first legal, acceptable one wins (or -1)."""
    while k > 0:
        i = np.random.randint(k)
        q = cand[i]
        k -= 1
        cand[i] = cand[k]
        if _legal(buf, q, color):
            if p_selfatari > 0.0 and _has_friend(buf, q, color) and np.random.random() < p_selfatari:
                if bad_self_atari(buf, q, color, True, cols, rmoves, rwork, max_nodes):
                    continue
            return q
    return -1


@njit(cache=True, inline="always")
def _local_move(
    buf: np.ndarray,
    rule: int,
    last: int,
    last2: int,
    color: int,
    cand: np.ndarray,
    sizes: np.ndarray,
    roots: np.ndarray,
    p_selfatari: float,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    ladder_nodes: int,
) -> int:
    """The move of one of the heavy playout's local rules (padded), or -1.

    ``rule`` ``KIND_CAPTURE``: the :func:`fix_atari` moves of every string on
    the 3×3 block around the last move (``last``, padded, -1 for none), and
    if none is accepted, around the move before it (``last2``); each string
    once. ``KIND_PAT3``: the empty points of those blocks that match a 3×3
    pattern. The candidates of a block are tried by :func:`_pick`.
    """
    w = buf[M_W]
    np_ = buf[M_NP]
    head = META + B_HEAD * np_
    nroots = 0
    for stage in range(2):
        centre = last if stage == 0 else last2
        if centre < 0:
            continue
        k = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                c = centre + dr * w + dc
                b = buf[META + c]
                if rule == KIND_PAT3:
                    if b == EMPTY and pat3_match(buf, c):
                        cand[k] = c
                        k += 1
                    continue
                if b != BLACK and b != WHITE:
                    continue
                root = buf[head + c]
                # Only strings in atari, or enemy strings that may have two liberties
                # (at most 8 pseudo-liberties) can give a move: skip the rest cheaply.
                if _atari_liberty(buf, np_, root) < 0 and (
                    b == color or ladder_nodes <= 0 or buf[META + B_SIZE * np_ + root] < 2 or buf[META + B_PLIB * np_ + root] > 8
                ):
                    continue
                # Once per string: a big string touches the block many times.
                seen = False
                for i in range(nroots):
                    if roots[i] == root:
                        seen = True
                if seen:
                    continue
                roots[nroots] = root
                nroots += 1
                k = fix_atari(buf, c, color, cand, sizes, k, True, cols, rmoves, rwork, ladder_nodes)
        if k > 0:
            chosen = _pick(buf, cand, k, color, p_selfatari, cols, rmoves, rwork, ladder_nodes)
            if chosen >= 0:
                return chosen
    return -1


@njit(cache=True)
def heavy_playout(
    buf: np.ndarray,
    max_moves: int,
    amaf: np.ndarray,
    last2: int,
    p_capture: float,
    p_pat3: float,
    p_selfatari: float,
    p_selfatari_random: float,
    cand: np.ndarray,
    step0: int,
    kinds: np.ndarray,
    cols: np.ndarray,
    rmoves: np.ndarray,
    rwork: np.ndarray,
    ladder_nodes: int,
) -> int:
    """Play a Michi-style heavy playout in place; returns the number of moves.

    Each move, as Michi's ``mcplayout``: with ``p_capture``, the capture and
    atari moves of :func:`fix_atari` for every string on the 3×3 blocks
    around the last move, else around the move before it; then with
    ``p_pat3`` the 3×3-pattern moves on the empty points of those blocks
    (the last move's first); else a random move. Heuristic moves that make a
    bad self-atari are refused with ``p_selfatari``, random ones with
    ``p_selfatari_random`` (lower, so that nakade stays possible).

    ``last2`` is the padded point of the move before the last one (-1 if none
    or a pass). ``cand`` is scratch space of at least ``8 * NP`` ints;
    ``step0`` as in :func:`light_playout`. ``kinds[k]`` counts the moves
    that came from each rule (``KIND_CAPTURE``, ``KIND_PAT3``,
    ``KIND_RANDOM``, ``KIND_PASS``): a statistic to compare with other
    engines' playouts (benchmarks/michi_stats.py), one add a move. ``cols``
    etc. are a :func:`fuseki.search.go.reader.reader_stack` for the ladder reads
    (at most ``ladder_nodes`` positions each; 0 reads none).
    """
    np_ = buf[M_NP]
    sizes = cand[2 * np_ : 4 * np_]
    roots = cand[4 * np_ :]
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        last = last_point(buf)
        chosen = -1
        kind = KIND_CAPTURE
        if (last >= 0 or last2 >= 0) and np.random.random() < p_capture:
            chosen = _local_move(buf, KIND_CAPTURE, last, last2, color, cand, sizes, roots, p_selfatari, cols, rmoves, rwork, ladder_nodes)
        if chosen < 0 and (last >= 0 or last2 >= 0) and np.random.random() < p_pat3:
            kind = KIND_PAT3
            chosen = _local_move(buf, KIND_PAT3, last, last2, color, cand, sizes, roots, p_selfatari, cols, rmoves, rwork, ladder_nodes)
        if chosen < 0:
            chosen = _random_move(buf, color, True, p_selfatari_random, cols, rmoves, rwork, ladder_nodes)
            kind = KIND_RANDOM if chosen >= 0 else KIND_PASS
        kinds[kind] += 1
        last2 = last
        _commit(buf, chosen, color, amaf, step0 + moves)
        moves += 1
    buf[M_NLEGAL] = -1
    return moves
