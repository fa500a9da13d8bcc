"""Playout policies for Monte Carlo tree search on Go, as Numba kernels.

The book's playout (``POLICY_NO_EYES``, in :mod:`fuseki.go.kernels`) picks a
random legal move that does not fill an own eye. Strong MCTS programs of the
pre-network era (MoGo, Fuego, Pachi, Michi) play "heavier" playouts: before a
random move they try, with set probabilities, local answers to the last move.
:func:`heavy_playout` follows Michi's order:

1. **capture / atari** (probability ``p_capture``): around the last two moves,
   capture an enemy string in atari, or save an own string in atari by
   extending (only if that gives at least two liberties) or by capturing a
   neighbour of it;
2. **3×3 patterns** (``p_pat3``): an empty point next to the last move whose
   neighbourhood matches a MoGo pattern (:mod:`fuseki.search.go.patterns`);
3. **random**: a legal move that does not fill an own eye.

A candidate that puts its own string of two or more stones in atari is
rejected with probability ``p_selfatari`` (``p_selfatari_random`` for random
moves): such moves are almost always blunders, but throw-ins must stay
possible.

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
from fuseki.search.go.patterns import PAT3

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
    "true_eye",
    "atari_moves",
    "playout_score",
]

_P3 = PAT3  # module global -> compile-time constant

#: Where a heavy playout's move came from (the ``kinds`` counters of :func:`heavy_playout`).
KIND_CAPTURE, KIND_PAT3, KIND_RANDOM, KIND_PASS = 0, 1, 2, 3
NKINDS = 4


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


@njit(cache=True)
def _libs_after(buf: np.ndarray, q: int, color: int, limit: int) -> int:
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
                if count == 0:
                    l0 = n
                else:
                    l1 = n
                count += 1
                if count >= limit:
                    return count
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
                    if count == 0:
                        l0 = m
                    else:
                        l1 = m
                    count += 1
                    if count >= limit:
                        return count
            s = buf[META + B_NEXT * np_ + s]
            if s == root:
                break
    return count


@njit(cache=True)
def self_atari(buf: np.ndarray, q: int, color: int) -> bool:
    """True when ``color`` at padded ``q`` makes a string of two or more stones with
    one liberty. A lone stone is never "self-atari" here: throw-ins and ko
    captures must stay playable.
    """
    w = buf[M_W]
    empties = 0
    friend = False
    for n in (q - w, q + w, q - 1, q + 1):
        b = buf[META + n]
        if b == EMPTY:
            empties += 1
        elif b == color:
            friend = True
    if empties >= 2 or not friend:
        return False
    return _libs_after(buf, q, color, 2) < 2


@njit(cache=True, inline="always")
def atari_moves(buf: np.ndarray, c: int, me: int, out: np.ndarray, k: int) -> int:
    """Append to ``out[k:]`` the moves for ``me`` that matter for the string at padded ``c``
    when it is in atari; return the new length.

    - An enemy string in atari: its liberty (the capture).
    - An own string in atari: the liberties of adjacent enemy strings in atari
      (counter-captures), and its own liberty if extending there leaves at
      least two liberties.
    """
    np_ = buf[M_NP]
    w = buf[M_W]
    color = buf[META + c]
    if color != BLACK and color != WHITE:
        return k
    root = buf[META + B_HEAD * np_ + c]
    lib = _atari_liberty(buf, np_, root)
    if lib < 0:
        return k
    if color != me:
        out[k] = lib
        return k + 1
    opp = 3 - me
    s = root
    while True:
        for n in (s - w, s + w, s - 1, s + 1):
            if buf[META + n] == opp:
                el = _atari_liberty(buf, np_, buf[META + B_HEAD * np_ + n])
                if el >= 0:
                    out[k] = el
                    k += 1
        s = buf[META + B_NEXT * np_ + s]
        if s == root:
            break
    if _libs_after(buf, lib, me, 2) >= 2:
        out[k] = lib
        k += 1
    return k


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


@njit(cache=True)
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


@njit(cache=True)
def _random_move(buf: np.ndarray, color: int, p_selfatari: float, michi_eyes: bool) -> int:
    """A uniformly random legal point that is no own eye (padded), or -1 to pass.

    Rejection sampling without replacement over the empty-point list, as in
    :func:`fuseki.go.kernels.playout`; self-atari moves are rejected with
    probability ``p_selfatari``. Eyes are :func:`true_eye` (``michi_eyes``,
    the heavy playout) or the book's :func:`is_eye_padded` (the light one).
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
            if buf[enb + q] > 0:
                ok = True
            elif legal_code_slow(buf, q, color) == OK:
                ok = not (true_eye(buf, q, color) if michi_eyes else is_eye_padded(buf, q, color))
            if ok and p_selfatari > 0.0 and buf[enb + q] < 2:
                if np.random.random() < p_selfatari and self_atari(buf, q, color):
                    ok = False
        if ok:
            return q
        m -= 1
        a = buf[e0 + m]
        buf[e0 + i] = a
        buf[e0 + m] = q
        buf[where + a] = i
        buf[where + q] = m
    return -1


@njit(cache=True)
def light_playout(buf: np.ndarray, max_moves: int, amaf: np.ndarray, step0: int) -> int:
    """The book's playout (random, never an own eye) with AMAF recording; returns moves played.

    ``step0`` is the number of moves already made since the search root (for AMAF).
    """
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        _commit(buf, _random_move(buf, color, 0.0, False), color, amaf, step0 + moves)
        moves += 1
    buf[M_NLEGAL] = -1
    return moves


@njit(cache=True)
def _pick(buf: np.ndarray, cand: np.ndarray, k: int, color: int, p_selfatari: float) -> int:
    """Try the candidates ``cand[:k]`` in random order; the first legal, acceptable one wins (or -1)."""
    while k > 0:
        i = np.random.randint(k)
        q = cand[i]
        k -= 1
        cand[i] = cand[k]
        if _legal(buf, q, color):
            if p_selfatari > 0.0 and np.random.random() < p_selfatari and self_atari(buf, q, color):
                continue
            return q
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
) -> int:
    """Play a Michi-style heavy playout in place; returns the number of moves.

    ``last2`` is the padded point of the move before the last one (-1 if none
    or a pass): the capture heuristic looks around both. ``cand`` is scratch
    space of at least ``4 * NP`` ints; ``step0`` as in :func:`light_playout`.
    ``kinds[k]`` counts the moves that came from each rule (``KIND_CAPTURE``,
    ``KIND_PAT3``, ``KIND_RANDOM``, ``KIND_PASS``): a statistic to compare
    with other engines' playouts (benchmarks/michi_stats.py), one add a move.
    """
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    head = META + B_HEAD * np_
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        lp = buf[M_LAST]
        last = PAD[n, lp] if 0 <= lp < n * n else -1
        chosen = -1
        if last >= 0 and np.random.random() < p_capture:
            k = 0
            # Only strings on or next to the last move can have come into
            # atari by it (Michi scans the 3x3 blocks of the last two moves;
            # the diagonals cannot add an atari). Next to our own previous
            # move, only enemy strings matter: ones it put in atari that the
            # opponent left there. The atari test is inlined: few strings
            # are in atari, and a call costs more than the test.
            for c in (last, last - w, last + w, last - 1, last + 1):
                b = buf[META + c]
                if (b == BLACK or b == WHITE) and _atari_liberty(buf, np_, buf[head + c]) >= 0:
                    k = atari_moves(buf, c, color, cand, k)
            if last2 >= 0:
                opp = 3 - color
                for c in (last2 - w, last2 + w, last2 - 1, last2 + 1):
                    if buf[META + c] == opp:
                        lib = _atari_liberty(buf, np_, buf[head + c])
                        if lib >= 0:
                            cand[k] = lib
                            k += 1
            if k > 0:
                chosen = _pick(buf, cand, k, color, p_selfatari)
        kind = KIND_CAPTURE
        if chosen < 0 and last >= 0 and np.random.random() < p_pat3:
            kind = KIND_PAT3
            k = 0
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    c = last + dr * w + dc
                    if c != last and buf[META + c] == EMPTY and pat3_match(buf, c):
                        cand[k] = c
                        k += 1
            if k > 0:
                chosen = _pick(buf, cand, k, color, p_selfatari)
        if chosen < 0:
            chosen = _random_move(buf, color, p_selfatari_random, True)
            kind = KIND_RANDOM if chosen >= 0 else KIND_PASS
        kinds[kind] += 1
        last2 = last
        _commit(buf, chosen, color, amaf, step0 + moves)
        moves += 1
    buf[M_NLEGAL] = -1
    return moves
