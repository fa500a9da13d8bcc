"""The book's seven-plane encoder (ch. 7, ``SevenPlaneEncoder``).

=====  ===========================================================
plane  1 on
=====  ===========================================================
0      stones of the player to move whose string has 1 liberty
1      ... 2 liberties
2      ... 3 or more liberties
3      opponent's stones whose string has 1 liberty
4      ... 2 liberties
5      ... 3 or more liberties
6      empty points the player to move may not play because of ko
=====  ===========================================================

The book's text lists White's planes first and Black's next; its code (and
this encoder) puts the player to move first, the opponent next.

>>> from fuseki.go import GameState
>>> s = GameState.from_ascii('''
...     X O .
...     . . .
...     . . .
... ''')
>>> planes = SevenPlaneEncoder(3).encode(s)
>>> int(planes[0, 0, 0]), int(planes[4, 0, 1])
(1, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.encoders._common import PlaneEncoder, legal_points
from fuseki.encoders._features import liberty_planes
from fuseki.go.state import Color

if TYPE_CHECKING:
    from fuseki.go.state import GameState


class SevenPlaneEncoder(PlaneEncoder):
    """Own and opponent stones by liberties (1, 2, 3+), and ko."""

    name = "sevenplane"
    _plane_names = (
        "own, 1 liberty",
        "own, 2 liberties",
        "own, 3+ liberties",
        "opponent, 1 liberty",
        "opponent, 2 liberties",
        "opponent, 3+ liberties",
        "ko",
    )

    def encode(self, state: "GameState") -> np.ndarray:
        self._check(state)
        out = np.zeros((7, self.size * self.size), dtype=np.uint8)
        black_to_move = state.next_player is Color.BLACK
        liberty_planes(state.buffer, legal_points(state), out, 0 if black_to_move else 3, 3 if black_to_move else 0, 3, 6)
        return out.reshape(self.shape)

