"""The book's eleven-plane ``SimpleEncoder`` (ch. 7; ``dlgo/encoders/simple.py``).

Unlike the other encoders, the stone planes are in absolute colours (as in
the book): Black first, then White; planes 8 and 9 say who is to move.

=====  ===========================================================
plane  1 on
=====  ===========================================================
0-3    black stones whose string has 1, 2, 3, 4 or more liberties
4-7    white stones whose string has 1, 2, 3, 4 or more liberties
8      every point, when Black is to move
9      every point, when White is to move
10     empty points the player to move may not play because of ko
=====  ===========================================================

>>> from fuseki.go import GameState, Color
>>> s = GameState.from_ascii('''
...     X O .
...     . . .
...     . . .
... ''', to_move=Color.WHITE)
>>> planes = SimpleEncoder(3).encode(s)
>>> int(planes[0, 0, 0]), int(planes[5, 0, 1]), int(planes[8].sum()), int(planes[9].sum())
(1, 1, 0, 9)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.encoders._common import PlaneEncoder, legal_points
from fuseki.encoders._features import liberty_planes
from fuseki.go.state import Color

if TYPE_CHECKING:
    from fuseki.go.state import GameState


class SimpleEncoder(PlaneEncoder):
    """Black and White stones by liberties (1..4+), the player to move, and ko."""

    name = "simple"
    _plane_names = (
        "black, 1 liberty",
        "black, 2 liberties",
        "black, 3 liberties",
        "black, 4+ liberties",
        "white, 1 liberty",
        "white, 2 liberties",
        "white, 3 liberties",
        "white, 4+ liberties",
        "black to move",
        "white to move",
        "ko",
    )

    def encode(self, state: "GameState") -> np.ndarray:
        self._check(state)
        out = np.zeros((11, self.size * self.size), dtype=np.uint8)
        out[8 if state.next_player is Color.BLACK else 9] = 1
        liberty_planes(state.buffer, legal_points(state), out, 0, 4, 4, 10)
        return out.reshape(self.shape)

