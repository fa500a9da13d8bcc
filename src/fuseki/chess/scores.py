"""Between a Zero network's value and a chess engine's centipawns: one logistic, used both ways.

A Zero value ``v`` in [-1, 1] is an expected result for the player to move
(win 1, draw 0, loss -1), i.e. an expected score ``(1 + v) / 2``. The Elo
model ties a score to a rating gap, ``s = 1 / (1 + 10^(-d / 400))``; reading
the gap ``d`` as centipawns gives

    cp = 400 · log10((1 + v) / (1 − v)),   v = 2 / (1 + 10^(−cp / 400)) − 1 = tanh(cp · ln 10 / 800)

so ``v = 0.5`` is about +191 cp and a pawn (+100 cp) is ``v ≈ 0.28``. The UCI
engine reports ``score cp`` this way, and the supervised warm start turns
Stockfish's centipawns into value targets the same way, so the round trip is
exact. It is a convention, not a measurement: Stockfish 15.1 normalises its
centipawns so that +100 is a 50 % chance to *win* at move 32, a steeper curve
(docs/chess-zero.md).
"""

from __future__ import annotations

import math

__all__ = ["MATE_VALUE", "MAX_CP", "cp_to_value", "value_to_cp"]

#: The centipawns reported for a value of ±1 (a decided game), and the largest magnitude reported.
MAX_CP = 10_000
#: The value of a mate score (either side's).
MATE_VALUE = 1.0


def value_to_cp(value: float) -> int:
    """Centipawns for a value in [-1, 1] (clipped to ±:data:`MAX_CP`).

    >>> value_to_cp(0.0), value_to_cp(0.5), value_to_cp(-0.5), value_to_cp(1.0)
    (0, 191, -191, 10000)
    """
    v = max(-1.0, min(1.0, float(value)))
    if abs(v) >= 1.0:
        return int(math.copysign(MAX_CP, v))
    cp = 400.0 * math.log10((1.0 + v) / (1.0 - v))
    return int(round(max(-MAX_CP, min(MAX_CP, cp))))


def cp_to_value(cp: float) -> float:
    """The value in [-1, 1] of a centipawn score (the inverse of :func:`value_to_cp`).

    >>> round(cp_to_value(100), 3), cp_to_value(0), round(cp_to_value(-191), 2)
    (0.28, 0.0, -0.5)
    """
    return math.tanh(float(cp) * math.log(10.0) / 800.0)
