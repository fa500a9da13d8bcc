"""Game-tree search on the generic game protocol (:mod:`fuseki.games.base`).

- :mod:`fuseki.search.minimax`: minimax, negamax and alpha-beta (with move
  ordering and a transposition table), the book's ch. 4 and Klein's ch. 3;
- :mod:`fuseki.search.uct`: Monte Carlo tree search with UCT and random
  rollouts, in plain Python;
- :mod:`fuseki.search.puct`: PUCT, the search of AlphaGo and AlphaZero, with
  its leaf evaluators in :mod:`fuseki.search.evaluators` (uniform, rollout,
  network, mixed).

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
from fuseki.search.evaluators import (
    Evaluator,
    MixedEvaluator,
    NetworkEvaluator,
    RolloutEvaluator,
    UniformEvaluator,
)
from fuseki.search.puct import PUCT, PUCTConfig, PUCTResult, puct_search
from fuseki.search.uct import MoveStats, UCTNode, UCTResult, random_rollout_policy, rollout, uct_search

__all__ = [
    "EXACT",
    "LOWER",
    "PUCT",
    "UPPER",
    "Evaluator",
    "MixedEvaluator",
    "MoveStats",
    "NetworkEvaluator",
    "PUCTConfig",
    "PUCTResult",
    "RolloutEvaluator",
    "SearchResult",
    "TTEntry",
    "TranspositionTable",
    "UCTNode",
    "UCTResult",
    "UniformEvaluator",
    "alphabeta",
    "by_key",
    "minimax",
    "negamax",
    "puct_search",
    "random_rollout_policy",
    "rollout",
    "uct_search",
]
