"""The Go-only Monte Carlo tree search engine on Numba: tree in flat arrays, heavy playouts, 3×3 patterns.

Kept apart from the generic searches of :mod:`fuseki.search`, which run on
the game protocol: this engine runs on the rules engine's raw buffers.
"""
