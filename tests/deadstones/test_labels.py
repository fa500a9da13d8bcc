"""Dead-stone labels: GNU Go's final_status_list, SGF territory marks, and blocks."""

from __future__ import annotations


import pytest

from fuseki.deadstones.labels import GnuGoLabeller, block_labels, marked_dead_points, parse_vertices
from fuseki.go import GameState
from fuseki.go.coords import Point, from_gtp
from fuseki.go.sgf import read_sgf



def _game(size: int, moves: list[str]) -> GameState:
    state = GameState.new(size, "chinese")
    for m in moves:
        state = state.play(size * size if m == "pass" else from_gtp(m, size))
    return state


#   A B C D E F G
# 7 . . . X . O .     Black owns columns A-C, White owns G; the white stone at B2
# 6 . X . X . O .     sits alone in Black's area and cannot make two eyes.
# 2 . O . X . O .
WALLS = ["D1", "F1", "D2", "F2", "D3", "F3", "D4", "F4", "D5", "F5", "D6", "F6", "D7", "F7", "B6", "B2", "pass", "pass"]


def test_parse_vertices() -> None:
    assert parse_vertices("", 9) == frozenset()
    assert parse_vertices("A1 J9\nE5", 9) == {Point(8, 0), Point(0, 8), Point(4, 4)}
    with pytest.raises(ValueError, match="not a board point"):
        parse_vertices("pass", 9)
    with pytest.raises(ValueError):
        parse_vertices("Z1", 9)


def test_block_labels_by_majority_and_split_count() -> None:
    dead = frozenset({Point(0, 0), Point(0, 1), Point(5, 5)})
    labels, split = block_labels([[Point(0, 0), Point(0, 1)], [Point(5, 5), Point(5, 6), Point(5, 7)], [Point(3, 3)]], dead)
    assert labels == [True, False, False]
    assert split == 1  # the second block is named dead in part: a labeller error to report


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_gnugo_names_the_lone_stone_dead() -> None:
    state = _game(7, WALLS)
    with GnuGoLabeller() as labeller:
        dead = labeller.dead_points(state)
        assert labeller.engine.startswith("GNU Go")
        assert dead == {from_gtp("B2", 7)}
        labels, split = block_labels([points for _, points in state.strings()], dead)
        assert sum(labels) == 1 and split == 0
        # The same labeller serves the next game (one engine for a whole run).
        assert labeller.dead_points(_game(7, ["D4", "pass", "pass"])) == frozenset()


def test_marked_dead_points_from_territory_marks() -> None:
    # KGS-style end of game: White's stone at bb (B8 on 9x9) lies in Black's territory (TB), so it is dead;
    # aa and ii are empty points (plain territory), and Black's stones are in no White territory.
    sgf = b"(;GM[1]FF[4]SZ[9]KM[6.5];B[cc];W[bb];B[hh];W[tt];B[tt]TB[bb][aa]TW[ii]DD[])"
    record = read_sgf(sgf)
    state = record.replay()
    assert marked_dead_points(record, state) == {Point(1, 1)}


def test_marked_dead_points_none_without_marks() -> None:
    record = read_sgf(b"(;GM[1]FF[4]SZ[9];B[cc];W[gg])")
    assert marked_dead_points(record, record.replay()) is None


def test_dead_marks_dd() -> None:
    record = read_sgf(b"(;GM[1]FF[4]SZ[9];B[cc];W[gg]DD[gg][aa])")
    assert marked_dead_points(record, record.replay()) == {Point(6, 6)}
