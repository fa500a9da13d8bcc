"""Coordinates: every system converts to every other, at every size."""

from __future__ import annotations

import doctest

import pytest

from fuseki.go import coords, handicap, rules, state
from fuseki.go.coords import CoordinateError, Point


@pytest.mark.parametrize("size", range(2, 26))
def test_all_systems_round_trip(size: int) -> None:
    seen = set()
    for index in range(size * size):
        p = coords.from_index(index, size)
        assert coords.to_index(p, size) == index
        assert coords.from_gtp(coords.to_gtp(p, size), size) == p
        assert coords.from_sgf(coords.to_sgf(p), size) == p
        assert coords.from_padded(coords.to_padded(p, size), size) == p
        seen.add(coords.to_gtp(p, size))
    assert len(seen) == size * size
    assert "I" not in "".join(v[0] for v in seen)


def test_known_points() -> None:
    assert coords.from_gtp("A1", 19) == Point(18, 0)
    assert coords.from_gtp("T19", 19) == Point(0, 18)
    assert coords.from_gtp("j10", 19) == Point(9, 8)  # J follows H: there is no I
    assert coords.to_gtp(Point(0, 24), 25) == "Z25"
    assert coords.to_sgf(Point(2, 3)) == "dc"
    assert coords.from_sgf("", 19) is None and coords.from_sgf("tt", 19) is None
    assert coords.from_sgf("tt", 21) == Point(19, 19)
    assert coords.from_gtp("pass", 9) is None and coords.to_gtp(None, 9) == "pass"
    assert coords.pass_index(9) == 81


@pytest.mark.parametrize("bad", ["I5", "A0", "A10", "K1", "", "5A", "AA1", "Z", "A-1"])
def test_bad_gtp_vertices(bad: str) -> None:
    with pytest.raises(CoordinateError):
        coords.from_gtp(bad, 9)


@pytest.mark.parametrize("bad", ["a", "abc", "zz", "A1", "j."])
def test_bad_sgf_points(bad: str) -> None:
    with pytest.raises(CoordinateError):
        coords.from_sgf(bad, 9)


def test_parse_point_accepts_both_notations() -> None:
    assert coords.parse_point("D4", 9) == coords.parse_point("df", 9) == Point(5, 3)


@pytest.mark.parametrize("module", [coords, handicap, rules, state])
def test_doctests(module: object) -> None:
    failures, _ = doctest.testmod(module)  # type: ignore[arg-type]
    assert failures == 0


@pytest.mark.parametrize(
    ("size", "stones", "expected"),
    [
        (19, 9, ["D4", "Q16", "D16", "Q4", "K4", "K16", "D10", "Q10", "K10"]),
        (19, 6, ["D4", "Q16", "D16", "Q4", "D10", "Q10"]),
        (13, 5, ["D4", "K10", "D10", "K4", "G7"]),
        (9, 3, ["C3", "G7", "C7"]),
        (8, 4, ["C3", "F6", "C6", "F3"]),
        (7, 4, ["C3", "E5", "C5", "E3"]),
    ],
)
def test_gtp_fixed_handicap(size: int, stones: int, expected: list[str]) -> None:
    assert [coords.to_gtp(p, size) for p in handicap.fixed_handicap(stones, size)] == expected


def test_fixed_handicap_limits() -> None:
    assert handicap.max_fixed_handicap(19) == 9
    assert handicap.max_fixed_handicap(10) == 4
    assert handicap.max_fixed_handicap(6) == 0
    with pytest.raises(ValueError):
        handicap.fixed_handicap(5, 8)
    with pytest.raises(ValueError):
        handicap.fixed_handicap(1, 19)


def test_rules_presets_and_validation() -> None:
    assert rules.Rules.preset("Tromp-Taylor").suicide
    assert rules.Rules.preset("book") == rules.Rules()
    with pytest.raises(ValueError, match="unknown rule set"):
        rules.Rules.preset("klingon")
    with pytest.raises(ValueError, match="multiple of 0.5"):
        rules.Rules(komi=6.3)
    assert rules.HandicapBonus.N_MINUS_1.points(4) == 3
