"""The book's one-plane encoder (ch. 6, ``OnePlaneEncoder``).

The book writes 1 for a stone of the player to move, -1 for an opponent's
stone and 0 for an empty point, in one float plane. Our planes are ``uint8``,
which has no -1, so the opponent's stones are **2**:

=====  ======================================  ==========================
value  meaning                                 book's value (:meth:`to_book_values`)
=====  ======================================  ==========================
0      empty point                             0
1      stone of the player to move             1
2      stone of the opponent                   -1
=====  ======================================  ==========================

A network may read the plane as it is (three ordered values) or convert it
with :meth:`OnePlaneEncoder.to_book_values` to the book's signed values.

>>> from fuseki.go import GameState
>>> s = GameState.from_ascii('''
...     X O .
...     . X .
...     . . .
... ''')
>>> OnePlaneEncoder(3).encode(s)[0].tolist()
[[1, 2, 0], [0, 1, 0], [0, 0, 0]]
>>> OnePlaneEncoder.to_book_values(OnePlaneEncoder(3).encode(s))[0, 0].tolist()
[1.0, -1.0, 0.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.encoders._common import PlaneEncoder
from fuseki.go import kernels as K

if TYPE_CHECKING:
    from fuseki.go.state import GameState

# colour code (empty, black, white) -> plane value, indexed by the player to move.
_LUT = {
    K.BLACK: np.array([0, 1, 2], dtype=np.uint8),
    K.WHITE: np.array([0, 2, 1], dtype=np.uint8),
}


class OnePlaneEncoder(PlaneEncoder):
    """One plane: 1 for the player to move's stones, 2 for the opponent's, 0 empty."""

    name = "oneplane"
    _plane_names = ("stones: 1 own, 2 opponent",)

    def encode(self, state: "GameState") -> np.ndarray:
        self._check(state)
        colors = K.colors(state.buffer)
        return _LUT[int(state.next_player)][colors].reshape(self.shape)

    @staticmethod
    def to_book_values(planes: np.ndarray) -> np.ndarray:
        """``float32`` planes with the book's values: 1 own, -1 opponent, 0 empty."""
        x = np.asarray(planes).astype(np.float32)
        x[x == 2] = -1.0
        return x

