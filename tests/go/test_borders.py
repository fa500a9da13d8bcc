"""Closing the borders at the end of a game (fuseki.go.borders, issue 22)."""

from __future__ import annotations

import numpy as np

from fuseki.go.borders import count, settled, uncertain_strings
from fuseki.go.coords import Point, to_gtp
from fuseki.go.ownership import dead_stones, ownership
from fuseki.go.rules import Rules
from fuseki.go.state import GameState, Move

CHINESE = Rules.preset("chinese")
JAPANESE = Rules.preset("japanese")

# A finished 9x9 game: a wall each, one dame (E5) in the middle of the border.
FINISHED = """
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X . O . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
"""

# A dame in Black's wall: D5 touches both colours; the territory behind it is still Black's.
WALL_DAME = """
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . . O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
"""

# A two-point gap: D5 and E5 are open (each side gains the point next to it by playing there).
GAP = """
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . . . O . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
"""

# Black inside White's ring and White's ring inside Black's: a capture race nobody has played out.
RACE = """
    X X X X O O O O O
    X X X O O . O . O
    X X O X X O O O O
    X O . X . X O . O
    X O X X X X O O O
    X O O O O O O . O
    X X X X X X O O O
    . . . . X O . . .
    . . . . X O . . .
"""


def vertices(points, n=9):  # type: ignore[no-untyped-def]
    return sorted(to_gtp(p, n) for p in points)


def test_a_settled_board_counts_as_the_plain_score() -> None:
    for rules in (CHINESE, JAPANESE):
        s = GameState.from_ascii(FINISHED, rules=rules)
        c = count(s)
        plain = s.score()
        assert (c.black, c.white, c.result) == (plain.black, plain.white, plain.result)
        assert vertices(Point(int(r), int(k)) for r, k in np.argwhere(c.dame)) == ["E5"]
        assert not c.open.any()
        assert settled(s, [], ownership(s))


def test_a_dame_in_a_wall_does_not_give_the_territory_behind_it_away() -> None:
    s = GameState.from_ascii(WALL_DAME, rules=JAPANESE)
    # Tromp-Taylor's count: Black's area touches White through D5, so it is nobody's.
    assert s.score().black == 0
    c = count(s)
    assert c.territory_black.sum() == 27 and c.territory_white.sum() == 4 * 9
    assert vertices(Point(int(r), int(k)) for r, k in np.argwhere(c.dame)) == ["D5"]
    assert (c.black, c.white) == (27.0, 36.0 + 6.5) and not c.open.any()


def test_a_gap_in_the_border_costs_its_points_only() -> None:
    s = GameState.from_ascii(GAP, rules=JAPANESE)
    c = count(s)
    assert vertices(c.open_points) == ["D5", "E5"]
    assert c.territory_black.sum() == 27 and c.territory_white.sum() == 4 * 9 - 1
    assert not c.dame.any()
    assert not settled(s, [])


def test_an_open_border_counts_for_nobody_and_is_named() -> None:
    s = GameState.from_ascii(
        """
        X . . O .
        X . . O .
        X . . O .
        X . . O .
        X . . O .
        """,
        rules=CHINESE.replace(komi=0.5),
    )
    c = count(s)
    assert vertices(c.open_points, 5) == sorted(f"{col}{row}" for col in "BC" for row in range(1, 6))
    assert c.territory_black.sum() == 0 and c.territory_white.sum() == 5
    assert c.result == "W+5.5"
    assert not settled(s, [])


def test_an_early_pass_on_an_almost_empty_board_is_not_settled() -> None:
    s = GameState.new(9, CHINESE)
    for v in ("E5", "C3"):
        s = s.play(Move.from_gtp(v, 9))
    own = ownership(s, playouts=200, seed=0)
    dead = dead_stones(s, playouts=200, seed=0)
    assert len(count(s, dead).open_points) > 20
    assert not settled(s, dead, own)
    # An empty board is all open space.
    empty = GameState.new(9, CHINESE)
    assert count(empty).open.all() and not settled(empty, [])


def test_an_open_capture_race_is_uncertain() -> None:
    s = GameState.from_ascii(RACE, rules=CHINESE)
    own = ownership(s, playouts=400, seed=0)
    dead = dead_stones(s, playouts=400, seed=0)
    weak = set(vertices(uncertain_strings(s, own, dead)))
    assert {"C5", "D5", "E5", "D6", "F5"} <= weak  # Black's string inside White's ring
    assert "A9" not in weak and "J1" not in weak  # the living outside groups are certain
    assert not settled(s, dead, own)


def test_dead_stones_are_removed_and_counted_as_prisoners_under_territory_rules() -> None:
    s = GameState.from_ascii(
        """
        . . . X O . . . .
        . O . X O . . . .
        . . . X O . . . .
        . . . X O . . . .
        . . . X . O . . .
        . . . X O . . . .
        . . . X O . . . .
        . . . X O . . X .
        . . . X O . . . .
        """,
        rules=JAPANESE,
    )
    dead = [p for p in dead_stones(s, playouts=300, seed=0)]
    assert vertices(dead) == ["B8", "H2"]
    c = count(s, dead)
    plain = s.score(dead=dead)
    assert (c.black, c.white) == (plain.black, plain.white)


def test_doctests() -> None:
    import doctest

    from fuseki.go import borders

    failures, _ = doctest.testmod(borders)
    assert failures == 0
