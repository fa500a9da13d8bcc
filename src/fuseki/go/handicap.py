"""Fixed handicap placements as the GTP v2 specification defines them.

Handicap stones sit on the third line on boards smaller than 13x13 and on the
fourth line from 13x13 up. Odd sizes from 9x9 take up to 9 stones; even sizes
and 7x7 take up to 4; boards under 7x7 have no fixed placement.

>>> from fuseki.go.coords import to_gtp
>>> [to_gtp(p, 19) for p in fixed_handicap(4, 19)]
['D4', 'Q16', 'D16', 'Q4']
>>> [to_gtp(p, 9) for p in fixed_handicap(5, 9)]
['C3', 'G7', 'C7', 'G3', 'E5']
"""

from __future__ import annotations

from fuseki.go.coords import Point, check_size
from fuseki.util.errors import InputError

# Each entry is (row code, col code) counted from the bottom-left as GTP does:
# 0 = the low handicap line, 1 = the centre line, 2 = the high handicap line.
_PATTERNS = [
    ["00", "22"],
    ["00", "22", "20"],
    ["00", "22", "20", "02"],
    ["00", "22", "20", "02", "11"],
    ["00", "22", "20", "02", "10", "12"],
    ["00", "22", "20", "02", "10", "12", "11"],
    ["00", "22", "20", "02", "01", "21", "10", "12"],
    ["00", "22", "20", "02", "01", "21", "10", "12", "11"],
]


def max_fixed_handicap(size: int) -> int:
    """The largest number of stones ``fixed_handicap`` accepts on this board."""
    check_size(size)
    if size < 7:
        return 0
    if size == 7 or size % 2 == 0:
        return 4
    return 9


def max_free_handicap(size: int) -> int:
    """Free placement may use every point but one."""
    return check_size(size) ** 2 - 1


def fixed_handicap(stones: int, size: int) -> list[Point]:
    """The GTP placement of ``stones`` handicap stones on a ``size`` board."""
    limit = max_fixed_handicap(size)
    if not 2 <= stones <= limit:
        if limit == 0:
            raise InputError(f"no fixed handicap placement is defined on {size}x{size}")
        raise InputError(f"fixed handicap on {size}x{size} must be from 2 to {limit} stones, got {stones}")
    line = 2 if size < 13 else 3
    pos = {"0": line, "1": (size - 1) // 2, "2": size - line - 1}
    # Rows in the pattern count from the bottom; Point rows count from the top.
    return [Point(size - 1 - pos[code[0]], pos[code[1]]) for code in _PATTERNS[stones - 2]]
