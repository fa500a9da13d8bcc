"""AlphaGo's fast rollout policy: a linear softmax over small local patterns, in Numba.

AlphaGo (Silver et al. 2016, Methods, "Rollout policy") plays its rollouts
with ``p_pi(a|s)``, a softmax of a weighted sum of binary features of each
candidate move: a 3×3 pattern around the move, response patterns around the
previous move, "save atari", captures, and so on. It predicted 24.2 % of
expert moves and chose a move in 2 µs, against 57.0 % in 3 ms for the SL
policy network: a thousand times faster, less than half as accurate, which
is what a rollout needs.

Ours, per candidate (a legal point that is not one of the mover's eyes):

=====================  ==========================================================
feature                weights
=====================  ==========================================================
non-response pattern   the 3×3 neighbourhood: each of the 8 points empty, off the
                       board, own stone (in atari / not) or opponent's stone (in
                       atari / not), 6**8 codes folded under the 8 symmetries
response pattern       for a candidate in the 12-point diamond around the last
                       move: its offset and the colours of its 3×3 neighbourhood
                       (12 × 4**8, folded under the symmetries jointly)
capture                captures 1, 2, 3+ stones, of the string of the last move or
                       of another (6)
save atari             extends an own string out of atari to 2+ liberties (1)
self-atari             leaves an own string of 2+ stones in atari (1)
line                   first, second, third, fourth-or-higher line (4)
distance               Manhattan distance to the last move and to the one before
                       (0 = none, 1..16, 17+; 18 each)
=====================  ==========================================================

``p(a) ∝ exp(Σ w_f)`` over the candidates; pass only when there is no
candidate. The weights are one float32 vector (:func:`n_weights` long); the
two pattern tables that fold codes into weight indices are built once per
process (:func:`pattern_tables`, about a second). Features depend on the
local position only, so one weight file serves every board size.

Eyes: a candidate is never a true eye of the mover (Michi's test: all
neighbours own or off the board, at most one enemy diagonal, none at the
edge). The book's eye test treats an eye with an empty diagonal as no eye,
and rollouts that fill such eyes kill living groups.

Training is in :mod:`fuseki.train.alphago.rollout` (SGD on the log-likelihood
of the moves played, with :func:`candidate_features`).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from fuseki.go.kernels import (
    B_ENB,
    B_HEAD,
    B_SIZE,
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
    PAD,
    UNPAD,
    WHITE,
    legal_code_slow,
    place_stone,
)
from fuseki.search.go.playouts import _atari_liberty, _libs_after, last_point, playout_score, self_atari, true_eye

__all__ = [
    "FEATURES_PER_MOVE",
    "RolloutPolicy",
    "candidate_features",
    "n_weights",
    "pattern_tables",
    "policy_rollout",
    "rollout_move",
    "true_eye_points",
]

# ---- the weight vector's layout -------------------------------------------------------

#: Cells of the 3×3 neighbourhood, row-major without the centre (as in :mod:`fuseki.search.go.patterns`).
_CELLS = [(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0)]
#: The 12-point diamond around the last move: (row, col) offsets of a candidate from it.
_DIAMOND = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if 0 < abs(dr) + abs(dc) <= 2]
assert len(_DIAMOND) == 12
#: ``_DIAMOND_INDEX[dr + 2, dc + 2]``: the index of offset (dr, dc) in :data:`_DIAMOND` (-1 outside).
_DIAMOND_INDEX = np.full((5, 5), -1, dtype=np.int64)
for _i, (_dr, _dc) in enumerate(_DIAMOND):
    _DIAMOND_INDEX[_dr + 2, _dc + 2] = _i
#: ``_ROW[w, q]``, ``_COL[w, q]``: row and column of padded point ``q`` at stride ``w`` (integer division is
#: the slowest instruction of a candidate's features; a table lookup is not).
_ROW = np.zeros((28, 28 * 28), dtype=np.int32)
_COL = np.zeros((28, 28 * 28), dtype=np.int32)
for _w in range(3, 28):
    for _q in range(_w * _w):
        _ROW[_w, _q] = _q // _w
        _COL[_w, _q] = _q % _w
_NPAT_CODES = 6**8
_NRESP_CODES = 12 * 4**8
N_CAPTURE = 6
N_LINE = 4
N_DIST = 18
FEATURES_PER_MOVE = 8


def _symmetries() -> list[Any]:
    """The 8 maps of the square: (dr, dc) -> (dr', dc')."""
    out = []
    for flip in (False, True):
        for rot in range(4):

            def f(dr: int, dc: int, rot: int = rot, flip: bool = flip) -> tuple[int, int]:
                if flip:
                    dc = -dc
                for _ in range(rot):
                    dr, dc = dc, -dr
                return dr, dc

            out.append(f)
    return out


@functools.lru_cache(maxsize=1)
def pattern_tables() -> tuple[np.ndarray, np.ndarray, int, int]:
    """``(PAT, RESP, n_pat, n_resp)``: code -> weight index tables and their numbers of classes.

    ``PAT[code]`` for a non-response code (base 6 over the 8 cells) and
    ``RESP[offset * 4**8 + code]`` for a response code (base 4) are the same
    index for every image of a pattern under the board's symmetries, so one
    weight learns from all eight. Built with NumPy in about a second.
    """
    syms = _symmetries()
    cell_index = {cell: k for k, cell in enumerate(_CELLS)}
    perms = [np.array([cell_index[s(*cell)] for cell in _CELLS]) for s in syms]
    # Non-response: digits base 6.
    codes = np.arange(_NPAT_CODES, dtype=np.int64)
    digits = np.stack([(codes // 6**k) % 6 for k in range(8)])
    best = codes.copy()
    for perm in perms:
        # The cell k of the image holds what cell perm^-1(k) held: new code = sum digit[k] * 6**perm[k].
        image = np.zeros_like(codes)
        for k in range(8):
            image += digits[k] * 6 ** int(perm[k])
        np.minimum(best, image, out=best)
    _, pat = np.unique(best, return_inverse=True)
    n_pat = int(pat.max()) + 1
    # Response: offset index and digits base 4.
    off_index = {d: i for i, d in enumerate(_DIAMOND)}
    codes4 = np.arange(4**8, dtype=np.int64)
    digits4 = np.stack([(codes4 // 4**k) % 4 for k in range(8)])
    keys = np.arange(_NRESP_CODES, dtype=np.int64)
    best_r = keys.copy()
    for s, perm in zip(syms, perms):
        image = np.zeros_like(codes4)
        for k in range(8):
            image += digits4[k] * 4 ** int(perm[k])
        new_off = np.array([off_index[s(*d)] for d in _DIAMOND], dtype=np.int64)
        full = (new_off[:, None] * 4**8 + image[None, :]).reshape(-1)
        np.minimum(best_r, full, out=best_r)
    _, resp = np.unique(best_r, return_inverse=True)
    n_resp = int(resp.max()) + 1
    return pat.astype(np.int32), resp.astype(np.int32), n_pat, n_resp


def _layout() -> dict[str, int]:
    _, _, n_pat, n_resp = pattern_tables()
    o: dict[str, int] = {"pattern": 0, "response": n_pat}
    o["capture"] = o["response"] + n_resp
    o["save"] = o["capture"] + N_CAPTURE
    o["self_atari"] = o["save"] + 1
    o["line"] = o["self_atari"] + 1
    o["dist1"] = o["line"] + N_LINE
    o["dist2"] = o["dist1"] + N_DIST
    o["total"] = o["dist2"] + N_DIST
    return o


def n_weights() -> int:
    """The length of the weight vector."""
    return _layout()["total"]


def _offsets() -> np.ndarray:
    o = _layout()
    return np.array([o["response"], o["capture"], o["save"], o["self_atari"], o["line"], o["dist1"], o["dist2"]], dtype=np.int64)


# ---- kernels --------------------------------------------------------------------------

# Slots of the offsets array that the kernels take.
_O_RESP, _O_CAPTURE, _O_SAVE, _O_SELFATARI, _O_LINE, _O_DIST1, _O_DIST2 = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True, inline="always")
def _candidate(buf: np.ndarray, q: int, color: int) -> bool:
    """Legal under simple ko and not a true eye of ``color``."""
    if q == buf[M_KO]:
        return False
    if buf[META + B_ENB * buf[M_NP] + q] == 0 and legal_code_slow(buf, q, color) != OK:
        return False
    return not true_eye(buf, q, color)


@njit(cache=True, inline="always")
def _dist_bin(q: int, p: int, w: int) -> int:
    if p < 0:
        return 0
    d = abs(_ROW[w, q] - _ROW[w, p]) + abs(_COL[w, q] - _COL[w, p])
    return d if d < 17 else 17


@njit(cache=True)
def _features(
    buf: np.ndarray,
    q: int,
    color: int,
    last: int,
    last2: int,
    pat: np.ndarray,
    resp: np.ndarray,
    off: np.ndarray,
    out: np.ndarray,
    k0: int,
) -> int:
    """Write the weight indices of candidate ``q`` (padded) into ``out[k0:]``; return how many.

    ``last``/``last2``: padded points of the last move and the one before (-1: none or a pass).
    """
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    head = META + B_HEAD * np_
    opp = 3 - color
    code6 = 0
    code4 = 0
    m6 = 1
    m4 = 1
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            d = q + dr * w + dc
            b = buf[META + d]
            if b == EMPTY:
                s6 = 0
                s4 = 0
            elif b == BORDER:
                s6 = 1
                s4 = 3
            else:
                atari = _atari_liberty(buf, np_, buf[head + d]) >= 0
                if b == color:
                    s6 = 2 if atari else 3
                    s4 = 1
                else:
                    s6 = 4 if atari else 5
                    s4 = 2
            code6 += s6 * m6
            code4 += s4 * m4
            m6 *= 6
            m4 *= 4
    k = k0
    out[k] = pat[code6]
    k += 1
    if last >= 0:
        dr = _ROW[w, q] - _ROW[w, last]
        dc = _COL[w, q] - _COL[w, last]
        if 0 < abs(dr) + abs(dc) <= 2:
            out[k] = off[_O_RESP] + resp[_DIAMOND_INDEX[dr + 2, dc + 2] * 65536 + code4]
            k += 1
    # Captures and saves, from the four neighbours' strings.
    captured = 0
    of_last = False
    save = False
    r0 = -1
    r1 = -1
    r2 = -1
    for d in (q - w, q + w, q - 1, q + 1):
        b = buf[META + d]
        if b != BLACK and b != WHITE:
            continue
        root = buf[head + d]
        if _atari_liberty(buf, np_, root) < 0:
            continue
        if b == opp:
            if root == r0 or root == r1 or root == r2:
                continue
            if r0 < 0:
                r0 = root
            elif r1 < 0:
                r1 = root
            else:
                r2 = root
            captured += buf[META + B_SIZE * np_ + root]
            if last >= 0 and buf[META + last] == opp and buf[head + last] == root:
                of_last = True
        elif not save:
            save = _libs_after(buf, q, color, 2) >= 2
    if captured > 0:
        size_bin = 0 if captured == 1 else (1 if captured == 2 else 2)
        out[k] = off[_O_CAPTURE] + size_bin + (3 if of_last else 0)
        k += 1
    if save:
        out[k] = off[_O_SAVE]
        k += 1
    if captured == 0 and self_atari(buf, q, color):
        out[k] = off[_O_SELFATARI]
        k += 1
    r = _ROW[w, q] - 1
    c = _COL[w, q] - 1
    line = min(min(r, c), min(n - 1 - r, n - 1 - c))
    out[k] = off[_O_LINE] + (line if line < 3 else 3)
    k += 1
    out[k] = off[_O_DIST1] + _dist_bin(q, last, w)
    k += 1
    out[k] = off[_O_DIST2] + _dist_bin(q, last2, w)
    k += 1
    return k - k0


@njit(cache=True, inline="always")
def _score(
    buf: np.ndarray,
    q: int,
    color: int,
    last: int,
    last2: int,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
) -> float:
    """The summed weight of candidate ``q``: :func:`_features` with the weights folded into the code tables.

    ``w6[code]`` is the weight of non-response code ``code`` (6**8 entries),
    ``wr[offset * 4**8 + code]`` of a response code, and ``ws`` holds the small
    features from ``capture`` on (see :meth:`RolloutPolicy.fused`): one load
    a pattern instead of two, which is what makes a rollout move cheap.
    """
    n = buf[M_N]
    w = buf[M_W]
    np_ = buf[M_NP]
    head = META + B_HEAD * np_
    opp = 3 - color
    code6 = 0
    code4 = 0
    m6 = 1
    m4 = 1
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            d = q + dr * w + dc
            b = buf[META + d]
            if b == BORDER:
                code6 += m6
                code4 += 3 * m4
            elif b != EMPTY:
                atari = _atari_liberty(buf, np_, buf[head + d]) >= 0
                if b == color:
                    code6 += (2 if atari else 3) * m6
                    code4 += m4
                else:
                    code6 += (4 if atari else 5) * m6
                    code4 += 2 * m4
            m6 *= 6
            m4 *= 4
    s = np.float64(w6[code6])
    if last >= 0:
        dr = _ROW[w, q] - _ROW[w, last]
        dc = _COL[w, q] - _COL[w, last]
        if 0 < abs(dr) + abs(dc) <= 2:
            s += wr[_DIAMOND_INDEX[dr + 2, dc + 2] * 65536 + code4]
    captured = 0
    of_last = False
    save = False
    r0 = -1
    r1 = -1
    r2 = -1
    for d in (q - w, q + w, q - 1, q + 1):
        b = buf[META + d]
        if b != BLACK and b != WHITE:
            continue
        root = buf[head + d]
        if _atari_liberty(buf, np_, root) < 0:
            continue
        if b == opp:
            if root == r0 or root == r1 or root == r2:
                continue
            if r0 < 0:
                r0 = root
            elif r1 < 0:
                r1 = root
            else:
                r2 = root
            captured += buf[META + B_SIZE * np_ + root]
            if last >= 0 and buf[META + last] == opp and buf[head + last] == root:
                of_last = True
        elif not save:
            save = _libs_after(buf, q, color, 2) >= 2
    # ws: capture (6), save (1), self-atari (1), line (4), dist1 (18), dist2 (18).
    if captured > 0:
        s += ws[(0 if captured == 1 else (1 if captured == 2 else 2)) + (3 if of_last else 0)]
    if save:
        s += ws[6]
    if captured == 0 and self_atari(buf, q, color):
        s += ws[7]
    r = _ROW[w, q] - 1
    c = _COL[w, q] - 1
    line = min(min(r, c), min(n - 1 - r, n - 1 - c))
    s += ws[8 + (line if line < 3 else 3)]
    s += ws[12 + _dist_bin(q, last, w)]
    s += ws[12 + N_DIST + _dist_bin(q, last2, w)]
    return s


@njit(cache=True, inline="always")
def score_candidates(
    buf: np.ndarray,
    last2: int,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
) -> tuple[int, float]:
    """The candidates of the player to move with their summed weights (:func:`_score`): ``(k, best)``.

    ``points[:k]`` gets the candidates (padded), ``scores[:k]`` their scores,
    ``best`` the highest (-1e30 when there is none). The rollout moves and
    the AlphaGo tree's priors both start from them.
    """
    color = buf[M_TOMOVE]
    last = last_point(buf)
    e0 = META + NBLOCKS * buf[M_NP]
    k = 0
    best = -1e30
    for e in range(buf[M_NEMPTY]):
        q = buf[e0 + e]
        if not _candidate(buf, q, color):
            continue
        s = _score(buf, q, color, last, last2, w6, wr, ws)
        points[k] = q
        scores[k] = s
        if s > best:
            best = s
        k += 1
    return k, best


@njit(cache=True)
def candidate_features(
    buf: np.ndarray,
    last2: int,
    pat: np.ndarray,
    resp: np.ndarray,
    off: np.ndarray,
    points: np.ndarray,
    feats: np.ndarray,
) -> int:
    """The candidates of the player to move and their features; returns their number ``k``.

    ``points[:k]`` gets the candidates (padded), ``feats[:k, :]`` their weight
    indices, -1 after the last. ``last2`` is the padded point of the move
    before the last one (-1: none or a pass).
    """
    color = buf[M_TOMOVE]
    last = last_point(buf)
    e0 = META + NBLOCKS * buf[M_NP]
    k = 0
    row = np.empty(FEATURES_PER_MOVE, dtype=np.int64)
    for e in range(buf[M_NEMPTY]):
        q = buf[e0 + e]
        if not _candidate(buf, q, color):
            continue
        m = _features(buf, q, color, last, last2, pat, resp, off, row, 0)
        points[k] = q
        for j in range(FEATURES_PER_MOVE):
            feats[k, j] = row[j] if j < m else -1
        k += 1
    return k


@njit(cache=True)
def rollout_move(
    buf: np.ndarray,
    last2: int,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
    greedy: bool,
) -> int:
    """One move of the rollout policy for the player to move: a padded point, or -1 to pass.

    Samples from the softmax (``greedy``: the highest score instead). The
    weights are the fused tables of :meth:`RolloutPolicy.fused`.
    """
    k, best = score_candidates(buf, last2, w6, wr, ws, points, scores)
    if k == 0:
        return -1
    if greedy:
        for i in range(k):
            if scores[i] == best:
                return points[i]
    total = 0.0
    for i in range(k):
        scores[i] = np.exp(scores[i] - best)
        total += scores[i]
    x = np.random.random() * total
    for i in range(k):
        x -= scores[i]
        if x < 0.0:
            return points[i]
    return points[k - 1]


@njit(cache=True)
def policy_rollout(
    buf: np.ndarray,
    last2: int,
    max_moves: int,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
) -> int:
    """Play the rollout policy in place to two passes (or ``max_moves``); return Black's area minus White's.

    ``points`` and ``scores`` are scratch space of at least ``N*N`` entries.
    The score counts an empty point for the colour of all its neighbours, which
    is exact when the rollout ran to its end (every empty point then is an eye
    or dame).
    """
    n = buf[M_N]
    moves = 0
    while moves < max_moves and buf[M_PASSES] < 2:
        color = buf[M_TOMOVE]
        lp = buf[M_LAST]
        q = rollout_move(buf, last2, w6, wr, ws, points, scores, False)
        last2 = PAD[n, lp] if 0 <= lp < n * n else -1
        if q < 0:
            buf[M_PASSES] += 1
            buf[M_KO] = -1
            buf[M_LAST] = n * n
        else:
            place_stone(buf, q, color)
            buf[M_PASSES] = 0
            buf[M_LAST] = UNPAD[n, q]
        buf[M_TOMOVE] = 3 - color
        buf[M_MOVENUM] += 1
        moves += 1
    buf[M_NLEGAL] = -1
    return playout_score(buf)


@njit(cache=True)
def rollout_many(
    root: np.ndarray,
    last2: int,
    count: int,
    max_moves: int,
    komi: float,
    w6: np.ndarray,
    wr: np.ndarray,
    ws: np.ndarray,
    work: np.ndarray,
    points: np.ndarray,
    scores: np.ndarray,
) -> float:
    """Play ``count`` rollouts from ``root``; return Black's share of wins (draws count half)."""
    wins = 0.0
    for _ in range(count):
        work[:] = root
        diff = policy_rollout(work, last2, max_moves, w6, wr, ws, points, scores)
        if diff > komi:
            wins += 1.0
        elif diff == komi:
            wins += 0.5
    return wins / count


# ---- the policy object ----------------------------------------------------------------

FILE_KIND = "alphago-rollout-policy"


class RolloutPolicy:
    """The weights and the pattern tables, with Python entry points for a :class:`~fuseki.go.GameState`.

    >>> from fuseki.go import GameState
    >>> policy = RolloutPolicy.zeros()
    >>> s = GameState.new(5)
    >>> float(policy.probabilities(s).sum().round(6))      # uniform over the 25 points
    1.0
    """

    def __init__(self, weights: np.ndarray, metadata: dict[str, Any] | None = None) -> None:
        expected = n_weights()
        weights = np.ascontiguousarray(weights, dtype=np.float32).reshape(-1)
        if weights.shape != (expected,):
            raise ValueError(f"a rollout policy has {expected} weights, got {weights.shape[0]}")
        self.weights = weights
        self.metadata = dict(metadata or {})
        self.pat, self.resp, _, _ = pattern_tables()
        self.offsets = _offsets()
        self._fused: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def fused(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(w6, wr, ws)``: the weights by raw code, as the rollout kernels read them (built once)."""
        if self._fused is None:
            w = self.weights
            w6 = np.ascontiguousarray(w[self.pat])
            wr = np.ascontiguousarray(w[self.offsets[_O_RESP] + self.resp])
            ws = np.ascontiguousarray(w[self.offsets[_O_CAPTURE] :])
            self._fused = (w6, wr, ws)
        return self._fused

    @classmethod
    def zeros(cls) -> RolloutPolicy:
        """The untrained policy: uniform over the candidates."""
        return cls(np.zeros(n_weights(), dtype=np.float32))

    # -- files --

    def save(self, path: str | os.PathLike[str]) -> None:
        """A safetensors file (weights only, nothing executable) with the metadata as JSON, written atomically."""
        from safetensors.numpy import save as st_save

        from fuseki.util.atomic import write_atomic

        meta = {"kind": FILE_KIND, "weights": str(self.weights.size), "metadata": json.dumps(self.metadata, sort_keys=True)}
        write_atomic(Path(path), st_save({"weights": self.weights}, metadata=meta))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> RolloutPolicy:
        from safetensors import safe_open

        from fuseki.util.errors import InputError

        p = Path(path)
        if not p.is_file():
            raise InputError(f"no rollout policy file at {p}")
        try:
            with safe_open(str(p), framework="numpy") as f:
                meta = f.metadata() or {}
                if meta.get("kind") != FILE_KIND:
                    raise InputError(f"{p} is not a rollout policy file (kind {meta.get('kind')!r})")
                weights = f.get_tensor("weights")
        except InputError:
            raise
        except Exception as e:  # a truncated or foreign file: say which file, in one line
            raise InputError(f"cannot read rollout policy {p}: {e}") from None
        if weights.size != n_weights():
            raise InputError(f"{p} holds {weights.size} weights; this version's rollout policy has {n_weights()}")
        return cls(weights, json.loads(meta.get("metadata", "{}")))

    # -- Python entry points (tests, analysis; the search calls the kernels) --

    def _last2(self, state: Any) -> int:
        n = state.size
        parent = state.parent
        if parent is None:
            return -1
        prev = parent.last_index
        return int(PAD[n, prev]) if prev is not None and prev < n * n else -1

    def features(self, state: Any) -> tuple[np.ndarray, np.ndarray]:
        """Candidates (unpadded indices) and their weight indices ``(k, 8)``, -1 padded."""
        n = state.size
        points = np.empty(n * n, dtype=np.int64)
        feats = np.empty((n * n, FEATURES_PER_MOVE), dtype=np.int64)
        k = candidate_features(state.buffer, self._last2(state), self.pat, self.resp, self.offsets, points, feats)
        return UNPAD[n, points[:k]].astype(np.int64), feats[:k]

    def probabilities(self, state: Any) -> np.ndarray:
        """``p(a)`` over the ``N*N`` points (0 off the candidates; all 0 when there is none)."""
        n = state.size
        cand, feats = self.features(state)
        probs = np.zeros(n * n, dtype=np.float64)
        if len(cand) == 0:
            return probs
        w = np.where(feats >= 0, self.weights[np.maximum(feats, 0)], 0.0).sum(axis=1)
        e = np.exp(w - w.max())
        probs[cand] = e / e.sum()
        return probs

    def rollout_value(self, state: Any, rollouts: int = 1, max_moves: int | None = None) -> float:
        """Black's share of wins in ``rollouts`` rollouts from ``state`` (area count against komi)."""
        n = state.size
        buf = state.buffer.copy()
        cap = 3 * n * n if max_moves is None else max_moves
        work = np.empty_like(buf)
        points = np.empty(n * n, dtype=np.int64)
        scores = np.empty(n * n, dtype=np.float64)
        return float(rollout_many(buf, self._last2(state), rollouts, cap, float(state.rules.komi), *self.fused(), work, points, scores))


@njit(cache=True)
def true_eye_points(buf: np.ndarray, points: np.ndarray, color: int) -> np.ndarray:
    """For unpadded ``points``, True where the point is a true eye of ``color`` (Michi's test, as the rollouts use)."""
    n = buf[M_N]
    out = np.zeros(points.shape[0], dtype=np.bool_)
    for i in range(points.shape[0]):
        p = points[i]
        if 0 <= p < n * n:
            q = PAD[n, p]
            out[i] = buf[META + q] == EMPTY and true_eye(buf, q, color)
    return out
