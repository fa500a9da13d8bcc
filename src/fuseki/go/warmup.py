"""Compile every board kernel once so that later commands start at once.

Numba compiles on first use and, with ``cache=True``, stores the machine code
next to the module. The setup script runs ``python -m fuseki.go.warmup`` so
that a user's first ``fuseki play`` does not wait for the compiler.
"""

from __future__ import annotations

import time

import numpy as np


def warm() -> float:
    """Call each kernel once on a small board; return the seconds it took."""
    start = time.perf_counter()
    from fuseki.go import kernels as K
    from fuseki.go.state import GameState

    state = GameState.new(5, "chinese").play(12).play(13)
    state.legal_points()
    state.why_illegal(14)
    state.score(dead=np.zeros((5, 5), dtype=bool))
    state.liberties((2, 2))
    state.is_eye((0, 0), state.next_player)
    GameState.from_ascii("X O .\n. . .\n. . .")
    buf = K.new_board(5, 0)
    K.seed_kernels(1)
    K.playout(buf, K.POLICY_UNIFORM, 50)
    K.playout(K.new_board(5, 0), K.POLICY_NO_EYES, 50)
    K.area_score(buf)
    K.legal_points(buf)
    K.hashes_after(buf, np.array([0], dtype=np.int64))
    K.superko_suspects(buf, np.zeros(1 << 13, dtype=np.uint8), 0)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"board kernels ready in {warm():.1f} s")
