"""Go agents built on the generic searches of :mod:`fuseki.search`.

- ``alphabeta``: the book's ``AlphaBetaAgent`` (ch. 4, listing 4.11) with its
  ``capture_diff`` evaluation: a depth-limited alpha-beta search that looks
  only at how many stones each side has on the board. It is weak on purpose;
  it shows what pruning buys, and it does capture what it can.
- ``uct-python``: the generic pure-Python UCT (:mod:`fuseki.search.uct`) on Go,
  with the book's random bot as the rollout policy. Slow; it exists to show
  the algorithm on the same protocol as tic-tac-toe and chess.

Both take a :class:`fuseki.go.GameState` and return a :class:`fuseki.go.Move`,
and like the book's bots neither passes while it still has a legal move
that does not fill one of its own eyes (a bot that passes early loses
games it has won on the board; one that fills its eyes kills its groups).

>>> from fuseki.go.state import GameState
>>> bot = AlphaBetaAgent(depth=1, seed=0)
>>> GameState.new(5).is_legal(bot.select_move(GameState.new(5)))
True
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

from fuseki.agents.random_bots import RandomBot
from fuseki.games.go import GoGameState
from fuseki.go.coords import Point
from fuseki.go.state import Color, Move
from fuseki.search.minimax import SearchResult, TranspositionTable, alphabeta
from fuseki.search.uct import UCTResult, uct_search
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.go.state import GameState


def capture_diff(state: GoGameState, player: int) -> float:
    """The book's ``capture_diff``: own stones on the board minus the opponent's.

    The book computes it for the player to move; here ``player`` says whose
    point of view, as every evaluation in :mod:`fuseki.search` does. The
    difference equals the difference in captures as long as nobody passed.
    """
    counts = np.bincount(state.go.stones().ravel(), minlength=3)
    diff = float(counts[Color.BLACK] - counts[Color.WHITE])
    return diff if player == 0 else -diff


def candidate_moves(state: GameState) -> list[Move]:
    """Legal moves that are not pass and do not fill one of the mover's own eyes.

    These are the moves the book's bots choose among; pass only when this is empty.
    """
    color = state.next_player
    n = state.size
    return [
        Move.play(Point(p // n, p % n))
        for p in sorted(int(q) for q in state.legal_points()[:-1])
        if not state.is_eye(p, color)
    ]


def _check_playable(state: GameState) -> None:
    if state.is_over():
        raise ValueError("the game is over: there is no move to select")


class AlphaBetaAgent:
    """Depth-limited alpha-beta with the ``capture_diff`` evaluation (the book's ``AlphaBetaAgent``).

    ``depth`` counts plies, the root move included (the book's ``max_depth``
    is the depth below the root move, so its 2 is our 3). Equal moves are
    broken at random, as the book does with ``random.choice(best_moves)``:
    the root moves are shuffled with a seeded generator and the first best
    one found is kept. A transposition table persists between moves of a game.
    """

    name = "alphabeta"

    def __init__(self, depth: int = 2, seed: int | None = None) -> None:
        if not isinstance(depth, int) or depth < 1:
            raise InputError(f"depth must be a positive int, got {depth!r}")
        self.depth = depth
        self._rng = random.Random(seed)
        self._tt = TranspositionTable()
        self.last_result: SearchResult | None = None

    def select_move(self, state: GameState) -> Move:
        _check_playable(state)
        moves = candidate_moves(state)
        if not moves:
            return Move.pass_turn()
        self._rng.shuffle(moves)
        if len(self._tt) > 1_000_000:
            self._tt.clear()
        result = alphabeta(
            GoGameState(state),
            self.depth,
            capture_diff,
            tt=self._tt,
            root_moves=moves,
        )
        self.last_result = result
        return result.move

    def analyze(self, state: GameState) -> dict[str, Any]:
        """The search behind the move: value, principal variation, nodes."""
        move = self.select_move(state)
        r = self.last_result
        if r is None:  # passed without searching
            return {"move": move.gtp(state.size), "value": None, "pv": [], "nodes": 0}
        return {
            "move": move.gtp(state.size),
            "value": r.value,
            "pv": [m.gtp(state.size) for m in r.pv],
            "nodes": r.nodes,
        }

    def __repr__(self) -> str:
        return f"AlphaBetaAgent(depth={self.depth})"


class UCTPythonAgent:
    """The generic pure-Python UCT on Go, with the book's random bot for rollouts.

    ``playouts`` and/or ``seconds`` limit the search (at least one; the
    default is 200 playouts). The move with the most visits is played;
    pass only when no non-eye-filling move is left, or when the search
    itself found pass best.
    """

    name = "uct-python"

    def __init__(
        self,
        playouts: int | None = None,
        seconds: float | None = None,
        seed: int | None = None,
        c: float = 1.4,
        max_rollout_length: int | None = None,
    ) -> None:
        if playouts is None and seconds is None:
            playouts = 200
        self.playouts = playouts
        self.seconds = seconds
        self.c = c
        self.max_rollout_length = max_rollout_length
        self._rng = random.Random(seed)
        self._bot = RandomBot(seed=seed)
        self.last_result: UCTResult | None = None

    def _rollout_policy(self, state: GoGameState, rng: random.Random) -> int:
        return self._bot.select_index(state.go)

    @staticmethod
    def _cutoff_eval(state: GoGameState, player: int) -> float:
        """Where a rollout is cut short: who is ahead by area count, as +1/-1 for ``player``."""
        margin = state.go.score().margin
        v = 1.0 if margin > 0 else -1.0 if margin < 0 else 0.0
        return v if player == 0 else -v

    def select_move(self, state: GameState) -> Move:
        _check_playable(state)
        if not candidate_moves(state):
            return Move.pass_turn()
        # Random games on an empty board can be long; a generous cap keeps any one bounded.
        cap = self.max_rollout_length if self.max_rollout_length is not None else 3 * state.size * state.size
        result = uct_search(
            GoGameState(state),
            iterations=self.playouts,
            seconds=self.seconds,
            c=self.c,
            rollout_policy=self._rollout_policy,
            max_rollout_length=cap,
            evaluate=self._cutoff_eval,
            rng=self._rng,
        )
        self.last_result = result
        return result.move

    def analyze(self, state: GameState) -> dict[str, Any]:
        """Visits and win rates of the root moves, most visited first."""
        move = self.select_move(state)
        r = self.last_result
        stats = sorted(r.stats, key=lambda s: -s.visits) if r is not None else []
        return {
            "move": move.gtp(state.size),
            "playouts": r.iterations if r is not None else 0,
            "moves": [{"move": s.move.gtp(state.size), "visits": s.visits, "winrate": s.value} for s in stats],
        }

    def __repr__(self) -> str:
        return f"UCTPythonAgent(playouts={self.playouts}, seconds={self.seconds}, c={self.c})"

