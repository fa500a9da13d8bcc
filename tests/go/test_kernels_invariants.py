"""Property tests (hypothesis) of the board kernels over random games.

After every move of a random game, the incremental bookkeeping must equal what
is recomputed from the colours alone: the Zobrist hash, the strings with their
liberties, the empty-point list and the legal-move list. Undo must give back
the exact earlier state, and stones on the board must balance with captures.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseki.go import GameState, Rules
from fuseki.go import kernels as K
from fuseki.go.coords import Point

SIZES = st.sampled_from([2, 3, 4, 5, 7, 9, 13, 19, 25])
RULES = st.sampled_from(["gnugo", "chinese", "book", "tromp-taylor", "japanese"])


def random_game(size: int, rules: str, seed: int, max_moves: int) -> list[GameState]:
    """All states of one random game (pass is rare, so games have many captures)."""
    rng = random.Random(seed)
    state = GameState.new(size, rules)
    states = [state]
    for _ in range(max_moves):
        if state.is_over():
            break
        pts = state.legal_points()
        if len(pts) > 1 and rng.random() > 0.05:
            move = int(pts[rng.randrange(len(pts) - 1)])
        else:
            move = size * size
        state = state.play(move)
        states.append(state)
    return states


def recomputed_hash(state: GameState) -> int:
    h = 0
    stones = state.stones()
    n = state.size
    for r in range(n):
        for c in range(n):
            v = int(stones[r, c])
            if v:
                h ^= int(K.ZOBRIST[v, (r + 1) * (n + 2) + c + 1])
    return h


def strings_from_scratch(stones: np.ndarray) -> list[tuple[int, frozenset, int]]:
    """(colour, points, exact liberties) of every string, by flood fill in plain Python."""
    n = stones.shape[0]
    seen: set[tuple[int, int]] = set()
    out = []
    for r in range(n):
        for c in range(n):
            color = int(stones[r, c])
            if not color or (r, c) in seen:
                continue
            stack, pts, libs = [(r, c)], set(), set()
            seen.add((r, c))
            while stack:
                a, b = stack.pop()
                pts.add((a, b))
                for x, y in ((a - 1, b), (a + 1, b), (a, b - 1), (a, b + 1)):
                    if 0 <= x < n and 0 <= y < n:
                        v = int(stones[x, y])
                        if v == 0:
                            libs.add((x, y))
                        elif v == color and (x, y) not in seen:
                            seen.add((x, y))
                            stack.append((x, y))
            out.append((color, frozenset(pts), len(libs)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=SIZES, rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_incremental_state_matches_recomputation(size: int, rules: str, seed: int) -> None:
    states = random_game(size, rules, seed, max_moves=3 * size * size)
    for state in states:
        stones = state.stones()
        # The hash is the one recomputed from the stones.
        assert state.hash == recomputed_hash(state)
        # Every string has a liberty, and the engine's liberty count is exact.
        for _color, pts, libs in strings_from_scratch(stones):
            assert libs > 0
            r, c = next(iter(pts))
            assert state.liberties(Point(r, c)) == libs
        engine_strings = {(int(col), frozenset(map(tuple, pts))) for col, pts in state.strings()}
        assert engine_strings == {(col, pts) for col, pts, _ in strings_from_scratch(stones)}
        # A rebuild from the colours reproduces the pseudo-liberty sums of each string.
        fresh = state._buf.copy()
        K.rebuild(fresh)
        np_ = (size + 2) ** 2
        for block in (K.B_PLIB, K.B_LSUM, K.B_LSQ, K.B_SIZE):
            inc = state._buf[K.META + block * np_ : K.META + (block + 1) * np_]
            reb = fresh[K.META + block * np_ : K.META + (block + 1) * np_]
            heads_inc = state._buf[K.META + K.B_HEAD * np_ : K.META + (K.B_HEAD + 1) * np_]
            heads_reb = fresh[K.META + K.B_HEAD * np_ : K.META + (K.B_HEAD + 1) * np_]
            board = state._buf[K.META : K.META + np_]
            for q in np.flatnonzero((board == K.BLACK) | (board == K.WHITE)):
                assert inc[heads_inc[q]] == reb[heads_reb[q]]
        # Every point knows how many of its neighbours are empty.
        padded = np.pad(stones, 1, constant_values=K.BORDER)
        empty_nb = sum((np.roll(padded, s, axis=a) == 0) for s in (1, -1) for a in (0, 1))[1:-1, 1:-1]
        enb = state._buf[K.META + K.B_ENB * np_ : K.META + (K.B_ENB + 1) * np_].reshape(size + 2, size + 2)
        assert np.array_equal(enb[1:-1, 1:-1], empty_nb)
        # The empty-point list holds exactly the empty points.
        e0 = K.META + K.NBLOCKS * np_
        empties = state._buf[e0 : e0 + state._buf[K.M_NEMPTY]]
        assert sorted(int(K.UNPAD[size, q]) for q in empties) == sorted(np.flatnonzero(stones.ravel() == 0))


@settings(max_examples=40, deadline=None)
@given(size=SIZES, rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_legal_points_agree_with_why_illegal(size: int, rules: str, seed: int) -> None:
    """The fast legal list equals a point-by-point check of every move."""
    states = random_game(size, rules, seed, max_moves=2 * size * size)
    for state in states[:: max(1, len(states) // 12)]:
        if state.is_over():
            continue
        fast = sorted(int(p) for p in state.legal_points())
        slow = [p for p in range(size * size + 1) if state.why_illegal(p) is None]
        assert fast == slow
        for p in range(size * size):
            reason = state.why_illegal(p)
            if reason is not None:
                try:
                    state.play(p)
                except Exception as e:  # noqa: BLE001 - the reason must match the exception
                    assert getattr(e, "reason", None) == reason
                else:
                    raise AssertionError(f"move {p} was reported {reason!r} but play accepted it")


@settings(max_examples=40, deadline=None)
@given(size=SIZES, rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_undo_restores_exact_state(size: int, rules: str, seed: int) -> None:
    states = random_game(size, rules, seed, max_moves=2 * size * size)
    snapshots = [s._buf.copy() for s in states]
    final = states[-1]
    for i in range(len(states) - 1, 0, -1):
        prev = final.undo()
        assert prev is states[i - 1]
        assert np.array_equal(prev._buf, snapshots[i - 1])
        # Replaying the same move from the undone state gives the same position.
        again = prev.play(final.move_played())
        assert np.array_equal(again._buf, final._buf)
        final = prev


@settings(max_examples=40, deadline=None)
@given(size=SIZES, rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_stone_counts_balance_with_captures(size: int, rules: str, seed: int) -> None:
    """Stones on the board = stones played - stones captured, for each colour."""
    states = random_game(size, rules, seed, max_moves=3 * size * size)
    played = {1: 0, 2: 0}
    for prev, state in zip(states, states[1:]):
        if state.move_played().is_play:
            played[int(prev.next_player)] += 1
        stones = state.stones()
        black_lost = state.captures(state.next_player.__class__.WHITE)
        white_lost = state.captures(state.next_player.__class__.BLACK)
        assert int((stones == 1).sum()) == played[1] - black_lost
        assert int((stones == 2).sum()) == played[2] - white_lost


@settings(max_examples=30, deadline=None)
@given(size=st.sampled_from([5, 7, 9, 13]), seed=st.integers(0, 2**32 - 1), policy=st.sampled_from([0, 1]))
def test_kernel_playout_keeps_invariants(size: int, seed: int, policy: int) -> None:
    """A whole playout inside the kernel leaves a position equal to its rebuild."""
    buf = K.new_board(size, 0)
    K.seed_kernels(seed % (2**31))
    moves = K.playout(buf, policy, 2 * size * size)
    assert 0 < moves <= 2 * size * size
    state = GameState.from_array(K.colors(buf).reshape(size, size), rules=Rules.preset("gnugo"))
    assert state.hash == int(K.board_hash(buf))
    for _, _pts, libs in strings_from_scratch(state.stones()):
        assert libs > 0
    if policy == K.POLICY_NO_EYES and buf[K.M_PASSES] >= 2:
        # The book's bot passes only when every legal move would fill its own eye.
        for color in (1, 2):
            buf[K.M_TOMOVE] = color
            K.fill_legal(buf)
            pts = K.legal_points(buf)[:-1]
            assert all(K.is_eye(buf, int(p), color) for p in pts)
