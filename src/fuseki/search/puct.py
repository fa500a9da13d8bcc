"""PUCT: the tree search of AlphaGo, AlphaGo Zero and AlphaZero, for any game of :mod:`fuseki.games`.

Each simulation walks from the root, at every node taking the action that
maximises

    Q(a) + c_puct · P(a) · sqrt(N) / (1 + n(a))

where ``n(a)`` and ``Q(a)`` are the visits and mean value of the action
(from the point of view of the player choosing it), ``P(a)`` its prior and
``N`` the node's own visit count. At a new leaf it asks an
:class:`~fuseki.search.evaluators.Evaluator` for the priors of the leaf's
actions and a value, and adds the value to every edge of the path, each from
the point of view of the player who chose it. A finished game is valued
exactly from ``returns()`` and never sent to the evaluator.

Options (:class:`PUCTConfig`):

- ``c_puct``: the exploration weight (AlphaZero's was about 1.25 at the start);
- ``simulations``: new simulations per :meth:`PUCT.search`;
- ``batch_size`` and ``virtual_loss``: up to ``batch_size`` leaves are
  collected and evaluated in one evaluator call (one forward pass of a
  network). While a leaf waits, every edge on its path counts
  ``virtual_loss`` extra visits, each a loss, so the next walk turns
  elsewhere; the loss is taken back when the real value arrives. A walk that
  reaches a leaf already waiting ends the batch early.
- ``dirichlet_epsilon`` and ``dirichlet_alpha``: root noise ``P = (1 − ε)·P +
  ε·Dir(α)`` for self-play exploration (off by default; AlphaZero used ε =
  0.25, α = 0.3 for chess, 0.03 for Go);
- ``fpu``: the first-play urgency, the ``Q`` of an action not yet visited, in
  [-1, 1] (0 by default: an unknown move is even);
- ``reuse``: keep the subtree of the move played (see :meth:`PUCT.advance`;
  :meth:`PUCT.search` also finds the new position among the root's children
  and grandchildren by itself);
- ``seed``: the noise generator;
- ``root``: ``"puct"`` (the above at every node) or ``"gumbel"``: Gumbel
  AlphaZero's root (Danihelka et al., 2022, "Policy improvement by planning
  with Gumbel"), see below; ``gumbel_m``, ``gumbel_c_visit``,
  ``gumbel_c_scale`` and ``gumbel_noise`` shape it.

**The Gumbel root.** AlphaZero's root needs many simulations before the
visit counts say more than the prior: with 16 simulations on 81 moves most
moves are never tried, and the counts are a poor policy target. Gumbel
AlphaZero instead samples ``m`` = ``gumbel_m`` actions without replacement
by the Gumbel-top-k trick (the top ``m`` of ``g(a) + logits(a)``, ``g``
standard Gumbel noise; ``g = 0`` without ``gumbel_noise``, the deterministic
choice for play), and spends the simulation budget on them by **sequential
halving**: ``ceil(log2 m)`` phases, each giving the remaining actions equal
visits and keeping the better half by ``g + logits + σ(q̂)``; the last
survivor is the move (:func:`considered_visits` is the schedule, mctx's
``get_sequence_of_considered_visits``). The policy target is the **improved
policy** ``softmax(logits + σ(completedQ))`` over all legal actions, where
``σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂`` with ``c_visit`` 50 and
``c_scale`` 1 (the paper's values), ``q̂ = (q + 1) / 2`` the value mapped from
[-1, 1] to [0, 1], and an unvisited action's ``q`` completed by the **mixed
value** ``(v̂ + Σ_b N(b) · Σ_{N(a)>0} π(a) q(a) / Σ_{N(a)>0} π(a)) / (1 + Σ_b
N(b))`` (``v̂`` the network's value of the root, ``π`` its prior): see
:func:`gumbel_sigma`. Below the root the search is PUCT as usual. The budget
is the search's simulations less the root's own evaluation, so that
``simulations`` means the same network calls with either root. Dirichlet
noise is not used with the Gumbel root (the Gumbel noise replaces it).

Many searches can share one evaluator call (batched self-play of many games):
:meth:`PUCT.start`, :meth:`PUCT.pending_leaves`, :meth:`PUCT.feed` and
:meth:`PUCT.result` run a search step by step, the evaluation done by the
caller; :meth:`PUCT.search` is that loop with the search's own evaluator.

The result reuses :mod:`fuseki.search.uct`'s types: a :class:`PUCTResult` is a
:class:`~fuseki.search.uct.UCTResult` (``move``: most visits; ``stats``: per
root move the visits and mean value in [0, 1]) with the visit distribution
``pi`` over all ``num_actions`` actions (:meth:`PUCTResult.pi` applies a
temperature).

>>> from fuseki.games import TicTacToe, TicTacToeState
>>> from fuseki.search.evaluators import UniformEvaluator
>>> game = TicTacToe()
>>> result = PUCT(game, UniformEvaluator(game), simulations=200).search(TicTacToeState.from_string("XX. OO. ..."))
>>> result.move, result.pi(0).tolist()[2]
(2, 1.0)
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Hashable
from typing import Any

import numpy as np

from fuseki.games.base import Game
from fuseki.search.evaluators import Evaluator, terminal_value
from fuseki.search.uct import MoveStats, UCTResult

__all__ = [
    "PUCT",
    "PUCTConfig",
    "PUCTMoveStats",
    "PUCTNode",
    "PUCTResult",
    "ROOTS",
    "GumbelRoot",
    "considered_visits",
    "gumbel_sigma",
    "puct_search",
    "visit_distribution",
]

#: The root selections: AlphaZero's PUCT, or Gumbel AlphaZero's sequential halving.
ROOTS = ("puct", "gumbel")


@dataclasses.dataclass(frozen=True)
class PUCTConfig:
    """Everything that shapes a PUCT search (see the module notes)."""

    simulations: int = 800
    c_puct: float = 1.5
    batch_size: int = 1
    virtual_loss: float = 1.0
    dirichlet_epsilon: float = 0.0
    dirichlet_alpha: float = 0.3
    fpu: float = 0.0
    reuse: bool = True
    seed: int | None = None
    root: str = "puct"
    gumbel_m: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    gumbel_noise: bool = False

    def __post_init__(self) -> None:
        if self.simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {self.simulations}")
        if self.c_puct < 0:
            raise ValueError(f"c_puct must be >= 0, got {self.c_puct}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")
        if self.virtual_loss < 0:
            raise ValueError(f"virtual_loss must be >= 0, got {self.virtual_loss}")
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError(f"dirichlet_epsilon must be in [0, 1], got {self.dirichlet_epsilon}")
        if self.dirichlet_alpha <= 0:
            raise ValueError(f"dirichlet_alpha must be positive, got {self.dirichlet_alpha}")
        if not -1.0 <= self.fpu <= 1.0:
            raise ValueError(f"fpu must be in [-1, 1], got {self.fpu}")
        if self.root not in ROOTS:
            raise ValueError(f"root must be one of {', '.join(ROOTS)}, got {self.root!r}")
        if self.gumbel_m < 1:
            raise ValueError(f"gumbel_m must be at least 1, got {self.gumbel_m}")
        if self.gumbel_c_visit < 0 or self.gumbel_c_scale <= 0:
            raise ValueError("gumbel_c_visit must be >= 0 and gumbel_c_scale > 0")


class PUCTNode:
    """One position of the tree, with its actions' statistics as arrays (minigo's layout).

    ``n[i]``, ``w[i]`` and ``prior[i]`` belong to the ``i``-th legal move
    (``moves[i]``, action ``actions[i]``); ``w`` is summed from the point of
    view of ``player``, the player to move here, who chooses among them.
    ``visits`` is the node's own count ``N`` (its evaluation plus the visits
    of its actions, virtual ones included while a batch is pending).
    """

    __slots__ = (
        "actions",
        "children",
        "clean_prior",
        "expanded",
        "moves",
        "n",
        "pending",
        "player",
        "prior",
        "raw_value",
        "returns",
        "state",
        "visits",
        "w",
    )

    def __init__(self, state: Any) -> None:
        self.state = state
        self.player: int = state.current_player
        #: Per-player values of a finished game, else None.
        self.returns: tuple[float, float] | None = None
        if state.is_over():
            r0, r1 = state.returns()
            self.returns = (float(r0), float(r1))
        self.expanded = False
        self.pending = False
        self.visits = 0.0
        self.moves: list[Any] = []
        self.actions = np.empty(0, dtype=np.int64)
        self.prior = np.empty(0)
        self.clean_prior = self.prior
        self.n = np.empty(0)
        self.w = np.empty(0)
        #: The evaluator's value of this position (for its player to move), once expanded.
        self.raw_value = 0.0
        self.children: list[PUCTNode | None] = []

    def expand(self, game: Game, priors: np.ndarray) -> None:
        """Take the legal moves and their priors (renormalised over the legal actions).

        Priors that give the legal moves no mass at all (or NaN) come from a
        broken evaluator and raise ``ValueError`` rather than being papered over.
        """
        self.moves = list(self.state.legal_moves())
        self.actions = game.legal_actions(self.state)
        p = np.asarray(priors, dtype=np.float64)[self.actions]
        total = p.sum()
        if not total > 0:  # also catches NaN
            raise ValueError(f"the evaluator gave no prior mass to any legal move of\n{self.state}")
        self.prior = p / total
        self.clean_prior = self.prior
        self.n = np.zeros(len(self.moves))
        self.w = np.zeros(len(self.moves))
        self.children = [None] * len(self.moves)
        self.expanded = True

    def select(self, c_puct: float, fpu: float) -> int:
        """The index of the action with the highest PUCT score (the first on a tie)."""
        n = self.n
        q = np.divide(self.w, n, out=np.full(len(n), fpu), where=n > 0)
        q += (c_puct * math.sqrt(max(self.visits, 1.0))) * self.prior / (1.0 + n)
        return int(q.argmax())

    def child(self, i: int) -> "PUCTNode":
        node = self.children[i]
        if node is None:
            node = self.children[i] = PUCTNode(self.state.play(self.moves[i]))
        return node


@dataclasses.dataclass
class PUCTMoveStats(MoveStats):
    """:class:`~fuseki.search.uct.MoveStats` plus the move's action index and prior."""

    action: int
    prior: float


@dataclasses.dataclass
class PUCTResult(UCTResult):
    """The chosen move, the root statistics and the visit counts over all actions.

    ``iterations`` counts the simulations of this search; ``visit_counts`` is
    float ``(num_actions,)`` with the root's visits (including those reused
    from an earlier search); ``value`` is the root's mean value in [-1, 1]
    for the player to move.

    A search of one simulation on a fresh root spends it on the root's own
    evaluation and visits no move: then the search is the network alone,
    and the result says so consistently: the move of highest prior, the
    network's value as ``value``, and its prior (``prior``, without root
    noise) as the policy target and as the distribution to draw a move from
    (:meth:`move_distribution`).
    """

    visit_counts: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0), repr=False)
    value: float = 0.0
    reused_visits: int = 0
    #: With the Gumbel root: the improved policy over all actions (float64), the policy target.
    improved: np.ndarray | None = dataclasses.field(default=None, repr=False)
    #: The network's prior at the root over all actions (float64, no root noise); None for a finished game.
    prior: np.ndarray | None = dataclasses.field(default=None, repr=False)

    def pi(self, temperature: float = 1.0) -> np.ndarray:
        """The visit distribution with ``temperature`` (see :func:`visit_distribution`)."""
        return visit_distribution(self.visit_counts, temperature)

    def policy_target(self) -> np.ndarray:
        """What a network should learn from this search, float32 over all actions: the improved
        policy with the Gumbel root, else the visit distribution (τ = 1)."""
        if self.improved is not None:
            return self.improved.astype(np.float32)
        return self._visits_or_prior().astype(np.float32)

    def move_distribution(self) -> np.ndarray:
        """What a move is drawn from at τ = 1, float64 over all actions: the visit distribution,
        or the prior when the search visited no move (one simulation on a fresh root)."""
        return self._visits_or_prior()

    def _visits_or_prior(self) -> np.ndarray:
        total = float(self.visit_counts.sum())
        if total > 0:
            return self.visit_counts / total
        if self.prior is None or not self.prior.sum() > 0:
            raise ValueError("the search visited no move and has no prior (a finished game has no policy)")
        return self.prior / self.prior.sum()


def visit_distribution(counts: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """``n^(1/T) / Σ n^(1/T)`` over the actions; ``T = 0`` puts all mass on the most visited
    (shared equally on a tie). Float64; all zero when nothing was visited.

    >>> visit_distribution(np.array([1.0, 3.0, 0.0]), 1.0).tolist()
    [0.25, 0.75, 0.0]
    >>> visit_distribution(np.array([2.0, 2.0, 1.0]), 0).tolist()
    [0.5, 0.5, 0.0]
    """
    counts = np.asarray(counts, dtype=np.float64)
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    out = np.zeros_like(counts)
    top = counts.max() if counts.size else 0.0
    if top <= 0:
        return out
    if temperature == 0:
        best = counts == top
        out[best] = 1.0 / best.sum()
        return out
    # Scaled by the largest count first, so a small temperature cannot overflow.
    scaled = (counts / top) ** (1.0 / temperature)
    return scaled / scaled.sum()


#: The smallest positive float64: a prior of 0 becomes a very negative, finite logit (mctx's guard).
TINY = float(np.finfo(np.float64).tiny)


@functools.lru_cache(maxsize=512)
def considered_visits(m: int, n: int) -> tuple[int, ...]:
    """Sequential halving's schedule for ``m`` considered actions and a budget of ``n`` visits.

    Entry ``k`` is the visit count an action must have to be chosen by
    simulation ``k``: the ``m`` actions are visited in turns, ``max(1, n /
    (ceil(log2 m) · m'))`` visits each while ``m'`` remain, then the better
    half is kept (never fewer than 2), until the budget is spent. Choosing,
    at each simulation, the best-scored action among those with exactly that
    many visits *is* sequential halving (mctx's
    ``get_sequence_of_considered_visits``).

    >>> considered_visits(4, 10)
    (0, 0, 0, 0, 1, 1, 2, 2, 3, 3)
    >>> considered_visits(1, 3)
    (0, 1, 2)
    """
    if m <= 1:
        return tuple(range(n))
    log2m = math.ceil(math.log2(m))
    sequence: list[int] = []
    visits = [0] * m
    considered = m
    while len(sequence) < n:
        extra = max(1, int(n / (log2m * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:n])


def gumbel_sigma(n: np.ndarray, w: np.ndarray, prior: np.ndarray, raw_value: float, c_visit: float, c_scale: float) -> np.ndarray:
    """``σ(completedQ)`` of a node's actions (float64): the Gumbel root's transformed values.

    ``n``, ``w``: the actions' visits and summed values (from the view of the
    player choosing); ``prior``: the network's prior over them; ``raw_value``:
    the network's value of the node. A visited action's ``q`` is ``w / n``;
    an unvisited one gets the mixed value (see the module notes). ``q̂ = (q +
    1) / 2`` and ``σ = (c_visit + max N) · c_scale · q̂``. The operations and
    their order are those of the Numba search's copy (:mod:`fuseki.search.go.zerotree`),
    so both give the same floats.
    """
    visited = n > 0
    q = np.divide(w, n, out=np.zeros(len(n)), where=visited)
    total = n.sum()
    p = np.maximum(TINY, prior)
    sum_probs = np.where(visited, p, 0.0).sum()
    weighted = np.where(visited, p * q / sum_probs, 0.0).sum() if sum_probs > 0 else 0.0
    mixed = (raw_value + total * weighted) / (total + 1.0)
    completed = np.where(visited, q, mixed)
    qhat = (completed + 1.0) / 2.0
    return (c_visit + n.max()) * c_scale * qhat


@dataclasses.dataclass
class GumbelRoot:
    """One search's Gumbel root: the noise, the prior's logits, the schedule and this search's visits.

    ``local`` counts the visits *this* search gave each root action: a root
    reused from the last move brings visits of its own, which sequential
    halving must not count against this search's budget (the values and
    ``max N`` of :func:`gumbel_sigma` do use every visit).
    """

    gumbel: np.ndarray
    logits: np.ndarray
    schedule: tuple[int, ...]
    local: np.ndarray

    @classmethod
    def begin(cls, prior: np.ndarray, budget: int, m: int, rng: np.random.Generator | None) -> "GumbelRoot":
        """The root of a search with ``budget`` root visits; ``rng`` draws the Gumbel noise (None: no noise)."""
        k = len(prior)
        logits = np.log(np.maximum(prior, TINY))
        logits = logits - logits.max()
        gumbel = rng.gumbel(size=k) if rng is not None else np.zeros(k)
        return cls(gumbel, logits, considered_visits(min(m, k), max(0, budget)), np.zeros(k))

    def scores(self, n: np.ndarray, w: np.ndarray, prior: np.ndarray, raw_value: float, config: PUCTConfig) -> np.ndarray:
        """``g + logits + σ(completedQ)`` of every root action."""
        return self.gumbel + self.logits + gumbel_sigma(n, w, prior, raw_value, config.gumbel_c_visit, config.gumbel_c_scale)

    def select(self, root: PUCTNode, config: PUCTConfig) -> int:
        """The action the next simulation visits: the best-scored among those the schedule considers now."""
        considered = self.schedule[int(self.local.sum())]
        score = self.scores(root.n, root.w, root.clean_prior, root.raw_value, config)
        return int(np.where(self.local == considered, score, -np.inf).argmax())

    def final(self, root: PUCTNode, config: PUCTConfig) -> tuple[int, np.ndarray]:
        """The chosen action (the best-scored of the most visited by this search) and the improved policy over the root's actions."""
        score = self.scores(root.n, root.w, root.clean_prior, root.raw_value, config)
        best = int(np.where(self.local == self.local.max(), score, -np.inf).argmax())
        z = self.logits + gumbel_sigma(root.n, root.w, root.clean_prior, root.raw_value, config.gumbel_c_visit, config.gumbel_c_scale)
        z = np.exp(z - z.max())
        return best, z / z.sum()


@dataclasses.dataclass
class _Job:
    """The open search of the step API."""

    started: float
    target: int
    root: PUCTNode | None = None
    done: int = 0
    reused: int = 0
    awaiting_root: bool = False
    pending: list[tuple[list[tuple[PUCTNode, int]], PUCTNode]] = dataclasses.field(default_factory=list)
    final: PUCTResult | None = None
    gumbel: GumbelRoot | None = None


class PUCT:
    """A PUCT search over ``game`` with ``evaluator``, keeping its tree between moves when ``reuse``.

    ``config`` (or keyword overrides of :class:`PUCTConfig`) sets the options.
    """

    def __init__(self, game: Game, evaluator: Evaluator, config: PUCTConfig | None = None, **overrides: Any) -> None:
        config = config or PUCTConfig()
        if overrides:
            config = dataclasses.replace(config, **overrides)
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.root: PUCTNode | None = None
        self._job: _Job | None = None

    # -- tree reuse -------------------------------------------------------

    def reset(self) -> None:
        """Forget the tree (and any open search)."""
        self._abandon()
        self.root = None

    def advance(self, move: Any) -> None:
        """Make the root's child after ``move`` the new root, keeping its subtree (or forget the tree)."""
        root = self.root
        if root is None or not self.config.reuse or not root.expanded:
            self.root = None
            return
        for i, m in enumerate(root.moves):
            if m == move:
                child = root.children[i]
                self.root = child if child is not None and child.expanded else None
                return
        self.root = None

    def _find_root(self, state: Any) -> PUCTNode:
        """The node for ``state``: the old root, one of its children or grandchildren, or a new one."""
        key: Hashable = state.key
        old = self.root
        if old is not None and self.config.reuse:
            frontier = [old]
            for _ in range(3):
                for node in frontier:
                    if node.expanded and node.state.key == key and node.player == state.current_player:
                        return node
                frontier = [c for node in frontier for c in node.children if c is not None]
        return PUCTNode(state)

    # -- search -----------------------------------------------------------

    def search(self, state: Any, simulations: int | None = None) -> PUCTResult:
        """Run ``simulations`` (default: the config's) new simulations from ``state``.

        The same as the step API below driven with this search's own evaluator.
        """
        self.start(state, simulations)
        while not self.finished:
            leaves = self.pending_leaves()
            if leaves:
                priors, values = self.evaluator.evaluate(leaves)
                self.feed(priors, values)
        return self.result()

    # -- the step API: many searches, one evaluator call --------------------
    #
    # A driver that runs many searches at once (batched self-play of many
    # games) needs the leaves of all of them before it calls the network once.
    # ``start`` opens a search; ``pending_leaves`` walks the tree to the next
    # batch of leaves (under virtual loss) and returns their states, or an
    # empty list when the walks only met finished games; ``feed`` takes their
    # priors and values (in the evaluator's conventions); ``finished`` says
    # when the simulations are done and ``result`` closes the search. The
    # order of random draws is that of :meth:`search`, so a search driven this
    # way with the same evaluations gives the same result.

    def start(self, state: Any, simulations: int | None = None) -> None:
        """Open a search of ``simulations`` (default: the config's) new simulations from ``state``."""
        simulations = self.config.simulations if simulations is None else simulations
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        self._abandon()
        job = _Job(time.perf_counter(), simulations)
        self._job = job
        if state.is_over():
            self.root = None
            job.final = PUCTResult(None, 0, 0.0, [], None, np.zeros(self.game.num_actions), terminal_value(state), 0)
            return
        root = self._find_root(state)
        root.state = state  # the caller's object (same position), so moves and history are theirs
        self.root = root
        job.root = root
        if root.expanded:
            job.reused = int(root.n.sum())
            self._begin_root(root, job)

    @property
    def finished(self) -> bool:
        """True when the open search has run its simulations (and has no leaves waiting)."""
        job = self._open_job()
        return job.final is not None or (job.root is not None and job.root.expanded and job.done >= job.target and not job.pending)

    def pending_leaves(self) -> list[Any]:
        """The states of the next batch of leaves, to evaluate and :meth:`feed` back (maybe none)."""
        job = self._open_job()
        if job.pending or job.awaiting_root:
            raise RuntimeError("feed the evaluations of the pending leaves first")
        if self.finished:
            return []
        root = job.root
        assert root is not None
        if not root.expanded:
            job.awaiting_root = True
            return [root.state]
        done, job.pending = self._collect(root, min(self.config.batch_size, job.target - job.done), job.gumbel)
        job.done += done
        return [leaf.state for _, leaf in job.pending]

    def feed(self, priors: np.ndarray, values: np.ndarray) -> None:
        """The evaluations (priors ``(B, num_actions)``, values ``(B,)``) of the last :meth:`pending_leaves`."""
        job = self._open_job()
        root = job.root
        if job.awaiting_root:
            assert root is not None
            if len(values) != 1:
                raise ValueError(f"expected 1 evaluation (the root), got {len(values)}")
            job.awaiting_root = False
            root.expand(self.game, priors[0])
            root.raw_value = float(values[0])
            self._backup([], root, float(values[0]))
            job.done = 1
            self._begin_root(root, job)
            return
        if len(values) != len(job.pending):
            raise ValueError(f"expected {len(job.pending)} evaluations, got {len(values)}")
        vl = self.config.virtual_loss
        for k, (path, leaf) in enumerate(job.pending):
            for parent, i in path:
                parent.n[i] -= vl
                parent.w[i] += vl
                parent.visits -= vl
            leaf.pending = False
            leaf.expand(self.game, priors[k])
            leaf.raw_value = float(values[k])
            self._backup(path, leaf, float(values[k]))
        job.done += len(job.pending)
        job.pending = []

    def result(self) -> PUCTResult:
        """Close the finished search and return its result."""
        job = self._open_job()
        if not self.finished:
            raise RuntimeError("the search has not run its simulations yet")
        self._job = None
        if job.final is not None:
            return job.final
        assert job.root is not None
        return self._result(job.root, job.done, time.perf_counter() - job.started, job.reused, job.gumbel)

    def _abandon(self) -> None:
        """Drop an open search: take back the virtual losses of leaves that were never fed (the tree stays sound)."""
        job, self._job = self._job, None
        if job is None:
            return
        vl = self.config.virtual_loss
        for path, leaf in job.pending:
            for parent, i in path:
                parent.n[i] -= vl
                parent.w[i] += vl
                parent.visits -= vl
            leaf.pending = False
        job.pending = []

    def _open_job(self) -> "_Job":
        if self._job is None:
            raise RuntimeError("no search is open: call start(state) first")
        return self._job

    def _begin_root(self, root: PUCTNode, job: _Job) -> None:
        """The root is ready (evaluated, or reused): Dirichlet noise, or the Gumbel root's noise and schedule."""
        config = self.config
        if config.root == "gumbel":
            rng = self.rng if config.gumbel_noise else None
            job.gumbel = GumbelRoot.begin(root.clean_prior, job.target - job.done, config.gumbel_m, rng)
            return
        eps = config.dirichlet_epsilon
        if eps > 0 and len(root.moves) > 0:
            noise = self.rng.dirichlet([self.config.dirichlet_alpha] * len(root.moves))
            root.prior = (1.0 - eps) * root.clean_prior + eps * noise

    def _collect(
        self, root: PUCTNode, size: int, gumbel: GumbelRoot | None = None
    ) -> tuple[int, list[tuple[list[tuple[PUCTNode, int]], PUCTNode]]]:
        """Walk to up to ``size`` leaves under virtual loss: (finished games backed up at once, leaves waiting).

        With a Gumbel root the walks leave the root by sequential halving, and
        a walk counts for its root action once it has a leaf (or a finished game).
        """
        config = self.config
        c, fpu, vl = config.c_puct, config.fpu, config.virtual_loss
        pending: list[tuple[list[tuple[PUCTNode, int]], PUCTNode]] = []
        done = 0
        while done + len(pending) < size:
            path: list[tuple[PUCTNode, int]] = []
            node = root
            while node.expanded and node.returns is None:
                i = gumbel.select(node, config) if gumbel is not None and node is root else node.select(c, fpu)
                path.append((node, i))
                node = node.child(i)
            if node.returns is not None:  # a finished game: its exact value, at once
                self._backup(path, node, None)
                done += 1
                if gumbel is not None:
                    gumbel.local[path[0][1]] += 1
                continue
            if node.pending:  # another walk of this batch already waits here
                break
            node.pending = True
            for parent, i in path:
                parent.n[i] += vl
                parent.w[i] -= vl
                parent.visits += vl
            pending.append((path, node))
            if gumbel is not None:
                gumbel.local[path[0][1]] += 1
        return done, pending

    @staticmethod
    def _backup(path: list[tuple[PUCTNode, int]], leaf: PUCTNode, value: float | None) -> None:
        """Add the leaf's value (for its player to move; None: a finished game's exact returns) along ``path``."""
        if value is None:
            per_player = leaf.returns
        else:
            per_player = (value, -value) if leaf.player == 0 else (-value, value)
        assert per_player is not None
        leaf.visits += 1
        for node, i in path:
            node.n[i] += 1
            node.w[i] += per_player[node.player]
            node.visits += 1

    def _result(self, root: PUCTNode, done: int, seconds: float, reused: int, gumbel: GumbelRoot | None = None) -> PUCTResult:
        counts = np.zeros(self.game.num_actions)
        counts[root.actions] = root.n
        improved = None
        stats: list[MoveStats] = [
            PUCTMoveStats(
                move,
                int(root.n[i]),
                (1.0 + root.w[i] / root.n[i]) / 2.0 if root.n[i] > 0 else math.nan,
                int(root.actions[i]),
                float(root.prior[i]),
            )
            for i, move in enumerate(root.moves)
        ]
        if len(root.moves) == 0:
            move = None
        elif gumbel is not None:
            best, policy = gumbel.final(root, self.config)
            move = root.moves[best]
            improved = np.zeros(self.game.num_actions)
            improved[root.actions] = policy
        else:
            # Most visits; ties go to the higher prior, then to the first legal move.
            best = max(range(len(root.moves)), key=lambda i: (root.n[i], root.prior[i], -i))
            move = root.moves[best]
        total = root.n.sum()
        # No move visited (one simulation on a fresh root): the network's own value.
        value = float(root.w.sum() / total) if total > 0 else float(root.raw_value)
        prior = np.zeros(self.game.num_actions)
        prior[root.actions] = root.clean_prior
        return PUCTResult(move, done, seconds, stats, None, counts, value, reused, improved, prior)


def puct_search(game: Game, state: Any, evaluator: Evaluator, **options: Any) -> PUCTResult:
    """One search from ``state`` with a fresh tree (``options``: :class:`PUCTConfig` fields)."""
    return PUCT(game, evaluator, PUCTConfig(**options)).search(state)
