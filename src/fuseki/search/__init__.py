"""Game-tree search on the generic game protocol (:mod:`fuseki.games.base`).

- :mod:`fuseki.search.minimax`: minimax, negamax and alpha-beta (with move
  ordering and a transposition table), the book's ch. 4 and Klein's ch. 3;
- :mod:`fuseki.search.uct`: Monte Carlo tree search with UCT and random
  rollouts, in plain Python.

>>> from fuseki.games import TicTacToe
>>> alphabeta(TicTacToe().initial_state(), tt=True).value   # tic-tac-toe is a draw
0.0
"""

from fuseki.search.minimax import (
    EXACT,
    LOWER,
    UPPER,
    SearchResult,
    TranspositionTable,
    TTEntry,
    alphabeta,
    by_key,
    minimax,
    negamax,
)
from fuseki.search.uct import MoveStats, UCTNode, UCTResult, random_rollout_policy, rollout, uct_search

__all__ = [
    "EXACT",
    "LOWER",
    "UPPER",
    "MoveStats",
    "SearchResult",
    "TTEntry",
    "TranspositionTable",
    "UCTNode",
    "UCTResult",
    "alphabeta",
    "by_key",
    "minimax",
    "negamax",
    "random_rollout_policy",
    "rollout",
    "uct_search",
]
