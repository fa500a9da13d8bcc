"""Compile the MCTS and Zero search kernels once so that the first search starts at once.

Like :mod:`fuseki.go.warmup` (which the setup script runs first): Numba
compiles on first use and caches the machine code next to the modules. A cold
compile of the tree and playout kernels takes 15-35 s on a small machine, a
cached load about half a second. ``scripts/setup.sh`` runs
``python -m fuseki.search.go.warmup``.
"""

from __future__ import annotations

import time


def warm() -> float:
    """Run a tiny search with each playout policy and a tree reuse, and a tiny Zero search of
    each root (also compiled on first use: 60 s or more); return the seconds it took."""
    start = time.perf_counter()
    from fuseki.go import GameState
    from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

    state = GameState.new(5, komi=0.5)
    for config in (MCTSConfig(seed=1, capacity=4096), MCTSConfig.book(seed=1, capacity=4096)):
        engine = GoMCTS(config)
        info = engine.search(state, playouts=40)
        after = state.play(info.move)
        engine.search(after.play(after.legal_points()[0]), playouts=20)  # exercises compact()
    _warm_zero()
    _warm_alphago(state)
    return time.perf_counter() - start


def _warm_zero() -> None:
    from fuseki.games.go import GoGame
    from fuseki.search.evaluators import UniformEvaluator
    from fuseki.search.go.zeropuct import GoPUCT
    from fuseki.search.puct import PUCTConfig

    game = GoGame(size=5, komi=0.5)
    for root in ("puct", "gumbel"):
        search = GoPUCT.single(game, UniformEvaluator(game), PUCTConfig(simulations=16, batch_size=2, root=root, gumbel_noise=True))
        state = game.initial_state()
        move = search.search(state).move
        assert move is not None  # a fresh 5x5 board always has a move
        search.advance(move)  # exercises compact()
        search.search(state.play(move))


def _warm_alphago(state: object) -> None:
    """AlphaGo's search kernels (tree, queue encoding, rollout policy), with a uniform stand-in for the networks."""
    import numpy as np

    from fuseki.search.go.alphago_search import AlphaGoConfig, AlphaGoSearch
    from fuseki.search.go.rollout_policy import RolloutPolicy

    def uniform(planes: np.ndarray, need_priors: bool, need_values: bool) -> tuple[np.ndarray, np.ndarray]:
        b, n = planes.shape[0], planes.shape[-1]
        return np.full((b, n * n), 1.0 / (n * n)), np.zeros(b)

    search = AlphaGoSearch(uniform, RolloutPolicy.zeros(), AlphaGoConfig(seed=1, capacity=4096, batch=4))
    search.search(state, playouts=40)


if __name__ == "__main__":
    print(f"search kernels ready in {warm():.1f} s")
