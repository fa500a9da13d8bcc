"""The MoGo 3×3 pattern table: symmetries and hand-made neighbourhoods."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.search.go.patterns import PAT3, PATTERNS, build_table, neighbourhood_code

# Board codes: EMPTY 0, BLACK 1, WHITE 2, BORDER 3. The centre of a grid is ignored.
_CH = {".": 0, "X": 1, "O": 2, "#": 3}
_CELLS = [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)]


def grid(*rows: str) -> list[list[int]]:
    return [[_CH[ch] for ch in row] for row in rows]


def decode(code: int) -> np.ndarray:
    g = np.zeros((3, 3), dtype=np.int64)
    for k, (r, c) in enumerate(_CELLS):
        g[r, c] = (code >> (2 * k)) & 3
    return g


def codes_of(grids: np.ndarray) -> np.ndarray:
    """Table codes of a stack of (..., 3, 3) grids."""
    out = np.zeros(grids.shape[:-2], dtype=np.int64)
    for k, (r, c) in enumerate(_CELLS):
        out |= grids[..., r, c].astype(np.int64) << (2 * k)
    return out


ALL = np.stack([decode(c) for c in range(4**8)])  # (65536, 3, 3)


def test_table_shape_and_density() -> None:
    assert PAT3.shape == (65536,)
    assert PAT3.dtype == np.bool_
    assert 0 < int(PAT3.sum()) < 65536 // 2
    assert np.array_equal(PAT3, build_table())


def test_decode_roundtrip() -> None:
    assert np.array_equal(codes_of(ALL), np.arange(4**8))
    for c in (0, 1, 12345, 65535):
        assert neighbourhood_code(decode(c)) == c


def test_colour_symmetric() -> None:
    swap = np.array([0, 2, 1, 3])[ALL]
    assert np.array_equal(PAT3[codes_of(swap)], PAT3)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_rotation_symmetric(k: int) -> None:
    rotated = np.rot90(ALL, k=k, axes=(1, 2))
    assert np.array_equal(PAT3[codes_of(rotated)], PAT3)


@pytest.mark.parametrize("axis", [1, 2])
def test_reflection_symmetric(axis: int) -> None:
    flipped = np.flip(ALL, axis=axis)
    assert np.array_equal(PAT3[codes_of(flipped)], PAT3)
    transposed = np.transpose(ALL, (0, 2, 1))
    assert np.array_equal(PAT3[codes_of(transposed)], PAT3)


@pytest.mark.parametrize(
    "rows",
    [
        ("XOX", "...", "..."),  # enclosing hane
        ("XOX", "...", "XOX"),  # enclosing hane, anything below
        ("...", "...", "XOX"),  # enclosing hane, rotated by 180 degrees
        ("X..", "O..", "X.."),  # enclosing hane, rotated by 90 degrees
        ("OXO", "...", "..."),  # colours swapped
        ("XO.", "...", "..."),  # non-cutting hane
        (".O.", "X..", "..."),  # katatsuke
        ("XO.", "O..", "..."),  # unprotected cut
        ("X..", "O..", "##."),  # edge: chase
        ("OX.", "X.O", "###"),  # edge: block side cut
        ("###", "X.O", "OX."),  # edge: block side cut, upside down
    ],
)
def test_hand_made_matches(rows: tuple[str, str, str]) -> None:
    assert PAT3[neighbourhood_code(grid(*rows))]


@pytest.mark.parametrize(
    "rows",
    [
        ("...", "...", "..."),  # empty neighbourhood
        ("###", "...", "..."),  # bare edge
        ("###", "#..", "#.."),  # bare corner
        ("XXX", "X.X", "XXX"),  # own eye, fully surrounded
        ("XO.", "...", ".X."),  # non-cutting hane needs the point below the centre empty
        ("X..", "...", "..."),  # a lone stone
    ],
)
def test_hand_made_non_matches(rows: tuple[str, str, str]) -> None:
    assert not PAT3[neighbourhood_code(grid(*rows))]


def test_each_pattern_matches_its_own_literal_instance() -> None:
    """Every pattern, with its wildcards filled in with something allowed, matches."""
    fill = {"?": ".", "x": ".", "o": "."}
    for pattern in PATTERNS:
        rows = ["".join(fill.get(ch, ch) for ch in row) for row in pattern]
        rows[1] = rows[1][0] + "." + rows[1][2]
        assert PAT3[neighbourhood_code(grid(*rows))], pattern


_ALLOWED = {".": {0}, "X": {1}, "O": {2}, "#": {3}, "?": {0, 1, 2, 3}, "x": {0, 2, 3}, "o": {0, 1, 3}}


def _matches(pattern: tuple[str, str, str]) -> np.ndarray:
    """Which of all neighbourhoods match ``pattern`` itself (one orientation, one colouring)."""
    ok = np.ones(len(ALL), dtype=bool)
    for r, c in _CELLS:
        ok &= np.isin(ALL[:, r, c], list(_ALLOWED[pattern[r][c]]))
    return ok


def _images(pattern: tuple[str, str, str]) -> list[tuple[str, str, str]]:
    """The 16 images by NumPy's rot90/flip (independent of the module's own helpers)."""
    swap = str.maketrans("XOxo", "OXox")
    out = []
    for p in (pattern, tuple(row.translate(swap) for row in pattern)):
        a = np.array([list(row) for row in p])
        for k in range(4):
            for b in (np.rot90(a, k), np.fliplr(np.rot90(a, k))):
                out.append(tuple("".join(row) for row in b))
    return out


def test_table_equals_brute_force_matching() -> None:
    expected = np.zeros(len(ALL), dtype=bool)
    for pattern in PATTERNS:
        for image in _images(pattern):
            expected |= _matches(image)
    assert np.array_equal(PAT3, expected)


def test_single_pattern_table_is_exactly_its_images() -> None:
    """The enclosing hane alone: 'XOX' over an empty middle row, anything below, in 4 rotations x 2 colours.

    512 = 2 x 4 x 4**3 placements, minus 8 neighbourhoods counted twice
    (a hane above and one below, or left and right, in either colour pair).
    """
    table = build_table((("XOX", "...", "???"),))
    assert int(table.sum()) == 2 * 4 * 4**3 - 8
    assert table[neighbourhood_code(grid("XOX", "...", "OXO"))]
    assert not table[neighbourhood_code(grid("XOX", "..X", "..."))]
