"""fuseki: game-playing AI for Go and other board games.

Fast Go rules on Numba kernels, SGF, search, learning from games, GTP and web
frontends. See the README for the command line.
"""

__version__ = "0.1.0"
