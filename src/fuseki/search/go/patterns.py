"""3×3 playout patterns (the MoGo set, as Michi writes it), compiled to a lookup table.

A heavy playout asks, for an empty point next to the last move, "does the
neighbourhood look like a move a Go player would answer with?". MoGo's
hand-written 3×3 patterns (hane, cut, edge moves) answer that; Gelly et al.
(2006) showed they lift a random-playout engine by hundreds of Elo. Michi
(Petr Baudiš's 540-line MCTS) lists them in a compact notation that we take
over: ``X``/``O`` are stones of the two colours, ``x``/``o`` "not X"/"not O",
``.`` empty, ``#`` off the board and ``?`` anything. The centre is the
candidate point (always empty).

Every rotation, reflection and colour swap of a pattern is expanded once,
at import, into a table of ``4 ** 8`` booleans indexed by the eight
neighbours' colours (:func:`neighbourhood_code`), so matching in a playout
is eight loads and one lookup. Because colour swaps are included, the table
does not depend on the player to move.

>>> PAT3.shape, int(PAT3.sum()) > 0
((65536,), True)
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["PATTERNS", "PAT3", "neighbourhood_code", "build_table"]

#: The MoGo 3×3 patterns in Michi's notation (three rows of three characters).
PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    (".O.", "X..", "..."),  # katatsuke or diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut 1: unprotected cut
    ("XO?", "O.X", "???"),  # cut 1: peeped cut
    ("?X?", "O.O", "ooo"),  # cut 2
    ("OX?", "o.O", "???"),  # cut keima
    ("X.?", "O.?", "##?"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)

# Board codes, as in fuseki.go.kernels: EMPTY 0, BLACK 1, WHITE 2, BORDER 3.
_CODE = {".": 0, "X": 1, "O": 2, "#": 3}
_WILD = {"?": ".XO#", "x": ".O#", "o": ".X#"}
# Neighbour k of the 3x3 grid (row-major, centre skipped) is bit pair k of the code.
_CELLS = [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)]


def _rotate(p: list[str]) -> list[str]:
    return ["".join(p[2 - c][r] for c in range(3)) for r in range(3)]


def _flip(p: list[str]) -> list[str]:
    return [row[::-1] for row in p]


def _swap(p: list[str]) -> list[str]:
    table = str.maketrans("XOxo", "OXox")
    return [row.translate(table) for row in p]


def _variants(pattern: tuple[str, str, str]) -> set[tuple[str, ...]]:
    """All 16 images of a pattern under the board's symmetries and a colour swap."""
    out: set[tuple[str, ...]] = set()
    base = list(pattern)
    for swapped in (base, _swap(base)):
        p = swapped
        for _ in range(4):
            p = _rotate(p)
            out.add(tuple(p))
            out.add(tuple(_flip(p)))
    return out


def neighbourhood_code(cells: list[list[int]] | np.ndarray) -> int:
    """The table index of a 3×3 neighbourhood given as board codes (centre ignored).

    >>> neighbourhood_code([[1, 2, 1], [0, 0, 0], [3, 3, 3]]) == 1 | 2 << 2 | 1 << 4 | 3 << 10 | 3 << 12 | 3 << 14
    True
    """
    code = 0
    for k, (r, c) in enumerate(_CELLS):
        code |= int(cells[r][c]) << (2 * k)
    return code


def build_table(patterns: tuple[tuple[str, str, str], ...] = PATTERNS) -> np.ndarray:
    """A boolean table over all ``4 ** 8`` neighbourhoods: True where some pattern matches."""
    table = np.zeros(4**8, dtype=np.bool_)
    for pattern in patterns:
        for variant in _variants(pattern):
            choices = []
            for r, c in _CELLS:
                ch = variant[r][c]
                choices.append([_CODE[x] for x in _WILD.get(ch, ch)])
            for combo in itertools.product(*choices):
                code = 0
                for k, v in enumerate(combo):
                    code |= v << (2 * k)
                table[code] = True
    return table


#: The compiled MoGo table (a module global, so Numba bakes it into the kernels).
PAT3: np.ndarray = build_table()
