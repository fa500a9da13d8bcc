"""Dead stones, Benson's unconditional life, ownership and seki (spec row G8)."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.go.coords import Point
from fuseki.go.ownership import benson_alive, dead_stones, final_status, ownership, ownership_and_winrate
from fuseki.go.rules import Rules
from fuseki.go.state import Color, GameState

SEKI = """
    . X X X .
    O O O O O
    X X X X X
    X X X X X
    . X . X .
"""

# Black lives in the corner with two real eyes; a White stone sits dead in Black's area.
TWO_EYES = """
    . X . X O . . . .
    X X X X O . . . .
    O O O O O . . . .
    . . . . . . . . .
    . . . . . . X . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""

# White's three stones inside a solid Black area: dead.
DEAD_INSIDE = """
    . . . . . . . . .
    . . . . . . . . .
    . . X X X X X . .
    . . X . . . X . .
    . . X . O O X . .
    . . X . O . X . .
    . . X X X X X . .
    . . . . . . . . .
    . . . . . . . . .
"""


def mask_points(mask: np.ndarray) -> set[Point]:
    return {Point(int(r), int(c)) for r, c in zip(*np.nonzero(mask))}


# ---- Benson ----------------------------------------------------------------


def test_benson_two_real_eyes_alive() -> None:
    s = GameState.from_ascii(TWO_EYES)
    alive = benson_alive(s)
    assert alive[0, 1] and alive[1, 0] and alive[0, 3]
    # White's wall has no vital region of its own: not unconditionally alive.
    assert not alive[2, 0] and not alive[0, 4]
    assert not alive[4, 6]


def test_benson_one_eye_not_alive() -> None:
    s = GameState.from_ascii("""
        . X O . .
        X X O . .
        O O O . .
        . . . . .
        . . . . .
    """)
    assert not benson_alive(s).any()


def test_benson_big_eye_is_not_vital() -> None:
    # A 3-point eye: its middle point is not a liberty of the chain, so the region is not vital.
    s = GameState.from_ascii("""
        . . . X .
        . . . X X
        X X X X .
        . . . . .
        . . . . .
    """)
    assert not benson_alive(s).any()


def test_benson_no_enclosed_eye_and_chains_needing_each_other() -> None:
    # No enclosed eye at all: the empty points form one big region.
    s = GameState.from_ascii("""
        X . X . X
        X X . X X
        . . . . .
        . . . . .
        . . . . .
    """)
    alive = benson_alive(s)
    assert not alive.any()  # (1,2) is an empty point of a big region, so no eye is enclosed
    s = GameState.from_ascii("""
        X . X . X
        X X O X X
        O O O O O
        . . . . .
        . . . . .
    """)
    # Three chains and two eyes: the middle stone (0,2) has both eyes as vital regions, but
    # the corner chains have one each; once they drop, both eyes border a dropped chain,
    # so the middle stone loses them too. None is unconditionally alive.
    assert not benson_alive(s).any()


def test_benson_two_chains_sharing_two_eyes() -> None:
    # Two chains that share three one-point eyes: alive together.
    # Chain B is the lone stone (0,2); chain A is the rest. Each eye touches both.
    s = GameState.from_ascii("""
        X . X . X
        X X . X X
        X X X X X
        O O O O O
        . . . . .
    """)
    alive = benson_alive(s)
    assert alive[0, 2] and alive[0, 0]
    assert alive.sum() == 12  # White's line has one vital region (the bottom row) only


def test_benson_region_with_enemy_stone_can_be_vital() -> None:
    # The region {White's stone, its one empty point} is vital: every empty point in it is a
    # liberty of the chain, and White can never fill it without suicide.
    s = GameState.from_ascii("""
        . X O . X
        X X X X X
        . . . . .
        . . . . .
        . . . . .
    """)
    alive = benson_alive(s)
    assert alive[1, 0] and alive[0, 4]
    assert not alive[0, 2]


def test_benson_whole_board_two_eyes() -> None:
    s = GameState.from_ascii("""
        . X X X X
        X X X X X
        X X . X X
        X X X X X
        X X X X X
    """)
    assert benson_alive(s).sum() == 23


def test_benson_seki_strings_not_unconditional() -> None:
    alive = benson_alive(GameState.from_ascii(SEKI))
    assert alive[2:, :].sum() == 12  # the bottom group with three eyes
    assert not alive[:2, :].any()


# ---- ownership and dead stones ---------------------------------------------


def test_ownership_range_shape_and_determinism() -> None:
    s = GameState.from_ascii(DEAD_INSIDE)
    a = ownership(s, playouts=64, seed=3)
    b = ownership(s, playouts=64, seed=3)
    assert a.shape == (9, 9)
    assert np.array_equal(a, b)
    assert (a >= -1).all() and (a <= 1).all()
    assert a[2, 2] > 0.5


def test_ownership_rejects_no_playouts() -> None:
    with pytest.raises(ValueError):
        ownership(GameState.new(5), playouts=0)


def test_dead_group_inside_territory() -> None:
    s = GameState.from_ascii(DEAD_INSIDE)
    dead = dead_stones(s, playouts=200, seed=1)
    assert set(dead) == {Point(4, 4), Point(4, 5), Point(5, 4)}


def test_two_eyed_group_alive_and_intruder_dead() -> None:
    s = GameState.from_ascii(TWO_EYES)
    dead = set(dead_stones(s, playouts=200, seed=0))
    assert not dead & {Point(0, 1), Point(1, 0), Point(0, 3)}
    # the lone black stone in White's big area and the one-eyed ... stay as the playouts say;
    # the corner group is Benson-alive and therefore never dead whatever the playouts say
    status = final_status(s, playouts=20, seed=0)
    assert Point(0, 1) in status["alive"]


def test_one_eye_group_dead() -> None:
    s = GameState.from_ascii("""
        . X O . .
        X X O . .
        O O O . .
        . . . . .
        . . . . .
    """)
    assert dead_stones(s, playouts=100) == [Point(0, 1), Point(1, 0), Point(1, 1)]


def test_seki_is_not_dead() -> None:
    s = GameState.from_ascii(SEKI, rules=Rules.preset("chinese").replace(komi=0.5))
    assert dead_stones(s, playouts=100) == []
    status = final_status(s, playouts=100)
    assert set(status["seki"]) == {Point(0, c) for c in (1, 2, 3)} | {Point(1, c) for c in range(5)}
    assert len(status["alive"]) == 12
    assert status["dead"] == []


def test_final_status_partitions_every_stone() -> None:
    s = GameState.from_ascii(TWO_EYES)
    status = final_status(s, playouts=50)
    pts = status["alive"] + status["dead"] + status["seki"]
    assert len(pts) == len(set(pts)) == int((s.stones() != 0).sum())


def test_whole_strings_only() -> None:
    s = GameState.from_ascii(DEAD_INSIDE)
    dead = set(dead_stones(s, playouts=30, seed=5))
    for _, pts in s.strings():
        assert set(pts) <= dead or not set(pts) & dead


def test_score_with_dead_stones_counts_the_area() -> None:
    s = GameState.from_ascii(DEAD_INSIDE, rules=Rules.preset("chinese").replace(komi=0.0))
    score = s.score(dead=dead_stones(s))
    assert score.winner is Color.BLACK
    assert score.black >= 25  # the 16 wall stones and the 9 points inside


def test_winrate_favours_the_side_with_the_board() -> None:
    s = GameState.from_ascii(DEAD_INSIDE, rules=Rules.preset("chinese").replace(komi=0.5))
    _, black = ownership_and_winrate(s, playouts=100, seed=0)
    assert black > 0.9  # Black's wall holds a dead White group: Black wins nearly every playout
    swapped = GameState.from_ascii(
        DEAD_INSIDE.replace("X", "x").replace("O", "X").replace("x", "O"), rules=Rules.preset("chinese").replace(komi=0.5)
    )
    _, black = ownership_and_winrate(swapped, playouts=100, seed=0)
    assert black < 0.1  # colours swapped: White has the board


def test_empty_board_and_no_seed() -> None:
    s = GameState.new(9)
    assert dead_stones(s, playouts=10, seed=None) == []
    o = ownership(s, playouts=10, seed=None)
    assert o.shape == (9, 9)
