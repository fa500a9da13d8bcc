"""Monte Carlo tree search with UCT, in plain Python, for any :class:`~fuseki.games.base.GameState`.

This is the book's MCTS (ch. 4.5, ``MCTSAgent``) and Klein's (ch. 3.5),
written for the generic game protocol: it is the version to read and to run
on tic-tac-toe, Hexapawn or chess. The fast Go engine is elsewhere and works
on the Numba kernels directly.

One iteration:

1. **select**: from the root, follow the child with the highest UCB1 score
   ``w / n + c * sqrt(ln N / n)`` while the node is fully expanded;
2. **expand**: add one untried move's child (moves tried in ``legal_moves()`` order);
3. **roll out**: play ``rollout_policy`` moves to the end of the game, or
   for at most ``max_rollout_length`` moves and then ask ``evaluate``;
4. **back up**: add the result to every node on the path, each from the
   point of view of the player who made the move into that node.

``w / n`` is a win rate in ``[0, 1]`` (a draw counts one half), so ``c``
is on the book's scale: about 1.4 (``sqrt(2)``, the UCB1 constant) to 1.5.

The move returned is the root child with the most visits (the "robust
child"), the usual choice because visit counts are less noisy than win rates.

>>> from fuseki.games.tictactoe import TicTacToeState
>>> r = uct_search(TicTacToeState.from_string("XX. OO. ..."), iterations=300, seed=1)
>>> r.move
2
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable
from typing import Any

from fuseki.games.base import GameState
from fuseki.util.errors import InputError

#: ``rollout_policy(state, rng) -> move``: one move of a playout.
RolloutPolicy = Callable[[Any, random.Random], Any]
#: ``evaluate(state, player) -> float in [-1, 1]``: used where a rollout is cut off.
Evaluation = Callable[[Any, int], float]

DEFAULT_C = 1.4


def random_rollout_policy(state: Any, rng: random.Random) -> Any:
    """A uniformly random legal move: the book's and Klein's playout policy."""
    moves = state.legal_moves()
    return moves[int(rng.random() * len(moves))]


class UCTNode:
    """A node of the search tree: one state, and the statistics of the move into it.

    ``wins`` is from the point of view of ``player``: the player who made the
    move leading here (the parent's player to move), because that is the
    player who chooses among this node and its siblings.
    """

    __slots__ = ("state", "parent", "move", "player", "children", "untried", "visits", "wins")

    def __init__(self, state: Any, parent: "UCTNode | None" = None, move: Any = None) -> None:
        self.state = state
        self.parent = parent
        self.move = move
        self.player = parent.state.current_player if parent is not None else 1 - state.current_player
        self.children: list[UCTNode] = []
        self.untried: list[Any] = list(reversed(state.legal_moves()))  # pop() gives legal_moves() order
        self.visits = 0
        self.wins = 0.0

    def ucb_child(self, c: float) -> "UCTNode":
        """The child with the highest UCB1 score (the first one on a tie)."""
        log_n = math.log(self.visits)
        best, best_score = self.children[0], -math.inf
        for child in self.children:
            score = child.wins / child.visits + c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best


@dataclasses.dataclass
class MoveStats:
    """Root statistics for one move: visits and mean value in ``[0, 1]`` for the root player."""

    move: Any
    visits: int
    value: float


@dataclasses.dataclass
class UCTResult:
    """The chosen move (most visits; ``None`` at a finished root) and the root statistics."""

    move: Any | None
    iterations: int
    seconds: float
    stats: list[MoveStats]
    root: UCTNode | None = dataclasses.field(default=None, repr=False)

    @property
    def visits(self) -> dict[Any, int]:
        return {s.move: s.visits for s in self.stats}

    @property
    def values(self) -> dict[Any, float]:
        return {s.move: s.value for s in self.stats}


def rollout(
    state: Any,
    rng: random.Random,
    policy: RolloutPolicy = random_rollout_policy,
    max_length: int | None = None,
    evaluate: Evaluation | None = None,
) -> tuple[float, float]:
    """Play ``policy`` from ``state``; returns per-player rewards in ``[0, 1]``.

    A finished game gives 1 / 0.5 / 0 for win / draw / loss. A playout cut
    off after ``max_length`` moves uses ``evaluate(state, 0)`` (in ``[-1, 1]``,
    for player 0) if given, and counts as a draw otherwise.
    """
    n = 0
    while not state.is_over():
        if max_length is not None and n >= max_length:
            if evaluate is None:
                return 0.5, 0.5
            v = max(-1.0, min(1.0, float(evaluate(state, 0))))
            return (1 + v) / 2, (1 - v) / 2
        state = state.play(policy(state, rng))
        n += 1
    r0, r1 = state.returns()
    return (1 + r0) / 2, (1 + r1) / 2


def uct_search(
    state: GameState,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    c: float = DEFAULT_C,
    rollout_policy: RolloutPolicy = random_rollout_policy,
    max_rollout_length: int | None = None,
    evaluate: Evaluation | None = None,
    seed: int | None = None,
    rng: random.Random | None = None,
) -> UCTResult:
    """Run UCT from ``state`` for ``iterations`` playouts and/or ``seconds``; stop at whichever comes first.

    At least one limit is required. ``rng`` (or a ``random.Random(seed)``)
    drives the rollouts, so a seed makes an iteration-limited search
    reproducible.
    """
    if iterations is None and seconds is None:
        raise InputError("give iterations, seconds or both: UCT needs a limit")
    if iterations is not None and iterations < 1:
        raise InputError(f"iterations must be at least 1, got {iterations}")
    if seconds is not None and seconds <= 0:
        raise InputError(f"seconds must be positive, got {seconds}")
    if rng is None:
        rng = random.Random(seed)
    start = time.perf_counter()
    if state.is_over():
        return UCTResult(None, 0, 0.0, [])
    root = UCTNode(state)
    deadline = start + seconds if seconds is not None else math.inf
    done = 0
    while iterations is None or done < iterations:
        if seconds is not None and time.perf_counter() >= deadline:
            break
        node = root
        # 1. select
        while not node.untried and node.children:
            node = node.ucb_child(c)
        # 2. expand
        if node.untried:
            move = node.untried.pop()
            child = UCTNode(node.state.play(move), node, move)
            node.children.append(child)
            node = child
        # 3. roll out
        rewards = rollout(node.state, rng, rollout_policy, max_rollout_length, evaluate)
        # 4. back up
        up: UCTNode | None = node
        while up is not None:
            up.visits += 1
            up.wins += rewards[up.player]
            up = up.parent
        done += 1
    stats = [MoveStats(ch.move, ch.visits, ch.wins / ch.visits) for ch in root.children]
    # Most visits wins; ties go to the move first in legal_moves() order (children are in that order).
    # With no iteration at all (a tiny time limit) fall back to the first legal move.
    move = max(stats, key=lambda s: s.visits).move if stats else state.legal_moves()[0]
    return UCTResult(move, done, time.perf_counter() - start, stats, root)
