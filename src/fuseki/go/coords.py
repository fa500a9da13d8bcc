"""Every coordinate system of the board, converted in one place.

Following minigo's ``coords.py``, one table names them all. ``N`` is the board
size (2..25).

==============  =====================  ==========================================
name            example (9x9)          meaning
==============  =====================  ==========================================
``Point``       ``Point(0, 0)``        (row, col), 0-based, row 0 is the *top*
``index``       ``0``                  ``row * N + col``; ``N * N`` means pass
``gtp``         ``"A9"``               column letter A..Z without I, row number
                                       counted from the *bottom* (1..N)
``sgf``         ``"aa"``               column letter then row letter, from the
                                       top-left; ``""`` is a pass
``padded``      ``12``                 ``(row + 1) * (N + 2) + col + 1``: the
                                       kernels' layout with a one-point border
==============  =====================  ==========================================

>>> to_gtp(from_gtp("D4", 19), 19)
'D4'
>>> from_gtp("A1", 9)
Point(row=8, col=0)
>>> to_sgf(Point(0, 1))
'ba'
"""

from __future__ import annotations

from typing import NamedTuple

from fuseki.util.errors import FusekiError, InputError

MIN_SIZE = 2
MAX_SIZE = 25

#: GTP column letters: the alphabet without I (25 letters, enough for 25x25).
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class CoordinateError(FusekiError, ValueError):
    """A coordinate that does not name a point of the board."""


class Point(NamedTuple):
    """A point on the board: 0-based row (from the top) and column (from the left)."""

    row: int
    col: int

    def neighbors(self) -> list["Point"]:
        """The four orthogonal neighbours (some may be off the board)."""
        r, c = self
        return [Point(r - 1, c), Point(r + 1, c), Point(r, c - 1), Point(r, c + 1)]


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size, else raise ValueError."""
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise InputError(f"board size must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    return size


def on_board(point: Point, size: int) -> bool:
    """True when ``point`` lies on a ``size`` x ``size`` board."""
    return 0 <= point.row < size and 0 <= point.col < size


def pass_index(size: int) -> int:
    """The move index that means pass (one past the last point)."""
    return size * size


def to_index(point: Point, size: int) -> int:
    """Point -> flat index ``row * size + col``."""
    if not on_board(point, size):
        raise CoordinateError(f"{tuple(point)} is off a {size}x{size} board")
    return point.row * size + point.col


def from_index(index: int, size: int) -> Point:
    """Flat index -> Point (the pass index is not a point)."""
    if not 0 <= index < size * size:
        raise CoordinateError(f"index {index} is not a point of a {size}x{size} board")
    return Point(index // size, index % size)


def to_padded(point: Point, size: int) -> int:
    """Point -> index in the kernels' bordered layout (stride ``size + 2``)."""
    return (point.row + 1) * (size + 2) + point.col + 1


def from_padded(q: int, size: int) -> Point:
    """Bordered-layout index -> Point."""
    w = size + 2
    return Point(q // w - 1, q % w - 1)


def to_gtp(point: Point | None, size: int) -> str:
    """Point -> GTP vertex such as ``"Q16"``; ``None`` -> ``"pass"``."""
    if point is None:
        return "pass"
    if not on_board(point, size):
        raise CoordinateError(f"{tuple(point)} is off a {size}x{size} board")
    return f"{GTP_COLUMNS[point.col]}{size - point.row}"


def from_gtp(vertex: str, size: int) -> Point | None:
    """GTP vertex -> Point; ``"pass"`` -> ``None``. Case-insensitive.

    Raises :class:`CoordinateError` with a readable reason for anything else.
    """
    text = vertex.strip().upper()
    if text == "PASS":
        return None
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not text[1:].isdigit():
        raise CoordinateError(f"{vertex!r} is not a GTP vertex (expected a letter A-Z without I and a number, or 'pass')")
    col = GTP_COLUMNS.index(text[0])
    number = int(text[1:])
    point = Point(size - number, col)
    if not 1 <= number <= size or col >= size:
        raise CoordinateError(f"{vertex!r} is off a {size}x{size} board")
    return point


def to_sgf(point: Point | None) -> str:
    """Point -> SGF coordinate such as ``"dd"``; ``None`` -> ``""`` (pass)."""
    if point is None:
        return ""
    return _SGF_LETTERS[point.col] + _SGF_LETTERS[point.row]


def from_sgf(text: str, size: int) -> Point | None:
    """SGF coordinate -> Point; ``""`` (and ``"tt"`` up to 19x19) -> ``None``."""
    if text == "" or (text == "tt" and size <= 19):
        return None
    if len(text) != 2 or text[0] not in _SGF_LETTERS or text[1] not in _SGF_LETTERS:
        raise CoordinateError(f"{text!r} is not an SGF point")
    point = Point(_SGF_LETTERS.index(text[1]), _SGF_LETTERS.index(text[0]))
    if not on_board(point, size):
        raise CoordinateError(f"SGF point {text!r} is off a {size}x{size} board")
    return point


def parse_point(text: str, size: int) -> Point | None:
    """Accept a GTP vertex or an SGF coordinate, as a human might type either."""
    try:
        return from_gtp(text, size)
    except CoordinateError:
        if len(text) == 2 and text.islower():
            return from_sgf(text, size)
        raise
