"""Compile (or load from Numba's cache) the dead-stone feature kernels: ``python -m fuseki.deadstones.warmup``.

The first call of :func:`fuseki.deadstones.features.block_features` compiles
its Numba kernels, which takes tens of seconds on a busy 2-core machine; the
setup script runs this once so that no user command pays for it.
"""

from __future__ import annotations

import time


def warm_up() -> float:
    """Run every feature kernel once on a tiny position; return the seconds it took."""
    from fuseki.deadstones.features import block_features
    from fuseki.go.state import GameState

    t0 = time.perf_counter()
    state = GameState.from_ascii(
        """
        . X O . .
        X X O . .
        O O O . .
        . . . X .
        . . . . .
        """
    )
    for feature_set in ("A", "B"):
        block_features(state, feature_set)
    return time.perf_counter() - t0


if __name__ == "__main__":
    print(f"dead-stone feature kernels ready in {warm_up():.1f} s")
