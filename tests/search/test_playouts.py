"""Playout kernels of the fast Go MCTS: bookkeeping, termination, scoring and tactics."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.go import Color, GameState
from fuseki.go import kernels as K
from fuseki.go.ladder import ladder_captured
from fuseki.search.go.reader import reader_stack
from fuseki.search.go.playouts import (
    KIND_CAPTURE,
    KIND_PAT3,
    NKINDS,
    bad_self_atari,
    fix_atari,
    heavy_playout,
    light_playout,
    pat3_match,
    playout_score,
    self_atari,
    true_eye,
)


def pad(state_or_n: GameState | int, r: int, c: int) -> int:
    n = state_or_n if isinstance(state_or_n, int) else state_or_n.size
    return int(K.PAD[n, r * n + c])


def random_position(n: int, seed: int, moves: int) -> np.ndarray:
    """A buffer after ``moves`` moves of the book's random play (no own eyes), seeded."""
    buf = GameState.new(n)._buf.copy()
    K.seed_kernels(seed)
    K.playout(buf, K.POLICY_NO_EYES, moves)
    return buf


def block(buf: np.ndarray, b: int) -> np.ndarray:
    np_ = int(buf[K.M_NP])
    return buf[K.META + b * np_ : K.META + (b + 1) * np_]


def assert_consistent(buf: np.ndarray) -> None:
    """The incremental bookkeeping equals a rebuild from the colours alone."""
    n = int(buf[K.M_N])
    np_ = int(buf[K.M_NP])
    fresh = buf.copy()
    K.rebuild(fresh)
    board = block(buf, K.B_BOARD)
    assert np.array_equal(board, block(fresh, K.B_BOARD))
    assert K.board_hash(buf) == K.board_hash(fresh)
    stones = np.flatnonzero((board == K.BLACK) | (board == K.WHITE))
    head, head2 = block(buf, K.B_HEAD), block(fresh, K.B_HEAD)
    nxt = block(buf, K.B_NEXT)
    # The same partition into strings.
    groups: dict[int, set[int]] = {}
    groups2: dict[int, set[int]] = {}
    for q in stones:
        groups.setdefault(int(head[q]), set()).add(int(q))
        groups2.setdefault(int(head2[q]), set()).add(int(q))
    assert sorted(map(sorted, groups.values())) == sorted(map(sorted, groups2.values()))
    for root, members in groups.items():
        assert board[root] == board[next(iter(members))] and root in members
        # The circular list visits exactly the string.
        walk, s = [], root
        while True:
            walk.append(s)
            s = int(nxt[s])
            if s == root or len(walk) > np_:
                break
        assert sorted(walk) == sorted(members)
    for b in (K.B_SIZE, K.B_PLIB, K.B_LSUM, K.B_LSQ):
        inc, reb = block(buf, b), block(fresh, b)
        for q in stones:
            assert inc[head[q]] == reb[head2[q]], (b, q)
    assert np.array_equal(block(buf, K.B_ENB)[board == K.EMPTY], block(fresh, K.B_ENB)[board == K.EMPTY])
    e0 = K.META + K.NBLOCKS * np_
    empties = buf[e0 : e0 + buf[K.M_NEMPTY]]
    assert sorted(empties.tolist()) == sorted(np.flatnonzero(board == K.EMPTY).tolist())
    where = block(buf, K.B_WHERE)
    for i, q in enumerate(empties):
        assert where[q] == i
    assert int(buf[K.M_NEMPTY]) == int(np.sum(board[K.PAD[n, : n * n]] == K.EMPTY))


def legal_non_eye_moves(buf: np.ndarray, color: int, michi_eyes: bool = False) -> list[int]:
    """Padded points where ``color`` may play (simple ko) without filling an own eye
    (the heavy playout's :func:`true_eye` with ``michi_eyes``, else the book's)."""
    n = int(buf[K.M_N])
    b = buf.copy()
    b[K.M_TOMOVE] = color
    out = []
    for p in range(n * n):
        q = int(K.PAD[n, p])
        eye = true_eye(b, q, color) if michi_eyes else K.is_eye(b, p, color)
        if K.legal_code(b, p) == K.OK and not eye:
            out.append(int(K.PAD[n, p]))
    return out


def run_heavy(buf: np.ndarray, max_moves: int, p_sa_random: float = 0.5) -> tuple[int, np.ndarray]:
    np_ = int(buf[K.M_NP])
    amaf = np.zeros(np_, dtype=np.int32)
    cand = np.zeros(8 * np_, dtype=np.int32)
    kinds = np.zeros(4, dtype=np.int64)
    n = int(buf[K.M_N])
    moves = heavy_playout(buf, max_moves, amaf, -1, 0.9, 0.95, 0.9, p_sa_random, cand, 0, kinds, *reader_stack(n, 4 * n), 200)
    return moves, amaf


def run_light(buf: np.ndarray, max_moves: int) -> tuple[int, np.ndarray]:
    amaf = np.zeros(int(buf[K.M_NP]), dtype=np.int32)
    return light_playout(buf, max_moves, amaf, 0), amaf


CASES = [(5, 1, 6), (7, 2, 20), (9, 3, 40), (9, 4, 0), (13, 5, 60), (19, 6, 100)]


@pytest.mark.parametrize("kind", ["heavy", "light"])
@pytest.mark.parametrize("n,seed,pre", CASES)
def test_playout_keeps_buffer_consistent_and_ends(kind: str, n: int, seed: int, pre: int) -> None:
    for rep in range(3):
        buf = random_position(n, seed * 100 + rep, pre)
        assert_consistent(buf)
        start_board = block(buf, K.B_BOARD).copy()
        cap = 4 * n * n
        K.seed_kernels(seed * 7 + rep)
        moves, amaf = run_heavy(buf, cap) if kind == "heavy" else run_light(buf, cap)
        assert_consistent(buf)
        assert 0 < moves <= cap
        assert buf[K.M_PASSES] >= 2 or moves == cap
        assert buf[K.M_NLEGAL] == -1  # the legal list is marked stale
        # AMAF: the first player at every point that changed, at a step within the playout.
        end_board = block(buf, K.B_BOARD)
        changed = np.flatnonzero(end_board != start_board)
        for q in changed:
            if start_board[q] == K.EMPTY:
                assert amaf[q] != 0
                assert amaf[q] & 3 in (K.BLACK, K.WHITE)
                assert 0 <= amaf[q] >> 2 < moves


@pytest.mark.parametrize("kind", ["heavy", "heavy-strict", "light"])
@pytest.mark.parametrize("n,seed,pre", CASES)
def test_finished_playout_leaves_no_move_and_scores_by_area(kind: str, n: int, seed: int, pre: int) -> None:
    finished = 0
    for rep in range(4):
        buf = random_position(n, seed * 1000 + rep, pre)
        K.seed_kernels(seed * 13 + rep)
        cap = 10 * n * n
        if kind == "light":
            moves, _ = run_light(buf, cap)
        else:
            moves, _ = run_heavy(buf, cap, 0.0 if kind == "heavy-strict" else 0.5)
        if buf[K.M_PASSES] < 2:
            assert moves == cap
            continue
        finished += 1
        for color in (K.BLACK, K.WHITE):
            left = legal_non_eye_moves(buf, color, michi_eyes=kind != "light")
            if kind == "heavy":
                # A random move may be refused as self-atari (p_selfatari_random), nothing else.
                stack = reader_stack(n, 4 * n)
                assert all(bad_self_atari(buf, q, color, True, *stack, 200) for q in left), (color, left)
            else:
                assert left == [], (color, left)
        # Only isolated empty points are left, so the cheap count is exact.
        board = block(buf, K.B_BOARD)
        assert all(block(buf, K.B_ENB)[q] <= 1 for q in np.flatnonzero(board == K.EMPTY))
        assert playout_score(buf) == K.area_score(buf)
    assert finished >= 2


@pytest.mark.parametrize("kind", ["heavy", "light"])
def test_playouts_never_fill_own_eyes(kind: str) -> None:
    """Step the playout one move at a time: a random or pattern move never fills an eye of the mover."""
    for seed in range(6):
        n = 7
        buf = random_position(n, 500 + seed, 10)
        K.seed_kernels(seed)
        for _ in range(6 * n * n):
            if buf[K.M_PASSES] >= 2:
                break
            color = int(buf[K.M_TOMOVE])
            eye = true_eye if kind == "heavy" else K.is_eye_padded
            eyes = {q for q in range(int(buf[K.M_NP])) if K.UNPAD[n, q] >= 0 and buf[K.META + q] == K.EMPTY and eye(buf, q, color)}
            if kind == "heavy":
                run_heavy(buf, 1)
            else:
                run_light(buf, 1)
            last = int(buf[K.M_LAST])
            if last < n * n:
                q = int(K.PAD[n, last])
                assert q not in eyes, (seed, q)


def test_playout_score_counts_stones_and_surrounded_points() -> None:
    s = GameState.from_ascii(
        """
        . X O . O
        X X O O .
        . X O O O
        X X O . O
        . X O O .
        """
    )
    buf = s._buf
    # Black: 7 stones + 3 eyes = 10; White: 11 stones + 4 eyes = 15.
    assert playout_score(buf) == 10 - 15
    assert playout_score(buf) == K.area_score(buf)


# ---- self-atari ---------------------------------------------------------------


def test_self_atari_on_a_string_of_three() -> None:
    s = GameState.from_ascii(
        """
        . O O O .
        O X X . .
        . O O O .
        . . . . .
        . . . . .
        """
    )
    assert self_atari(s._buf, pad(s, 1, 3), K.BLACK)  # the string would have only (1,4)
    assert not self_atari(s._buf, pad(s, 1, 4), K.BLACK)  # a lone stone away from the string
    assert not self_atari(s._buf, pad(s, 3, 3), K.BLACK)  # open space


def test_two_empty_neighbours_are_never_self_atari() -> None:
    s = GameState.from_ascii(
        """
        . O O O .
        O X X . .
        . O O . .
        . . . . .
        . . . . .
        """
    )
    assert not self_atari(s._buf, pad(s, 1, 3), K.BLACK)


def test_lone_stone_throw_in_is_not_self_atari() -> None:
    s = GameState.from_ascii(
        """
        . O . . .
        . O . . .
        O O . . .
        . . . . .
        . . . . .
        """
    )
    q = pad(s, 0, 0)
    assert not self_atari(s._buf, q, K.BLACK)  # one liberty, but a single stone (throw-in)
    t = s.play((0, 0))
    assert t.liberties((0, 0)) == 1


def test_capturing_move_is_not_self_atari() -> None:
    capture = GameState.from_ascii(
        """
        X O X . .
        X . O . .
        O . . . .
        . . . . .
        . . . . .
        """
    )
    q = pad(capture, 1, 1)
    assert not self_atari(capture._buf, q, K.BLACK)
    assert capture.play((1, 1)).liberties((1, 1)) == 2
    # The same shape without the capture is a self-atari.
    no_capture = GameState.from_ascii(
        """
        X O . . .
        X . O . .
        O . . . .
        . . . . .
        . . . . .
        """
    )
    assert no_capture.play((1, 1)).liberties((1, 1)) == 1
    assert self_atari(no_capture._buf, q, K.BLACK)


def test_capture_of_a_string_touching_both_joined_strings_is_not_self_atari() -> None:
    """Captured stones count as liberties wherever they touch the new string, not only next to the move."""
    s = GameState.from_ascii(
        """
        X O O X .
        X . X O .
        O O O . .
        . . . . .
        . . . . .
        """
    )
    after = s.play((1, 1))  # captures the two white stones on top
    assert after.liberties((1, 1)) == 2
    assert not self_atari(s._buf, pad(s, 1, 1), K.BLACK)


# ---- atari moves -------------------------------------------------------------


def atari_list(state: GameState, r: int, c: int, me: int, ladders: bool = False, edge_only: bool = False) -> set[tuple[int, int]]:
    """The moves of :func:`fix_atari` for the string at (r, c), as points (no ladder reading unless ``ladders``)."""
    out = np.zeros(8 * (state.size + 2) ** 2, dtype=np.int32)
    sizes = np.zeros_like(out)
    q = pad(state, r, c)
    if state._buf[K.META + q] == K.EMPTY:
        return set()
    stack = reader_stack(state.size, 4 * state.size)
    k = fix_atari(state._buf, q, me, out, sizes, 0, edge_only, *stack, 200 if ladders else 0)
    w = state.size + 2
    return {(int(q) // w - 1, int(q) % w - 1) for q in out[:k]}


def test_fix_atari_capture_an_enemy_string_in_atari() -> None:
    s = GameState.from_ascii(
        """
        . X . . .
        X O O X .
        . X X . .
        . . . . .
        . . . . .
        """,
        to_move=Color.BLACK,
    )
    assert atari_list(s, 1, 1, K.BLACK) == {(0, 2)}
    assert atari_list(s, 1, 2, K.BLACK) == {(0, 2)}  # any stone of the string
    assert atari_list(s, 0, 1, K.BLACK) == set()  # not in atari
    assert atari_list(s, 3, 3, K.BLACK) == set()  # empty point


def test_fix_atari_extend_only_when_it_gains_liberties() -> None:
    no_gain = GameState.from_ascii(
        """
        . X . . .
        X O O X .
        . X X . .
        . . . . .
        . . . . .
        """,
        to_move=Color.WHITE,
    )
    # White's string is in atari; extending at (0,2) leaves one liberty, (0,3): no gain.
    assert no_gain.play((0, 2)).liberties((0, 2)) == 1
    assert atari_list(no_gain, 1, 1, K.WHITE) == set()
    open_side = GameState.from_ascii(
        """
        . . . . .
        . X . . .
        X O O X .
        . X X . .
        . . . . .
        """,
        to_move=Color.WHITE,
    )
    # In atari at (1,2); extending there gives (0,2) and (1,3): two liberties.
    assert open_side.play((1, 2)).liberties((1, 2)) >= 2
    assert atari_list(open_side, 2, 1, K.WHITE) == {(1, 2)}
    # For Black the same string is a capture at the same point.
    assert atari_list(open_side, 2, 1, K.BLACK) == {(1, 2)}


def test_fix_atari_counter_capture() -> None:
    s = GameState.from_ascii(
        """
        . O X . .
        O X X O .
        . O O . .
        . . . . .
        . . . . .
        """,
        to_move=Color.BLACK,
    )
    # Black's three stones have one liberty, (0,3); White's (0,1) stone is in atari at (0,0).
    assert s.liberties((1, 1)) == 1 and s.liberties((0, 1)) == 1
    moves = atari_list(s, 1, 1, K.BLACK)
    assert (0, 0) in moves  # capture the white stone next to the string
    # Extending at (0,3) leaves one liberty, (0,4): no extension.
    assert s.play((0, 3)).liberties((0, 3)) == 1
    assert moves == {(0, 0)}


def test_pat3_match_on_the_board() -> None:
    s = GameState.from_ascii(
        """
        . . . . .
        . X O X .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    assert pat3_match(s._buf, pad(s, 2, 2))  # enclosing hane under the white stone
    assert not pat3_match(s._buf, pad(s, 4, 4))  # empty corner


# ---- Michi's eye test, fix_atari with ladders, bad self-atari -----------------


def test_true_eye_allows_empty_diagonals_but_not_two_enemy_stones() -> None:
    s = GameState.from_ascii(
        """
        . . . . .
        . O O O .
        O . O . O
        . O O O .
        . . . . .
        """
    )
    left, right = pad(s, 2, 1), pad(s, 2, 3)
    # Two empty diagonals: an eye for Michi, none for the book (which wants three own diagonals).
    assert true_eye(s._buf, left, K.WHITE) and true_eye(s._buf, right, K.WHITE)
    assert not K.is_eye_padded(s._buf, left, K.WHITE)
    assert not true_eye(s._buf, left, K.BLACK)  # the opponent's eye is no eye of Black's
    one = GameState.from_ascii(
        """
        . . . . .
        X O O O .
        O . O . O
        . O O O .
        . . . . .
        """
    )
    assert true_eye(one._buf, left, K.WHITE)  # one enemy diagonal: still an eye
    two = GameState.from_ascii(
        """
        . . . . .
        X O O O .
        O . O . O
        X O O O .
        . . . . .
        """
    )
    assert not true_eye(two._buf, left, K.WHITE)  # two: a false eye
    edge = GameState.from_ascii(
        """
        O . O . .
        X O . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    assert not true_eye(edge._buf, pad(edge, 0, 1), K.WHITE)  # at the edge one enemy diagonal is enough


LADDER = """
    . . . . . . .
    . . . . . . .
    . . X X . . .
    . X O . . . .
    . . X . . . .
    . . . . . . .
    . . . . . . .
"""


def test_fix_atari_does_not_escape_into_a_ladder() -> None:
    s = GameState.from_ascii(LADDER, to_move=Color.WHITE)
    assert s.liberties((3, 2)) == 1
    escaped = s.play((3, 3))
    assert escaped.liberties((3, 3)) == 2
    assert ladder_captured(escaped._buf, 3 * 7 + 3)  # the premise: Black takes it in a ladder
    assert atari_list(s, 3, 2, K.WHITE) == {(3, 3)}  # without reading, extending is a save
    assert atari_list(s, 3, 2, K.WHITE, ladders=True) == set()  # reading: it only runs into the ladder
    assert atari_list(s, 3, 2, K.BLACK, ladders=True) == {(3, 3)}  # for Black it is a capture


def test_fix_atari_finds_the_ladder_atari_on_two_liberties() -> None:
    s = GameState.from_ascii(LADDER, to_move=Color.WHITE).play((3, 3))  # Black to move; White has two liberties
    moves = atari_list(s, 3, 2, K.BLACK, ladders=True)
    assert moves and moves <= {(3, 4), (4, 3)}
    for r, c in moves:
        assert ladder_captured(s.play((r, c))._buf, 3 * 7 + 3) or s.play((r, c)).liberties((3, 3)) == 1
    assert atari_list(s, 3, 2, K.BLACK, ladders=True, edge_only=True) == set()  # liberties off the edge
    assert atari_list(s, 3, 2, K.BLACK) == set()  # no reading, no two-liberty moves


def test_bad_self_atari_reads_ladders() -> None:
    s = GameState.from_ascii(LADDER, to_move=Color.WHITE)
    stack = reader_stack(7, 28)
    q = pad(s, 3, 3)
    assert not self_atari(s._buf, q, K.WHITE)  # two liberties after it
    assert bad_self_atari(s._buf, q, K.WHITE, False, *stack, 200)  # ... that a ladder takes
    assert not bad_self_atari(s._buf, q, K.WHITE, True, *stack, 200)  # edge only: not on the first line
    assert not bad_self_atari(s._buf, q, K.WHITE, False, *stack, 0)  # no reading
    edge = GameState.from_ascii(
        """
        . . . . .
        . . . . .
        . . . . .
        O O O O .
        . X . . .
        """,
        to_move=Color.BLACK,
    )
    # Black (4,2) makes a two-stone string with liberties (4,0) and (4,3), both on the first line: White ataris and captures.
    assert bad_self_atari(edge._buf, pad(edge, 4, 2), K.BLACK, True, *reader_stack(5, 20), 200)
    assert not bad_self_atari(edge._buf, pad(edge, 4, 3), K.BLACK, True, *reader_stack(5, 20), 200)  # a lone stone


def test_heavy_playout_counts_its_moves_by_rule() -> None:
    for seed in range(3):
        buf = random_position(9, 40 + seed, 10)
        K.seed_kernels(seed)
        np_ = int(buf[K.M_NP])
        kinds = np.zeros(NKINDS, dtype=np.int64)
        moves = heavy_playout(
            buf, 500, np.zeros(np_, np.int32), -1, 0.9, 0.95, 0.9, 0.5, np.zeros(8 * np_, np.int32), 0, kinds, *reader_stack(9, 36), 200
        )
        assert int(kinds.sum()) == moves
        assert kinds[KIND_CAPTURE] > 0 and kinds[KIND_PAT3] > 0
