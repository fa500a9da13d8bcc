"""A child takes its parent's buffer when nothing else holds it; every state still reads as itself.

``GameState.play`` plays in place on the parent's buffer when only the parent
refers to it, and the parent rebuilds its buffer when it is asked again
(``GameState.__slots__`` in fuseki.go.state). These tests compare every state
of such games with the same games played by copying (a view from
``legal_points`` held across ``play`` forces the copy).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from fuseki.go.state import SNAPSHOT, GameState, IllegalMoveError


def _snapshot(s: GameState) -> tuple:
    return (
        s.stones().tobytes(),
        s.hash,
        s.next_player,
        s.move_number,
        s.captures(s.next_player),
        s.captures(s.next_player.other),
        s.last_index,
        sorted(s.legal_points().tolist()),
        s.is_over(),
    )


def _random_game(size: int, rules: str, seed: int, hold_view: bool, plies: int = 120) -> list[GameState]:
    rng = random.Random(seed)
    s = GameState.new(size, rules)
    line = [s]
    for _ in range(plies):
        if s.is_over():
            break
        pts = s.legal_points()
        p = int(pts[int(rng.random() * len(pts))])
        if not hold_view:
            del pts  # nothing else holds the buffer: the child takes it over
        s = s.play(p)  # legal_points leaves out superko repeats, so this never refuses
        line.append(s)
    return line


@pytest.mark.parametrize("size,rules,seed", [(5, "gnugo", 1), (9, "gnugo", 2), (9, "chinese", 3), (13, "gnugo", 4)])
def test_every_state_reads_the_same_as_when_copied(size: int, rules: str, seed: int) -> None:
    handed = _random_game(size, rules, seed, hold_view=False)
    copied = _random_game(size, rules, seed, hold_view=True)
    assert [s._b is None for s in copied].count(True) == 0  # held views: always copied
    assert any(s._b is None for s in handed)  # the buffers were handed down
    assert len(handed) == len(copied)
    # Oldest first, newest last, then backwards: restoring in any order gives the same states.
    for a, b in zip(handed, copied, strict=True):
        assert _snapshot(a) == _snapshot(b)
    for a, b in zip(reversed(handed), reversed(copied), strict=True):
        assert _snapshot(a) == _snapshot(b)


def test_a_restore_replays_fewer_than_snapshot_moves() -> None:
    line = _random_game(9, "gnugo", 5, hold_view=False, plies=60)
    run = longest = 0
    for s in line:
        run = run + 1 if s._b is None else 0
        longest = max(longest, run)
    assert 0 < longest < SNAPSHOT


def test_a_view_from_legal_points_never_changes() -> None:
    s = GameState.new(9, "gnugo").play(40)
    pts = s.legal_points()
    before = pts.copy()
    child = s.play(int(pts[0]))
    child.play(int(child.legal_points()[0]))
    assert np.array_equal(pts, before)


def test_branching_from_a_state_whose_buffer_was_taken() -> None:
    s = GameState.new(9, "gnugo").play(40)
    s = s.play(20)  # a state that may give its buffer away
    children = {p: s.play(p) for p in (10, 30, 50, 70)}  # the first takes it; the others restore it
    for p, child in children.items():
        assert child.last_index == p and child.parent is s
        assert child.stones()[p // 9, p % 9] == int(child.next_player.other)
    assert s.last_index == 20 and s.stones()[2, 2] == 2  # White played C7


def test_an_illegal_move_leaves_the_parent_whole() -> None:
    s = GameState.new(9, "gnugo").play(40).play(41)
    before = _snapshot(s)
    with pytest.raises(IllegalMoveError):
        s.play(40)  # occupied: the kernel refuses before it changes anything
    assert _snapshot(s) == before
    assert _snapshot(s.play(42).parent) == before  # type: ignore[arg-type]


def test_a_superko_refusal_after_the_handover_leaves_the_parent_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Superko is checked after the kernel has played the move in place: the parent must come back whole."""
    s = GameState.new(9, "chinese")
    for p in (40, 20, 60):
        s = s.play(p)
    before = _snapshot(s)
    monkeypatch.setattr("fuseki.go.state._History.seen", lambda self, key, length: True)
    with pytest.raises(IllegalMoveError) as e:
        s.play(24)
    assert e.value.reason == "superko"
    monkeypatch.undo()
    assert s._b is None  # the child had taken the buffer before the refusal
    assert _snapshot(s) == before
