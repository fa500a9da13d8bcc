"""Chess: Klein's classic searches (:mod:`fuseki.chess.classics`) and, later, AlphaZero's encoding and a UCI engine.

The rules come from python-chess through :mod:`fuseki.games.chess`.
"""
