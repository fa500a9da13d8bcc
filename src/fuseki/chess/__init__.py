"""Chess: AlphaZero's encoding, a UCI engine, matches of UCI engines, a supervised warm start, Klein's classics.

- :mod:`fuseki.chess.uci`: a chess Zero network as a UCI engine (``fuseki uci``);
- :mod:`fuseki.chess.match`: matches between two UCI engines with openings,
  adjudication, forfeits, PGN and an Elo estimate (``fuseki chess-match``),
  the openings in :mod:`fuseki.chess.openings`;
- :mod:`fuseki.chess.warmstart`: Stockfish-labelled positions and a network
  trained on them (``fuseki chess-warmstart``), not AlphaZero's way;
- :mod:`fuseki.chess.scores`: Zero values and centipawns;
- :mod:`fuseki.chess.classics`: Klein's minimax, alpha-beta and MCTS (``fuseki chess-search``).

The rules come from python-chess through :mod:`fuseki.games.chess`; the
119-plane, 4,672-move encoding is :mod:`fuseki.games.chess_encoding` (in
``games/``, where the ``Game`` protocol's planes live), re-exported here.
See docs/chess-zero.md and docs/chess-classics.md.
"""

from fuseki.games.chess_encoding import NUM_ACTIONS, NUM_PLANES, decode_actions, encode_moves, encode_planes, move_index

__all__ = ["NUM_ACTIONS", "NUM_PLANES", "decode_actions", "encode_moves", "encode_planes", "move_index"]
