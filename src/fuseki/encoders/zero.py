"""The book's AlphaGo Zero encoder (ch. 14, ``dlgo/zero/encoder.py``).

Eleven planes from the point of view of the player to move; the move classes
include pass (``num_moves = size * size + 1``; pass is ``size * size``), and
:meth:`encode_move` / :meth:`decode_move_index` are the book's names.

=====  ===========================================================
plane  1 on
=====  ===========================================================
0-3    stones of the player to move whose string has 1, 2, 3, 4+ liberties
4-7    opponent's stones whose string has 1, 2, 3, 4+ liberties
8      every point, when the player to move gets komi (White)
9      every point, when the opponent gets komi (Black is to move)
10     empty points the player to move may not play because of ko
=====  ===========================================================

>>> from fuseki.go import GameState, Move
>>> enc = ZeroEncoder(9)
>>> enc.shape, enc.num_moves, enc.decode_move_index(81)
((11, 9, 9), 82, Move(point=None, is_pass=True, is_resign=False))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.encoders._common import PlaneEncoder, legal_points
from fuseki.encoders._features import liberty_planes
from fuseki.go.state import Color

if TYPE_CHECKING:
    from fuseki.go.state import GameState


class ZeroEncoder(PlaneEncoder):
    """Own and opponent stones by liberties (1..4+), who gets komi, and ko; pass is a move."""

    name = "zero"
    includes_pass = True
    _plane_names = (
        "own, 1 liberty",
        "own, 2 liberties",
        "own, 3 liberties",
        "own, 4+ liberties",
        "opponent, 1 liberty",
        "opponent, 2 liberties",
        "opponent, 3 liberties",
        "opponent, 4+ liberties",
        "we get komi (white to move)",
        "opponent gets komi (black to move)",
        "ko",
    )

    def encode(self, state: "GameState") -> np.ndarray:
        self._check(state)
        out = np.zeros((11, self.size * self.size), dtype=np.uint8)
        black_to_move = state.next_player is Color.BLACK
        out[9 if black_to_move else 8] = 1
        liberty_planes(state.buffer, legal_points(state), out, 0 if black_to_move else 4, 4 if black_to_move else 0, 4, 10)
        return out.reshape(self.shape)

