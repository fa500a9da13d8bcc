"""fuseki: game-playing AI for Go and other board games.

Fast Go rules on Numba kernels, SGF, search, learning from games, GTP and web
frontends. See the README for the command line.
"""

from fuseki.util.kernel_cache import configure as _configure_kernel_cache

__version__ = "0.1.0"

# Before any kernel module imports Numba: compiled kernels live in a folder
# keyed by their sources, so a change in one kernel file recompiles its callers.
_configure_kernel_cache()
