"""The MCTS agents: the fast Numba tree search (:mod:`fuseki.search.go.gomcts`) behind ``select_move``.

Two names in the registry:

- ``mcts``: the strong configuration (heavy playouts with captures, ataris
  and 3×3 patterns, heuristic priors in new nodes, RAVE, tree reuse);
- ``mcts-book``: the book's chapter-4 agent (UCT with ``c = 1.5`` and the
  no-own-eye random playout), on the same fast kernels.

Both stop at ``playouts`` simulations or ``seconds`` of thinking, whichever
comes first; with neither, ``playouts`` defaults to 10,000. The agent
resigns when the chosen move's win rate is below ``resign_below`` (the book
suggests about 10 %). It passes when the search prefers passing: after the
opponent's pass when passing wins (the tree knows that value exactly), or
when only own-eye moves are left. So it needs no outside termination rule
(``self_terminating``). ``pass_when_settled=True`` also passes first on a
board that looks settled in its favour (every point owned by one side in most
playouts, and the count wins as it stands); it is off by default, because
against GNU Go it once handed over a free move on a board that the playouts
judged settled and was not.

>>> from fuseki.go import GameState
>>> bot = MCTSAgent(playouts=300, seed=1)
>>> move = bot.select_move(GameState.new(5, komi=0.5))
>>> move.is_play, bot.last_info.playouts
(True, 300)
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fuseki.agents.deep_learning import load_prediction_agent
from fuseki.util.errors import InputError

if TYPE_CHECKING:  # the search pulls in Numba kernels and the pattern table: import on first use
    from fuseki.search.go.gomcts import MCTSConfig, SearchInfo

__all__ = ["MCTSAgent", "make_mcts", "make_mcts_book", "policy_root_prior"]

DEFAULT_PLAYOUTS = 10_000


class MCTSAgent:
    """An :class:`~fuseki.agents.base.Agent` that searches with :class:`GoMCTS`.

    ``resign_below=None`` never resigns; resignation waits until
    ``min_resign_moves`` moves were played (default: a quarter of the board's
    points) and until the root has enough visits to mean something.
    """

    #: This agent passes and resigns by its own search; wrappers leave it alone.
    self_terminating = True

    def __init__(
        self,
        playouts: int | None = None,
        seconds: float | None = None,
        *,
        config: MCTSConfig | None = None,
        resign_below: float | None = 0.1,
        min_resign_moves: int | None = None,
        pass_when_settled: bool = False,
        settled: float = 0.8,
        seed: int | None = None,
        name: str = "mcts",
        root_prior: Any = None,
        root_prior_visits: float = 100.0,
    ) -> None:
        if playouts is not None and int(playouts) < 1:
            raise InputError(f"playouts must be at least 1, got {playouts}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
            raise InputError(f"seconds must be a positive number, got {seconds!r}")
        if resign_below is not None and not 0.0 <= resign_below <= 1.0:
            raise InputError(f"resign_below must be in [0, 1] or None, got {resign_below!r}")
        #: Whether ``playouts`` was asked for (a clock then keeps it as a cap) or is the default.
        self.playouts_given = playouts is not None
        if playouts is None and seconds is None:
            playouts = DEFAULT_PLAYOUTS
        from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

        self.playouts = None if playouts is None else int(playouts)
        self.seconds = None if seconds is None else float(seconds)
        config = config or MCTSConfig()
        if seed is not None:
            config = MCTSConfig(**{**config.__dict__, "seed": int(seed)})
        self.engine = GoMCTS(config, root_prior=root_prior, root_prior_visits=root_prior_visits)
        if not 0.0 < settled <= 1.0:
            raise InputError(f"settled must be in (0, 1], got {settled!r}")
        self.resign_below = resign_below
        self.min_resign_moves = min_resign_moves
        self.pass_when_settled = pass_when_settled
        self.settled = settled
        self.name = name
        #: The last search's result (None before the first move).
        self.last_info: SearchInfo | None = None
        self._limits: dict[str, Any] = {}

    @contextlib.contextmanager
    def search_limits(
        self,
        *,
        seconds: float | None = None,
        max_seconds: float | None = None,
        started: float | None = None,
        decisive: bool = False,
        stop: Any = None,
        progress: Any = None,
        interval: float = 1.0,
    ) -> Iterator[None]:
        """Search the moves chosen inside this block under these limits (a GTP engine's clock, its input).

        With ``seconds`` (a clock's budget, counted from ``started``) the
        search runs on time, capped by ``playouts`` only where they were
        asked for; ``stop``, ``progress`` and ``interval`` are passed to
        :meth:`GoMCTS.search <fuseki.search.go.gomcts.GoMCTS.search>`. The
        agent's own limits come back when the block ends.
        """
        limits: dict[str, Any] = {"stop": stop, "progress": progress, "interval": interval, "decisive": decisive}
        if seconds is not None:
            limits.update(
                seconds=seconds,
                max_seconds=max_seconds,
                started=started,
                playouts=self.playouts if self.playouts_given else None,
            )
        saved, self._limits = self._limits, limits
        try:
            yield
        finally:
            self._limits = saved

    def search_arguments(self) -> dict[str, Any]:
        """The keyword arguments of the next search: the agent's limits, or those of :meth:`search_limits`."""
        args: dict[str, Any] = {"playouts": self.playouts, "seconds": self.seconds}
        args.update(self._limits)
        return args

    def select_move(self, state: Any) -> Any:
        from fuseki.go.state import Move, Point

        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        info = self.engine.search(state, **self.search_arguments())
        self.last_info = info
        n = state.size
        if self._should_resign(state, info):
            return Move.resign()
        if info.move == n * n or (self.pass_when_settled and self._pass_is_safe(state, info)):
            return Move.pass_turn()
        return Move.play(Point(info.move // n, info.move % n))

    def best_non_pass(self, state: Any) -> Any:
        """The best move other than a pass: a search of ``state`` with the pass kept out (``None`` if no point is legal).

        What a wrapper plays when it overrules this agent's pass
        (:class:`fuseki.agents.termination.Terminating` with ``settled_only``):
        after an early pass the tree puts every visit on passing back (it wins
        by komi), so the answer comes from a second search of the same budget.
        """
        from fuseki.go.state import Move, Point

        n = state.size
        if not any(int(p) != n * n for p in state.legal_points()):
            return None
        info = self.engine.search(state, playouts=self.playouts, seconds=self.seconds, allow_pass=False)
        self.last_info = info
        if info.move == n * n:
            return None
        return Move.play(Point(info.move // n, info.move % n))

    def _pass_is_safe(self, state: Any, info: SearchInfo) -> bool:
        """The board is settled and the player to move wins it as it stands.

        Under area scoring a move inside settled territory changes nothing,
        so an engine that plays on merely drags the game out (and a tree
        search sees no difference between such moves and passing: every one
        wins). After Pachi's "pass is safe" test, two conditions:

        - every point is owned by one side in at least ``settled`` of the
          playouts (no dame, no open fight), and
        - the board as it stands, every stone counted alive, wins by area
          against komi. Dead enemy stones are therefore captured before the
          agent passes (free under area scoring), and an opponent that plays
          on inside our area (a random bot never passes) gets answered
          instead of ignored.
        """
        import numpy as np

        if math.isnan(info.winrate) or info.winrate < 0.5:
            return False
        own = info.ownership
        if own.size == 0 or float(np.min(np.abs(own))) < self.settled:
            return False
        score = state.score(dead=np.zeros((state.size, state.size), dtype=bool))
        return score.winner is state.next_player

    def _should_resign(self, state: Any, info: SearchInfo) -> bool:
        if self.resign_below is None or math.isnan(info.winrate):
            return False
        min_moves = self.min_resign_moves if self.min_resign_moves is not None else state.size * state.size // 4
        if state.move_number < min_moves:
            return False
        best_visits = max((c.visits for c in info.children), default=0)
        if best_visits < 100:
            return False
        return info.winrate < self.resign_below

    def analyze(self, state: Any) -> dict[str, Any]:
        """The last search (or a fresh one): win rate, effort and the most visited moves."""
        info = self.last_info
        if info is None:
            info = self.engine.search(state, playouts=self.playouts, seconds=self.seconds)
            self.last_info = info
        return {
            "winrate": info.winrate,
            "playouts": info.playouts,
            "seconds": info.seconds,
            "playouts_per_second": info.playouts_per_second,
            "tree_nodes": info.tree_nodes,
            "reused_visits": info.reused_visits,
            "top": [(c.move, c.visits, c.winrate) for c in info.children[:5]],
        }

    def reset(self) -> None:
        """Forget the search tree (a new game)."""
        self.engine.clear()

    def __repr__(self) -> str:
        return f"MCTSAgent(name={self.name!r}, playouts={self.playouts}, seconds={self.seconds})"


def make_mcts(
    playouts: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
    resign_below: float | None = 0.1,
    policy: str = "heavy",
    rave: bool = True,
    priors: bool = True,
    reuse: bool = True,
    p_capture: float = 0.9,
    p_pat3: float = 0.95,
    c: float | None = None,
    expand_visits: int = 8,
    pass_when_settled: bool = False,
    ladders: bool = True,
    playout_ladder_nodes: int = 16,
    policy_model: str | None = None,
    policy_prior: float = 100.0,
) -> MCTSAgent:
    """The registry's ``mcts``: the strong configuration, each part switchable for ablations.

    ``c`` defaults to 0 (priors and RAVE explore) and to 1.0 when both are off.
    ``p_capture``/``p_pat3`` only matter for the heavy policy. ``policy_model``
    (an agent file or model name of a policy network) adds its move
    probabilities at the root as ``policy_prior`` won prior visits in all
    (see :class:`~fuseki.search.go.gomcts.GoMCTS`); the network must be trained
    for the board size played.
    """
    from fuseki.search.go.gomcts import MCTSConfig

    root_prior = None if policy_model is None else policy_root_prior(policy_model)

    if c is None:
        c = 0.0 if (rave or priors) else 1.0
    for label, p in (("p_capture", p_capture), ("p_pat3", p_pat3)):
        if not 0.0 <= p <= 1.0:
            raise InputError(f"{label} must be in [0, 1], got {p!r}")
    config = MCTSConfig(
        policy=policy,
        rave=rave,
        priors=priors,
        reuse=reuse,
        c=c,
        p_capture=p_capture,
        p_pat3=p_pat3,
        expand_visits=expand_visits,
        ladders=ladders,
        playout_ladder_nodes=playout_ladder_nodes,
    )
    return MCTSAgent(
        playouts,
        seconds,
        config=config,
        resign_below=resign_below,
        pass_when_settled=pass_when_settled,
        seed=seed,
        name="mcts" if policy_model is None else "mcts+policy",
        root_prior=root_prior,
        root_prior_visits=policy_prior,
    )


def policy_root_prior(policy_model: str) -> Any:
    """A root-prior function for :class:`GoMCTS` from a policy network's agent file (path or model name).

    The probabilities are the network's softmax, without the book's cube and
    clip: those shape how a policy *plays*, while a prior should say how
    likely each move is. A board size the network was not trained for is a
    ``ValueError`` at the first search.
    """
    agent = load_prediction_agent(policy_model)

    def prior(state: Any) -> Any:
        return agent.predict([state])[0]

    return prior


def make_mcts_book(
    playouts: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
    resign_below: float | None = 0.1,
    c: float = 1.5,
) -> MCTSAgent:
    """The registry's ``mcts-book``: the book's UCT agent (random no-own-eye playouts, c = 1.5)."""
    from fuseki.search.go.gomcts import MCTSConfig

    return MCTSAgent(
        playouts, seconds, config=MCTSConfig.book(c=c), resign_below=resign_below, seed=seed, name="mcts-book"
    )
