"""AlphaGo's search (Silver et al. 2016; book ch. 13.4): the Python side of :mod:`fuseki.search.go.agtree`.

:class:`AlphaGoSearch` owns the tree arrays and the evaluation queue, runs
the simulations in Numba in batches, and between batches hands the queued
positions to an **evaluator** (the SL policy and the value network, in one
forward pass each per batch):

    ``evaluate(planes, need_priors, need_values) -> (priors (B, N*N), values (B,))``

``planes`` are the 49 AlphaGo planes (uint8, ``(B, 49, N, N)``): the first
48 are the policy network's input, all 49 the value network's. The
evaluator lives with the agent (:mod:`fuseki.agents.alphago_agent`), which
knows torch and the model files; the search only knows arrays. The tree,
the legal moves, the rollouts and the encoding of queued positions stay in
Numba: a network must not make the tree slow.

Settings (:class:`AlphaGoConfig`), the paper's where it gives them:
``c_puct = 5`` (on values in [-1, 1]), ``λ = 0.5``, virtual loss 3, a leaf
expanded (and sent to the networks) after ``expand_visits`` simulations
(the paper's ``n_thr`` was 40, tuned to keep its GPUs busy; on a CPU fewer
network calls are affordable, so ours defaults to 16; with ``λ = 1`` there
are no rollouts, and every leaf is expanded at once). The rollout is the
fast rollout policy (``rollout="policy"``), the MCTS engine's heavy playout
(``"heavy"``) or the book's light one (``"light"``).

>>> import numpy as np
>>> from fuseki.go import GameState
>>> def uniform(planes, need_priors, need_values):
...     b, n = planes.shape[0], planes.shape[-1]
...     return np.full((b, n * n), 1.0 / (n * n)), np.zeros(b)
>>> search = AlphaGoSearch(uniform, config=AlphaGoConfig(rollout="light", seed=1, capacity=1 << 14))
>>> info = search.search(GameState.new(5, komi=0.5), playouts=200)
>>> info.simulations >= 200, 0 <= info.move <= 25, info.evaluations > 0
(True, True, True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fuseki.go import kernels as K
from fuseki.search.go import agtree as A
from fuseki.search.go import flattree as FT
from fuseki.search.go.reader import READER_DEPTH, reader_stack
from fuseki.search.go.rollout_policy import RolloutPolicy
from fuseki.util.errors import InputError

__all__ = ["AlphaGoConfig", "AlphaGoSearch", "AlphaGoInfo", "MoveStat", "Evaluator"]

Evaluator = Callable[[np.ndarray, bool, bool], tuple[np.ndarray, np.ndarray]]
ROLLOUTS = ("policy", "heavy", "light")


@dataclasses.dataclass(frozen=True)
class AlphaGoConfig:
    """Everything that shapes the search (see the module notes and :mod:`fuseki.search.go.agtree`)."""

    c_puct: float = 5.0  #: on Q in [-1, 1], as the paper and the book give it
    lam: float = 0.5  #: λ: the value network's share of a leaf's value
    expand_visits: int | None = None  #: None: 1 when λ = 1, else 16
    virtual_loss: float = 3.0
    batch: int = 16  #: leaves a network call
    max_lag: int | None = None  #: evaluate when the oldest leaf waited this many simulations (None: 4 × batch)
    rollout: str = "policy"
    max_rollout_moves: int | None = None  #: None: three times the board's points
    depth: int = A.MAX_DEPTH - 1  #: the book's ``depth``: no path in the tree longer than this
    #: First-play urgency reduction (Leela Zero's ``fpu_reduction``, on Q in [0, 1]): an unvisited child's Q is its
    #: parent's value less this times sqrt(the priors of the visited children). 0: the parent's value, as before.
    fpu_reduction: float = 0.0
    pass_prior: float = 0.01
    pass_prior_after_pass: float = 0.3  #: after the opponent's pass, passing may end the game: look at it
    reuse: bool = True
    capacity: int = 1 << 20
    seed: int | None = None

    def __post_init__(self) -> None:
        if not (self.c_puct >= 0 and math.isfinite(self.c_puct)):
            raise InputError(f"c_puct must be a number of at least 0, got {self.c_puct!r}")
        if not 0.0 <= self.lam <= 1.0:
            raise InputError(f"lambda must be from 0 to 1, got {self.lam!r}")
        if not 0.0 <= self.fpu_reduction <= 1.0:
            raise InputError(f"fpu_reduction must be from 0 to 1, got {self.fpu_reduction!r}")
        if self.expand_visits is not None and self.expand_visits < 1:
            raise InputError("expand_visits must be at least 1")
        if self.batch < 1:
            raise InputError("batch must be at least 1")
        if self.rollout not in ROLLOUTS:
            raise InputError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}")
        if self.depth < 1:
            raise InputError("depth must be at least 1")
        if self.capacity < 1024:
            raise InputError("capacity must be at least 1024 rows")
        for name in ("pass_prior", "pass_prior_after_pass"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise InputError(f"{name} must be between 0 and 1")

    @property
    def expand_at(self) -> int:
        if self.expand_visits is not None:
            return self.expand_visits
        return 1 if self.lam >= 1.0 else 16

    def params(self, komi: float, size: int) -> np.ndarray:
        from fuseki.search.go.gomcts import MCTSConfig

        heavy = MCTSConfig()
        p = np.zeros(A.NPARAMS, dtype=np.float64)
        p[A.Q_CPUCT] = self.c_puct / 2.0  # Q in [0, 1] here
        p[A.Q_LAMBDA] = self.lam
        p[A.Q_EXPAND] = self.expand_at
        p[A.Q_VL] = self.virtual_loss
        p[A.Q_KOMI] = komi
        p[A.Q_MAXMOVES] = self.max_rollout_moves if self.max_rollout_moves is not None else 3 * size * size
        p[A.Q_ROLLOUT] = ROLLOUTS.index(self.rollout)
        p[A.Q_PASS_PRIOR] = self.pass_prior
        p[A.Q_PASS_PRIOR_AFTER] = self.pass_prior_after_pass
        p[A.Q_DEPTH] = self.depth
        p[A.Q_CAPTURE], p[A.Q_PAT3] = heavy.p_capture, heavy.p_pat3
        p[A.Q_SA], p[A.Q_SA_RANDOM] = heavy.p_selfatari, heavy.p_selfatari_random
        p[A.Q_LADDER_NODES] = heavy.playout_ladder_nodes if heavy.ladders else 0
        p[A.Q_FPU_REDUCTION] = self.fpu_reduction
        return p


@dataclasses.dataclass(frozen=True)
class MoveStat:
    """One root move: ``move`` an int index (``N*N`` = pass)."""

    move: int
    visits: int
    value: float  #: the mixed Q for the player to move at the root, in [0, 1]; NaN when unvisited
    rollout_winrate: float
    value_net: float  #: mean value-network estimate in its subtree, [0, 1]
    prior: float


@dataclasses.dataclass(frozen=True)
class AlphaGoInfo:
    """What a search found, and what it cost."""

    move: int
    winrate: float
    simulations: int
    evaluations: int  #: positions the networks evaluated
    network_calls: int
    network_seconds: float
    seconds: float
    tree_nodes: int
    reused_visits: int
    children: list[MoveStat]

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    @property
    def evaluations_per_second(self) -> float:
        return self.evaluations / self.seconds if self.seconds > 0 else float("inf")

    # The MCTS agents' reports call them playouts.
    @property
    def playouts(self) -> int:
        return self.simulations


class AlphaGoSearch(FT.KeptTree):
    """A reusable AlphaGo search for one board size at a time (it adapts when the size changes)."""

    # A kept node keeps its flags but "priors in": those belong to its children, which may not come along.
    _FLAGS = A.A_FLAGS
    _KEEP = ~A.FLAG_PRIORS

    def __init__(self, evaluator: Evaluator, rollout_policy: RolloutPolicy | None = None, config: AlphaGoConfig | None = None) -> None:
        self.config = config or AlphaGoConfig()
        if self.config.rollout == "policy" and rollout_policy is None and self.config.lam < 1.0:
            raise InputError("rollout='policy' needs a rollout policy (a model folder's rollout.safetensors)")
        self.evaluator = evaluator
        self.rollout_policy = rollout_policy or RolloutPolicy.zeros()
        self._w = self.rollout_policy.fused()
        cap = self.config.capacity
        self._ti = np.empty((cap, A.TI_COLS), dtype=np.int32)
        self._tf = np.empty((cap, A.TF_COLS), dtype=np.float64)
        self._th = np.zeros(1, dtype=np.int64)
        self._size = 0
        self._root_sig: tuple[int, int, int] | None = None
        self._banned_sig: tuple[int, int, int] | None = None
        if self.config.seed is not None:
            K.seed_kernels(int(self.config.seed))
        self._reset_tree()

    # ---- tree ------------------------------------------------------------------------------------

    def _reset_tree(self) -> None:
        self._ti[0] = (-1, -1, 0, 0)
        self._tf[0] = 0.0
        self._th[0] = 1
        self._root_sig = None
        self._banned_sig = None

    def clear(self) -> None:
        """Forget the tree (a new game)."""
        self._reset_tree()

    def _scratch(self, size: int) -> None:
        if size == self._size:
            return
        self._size = size
        n2 = size * size
        np_ = (size + 2) ** 2
        length = K.buffer_length(size)
        b = self.config.batch
        self._work = np.empty(length, dtype=np.int32)
        self._path = np.zeros(A.MAX_DEPTH + 1, dtype=np.int64)
        self._moves = np.zeros(A.MAX_DEPTH + 1, dtype=np.int64)
        self._qbufs = np.zeros((b, length), dtype=np.int32)
        self._qhist = np.full((b, A.HIST), -1, dtype=np.int32)
        self._qnode = np.zeros(b, dtype=np.int64)
        self._qpath = np.zeros((b, A.MAX_DEPTH + 1), dtype=np.int64)
        self._qdepth = np.zeros(b, dtype=np.int64)
        self._points = np.zeros(n2 + 1, dtype=np.int64)
        self._scores = np.zeros(n2 + 1, dtype=np.float64)
        self._amaf = np.zeros(np_, dtype=np.int32)
        self._cand = np.zeros(8 * np_, dtype=np.int32)
        self._kinds = np.zeros(8, dtype=np.int64)  # the heavy playout's move kinds (counted, not reported here)
        self._ladder = reader_stack(size, depth=min(READER_DEPTH, 4 * size))
        self._reset_tree()

    def _rerooted(self) -> None:
        self._banned_sig = None  # the new root's children are checked again

    def _ban_root_moves(self, state: Any) -> None:
        FT.ban_root_moves(self._ti, state)
        self._banned_sig = self._root_sig

    @staticmethod
    def _history(state: Any) -> np.ndarray:
        """The last 8 moves before ``state`` (included: the move into it), most recent first; -1 for none."""
        out = np.full(A.HIST, -1, dtype=np.int32)
        s = state
        for i in range(A.HIST):
            if s.parent is None:
                break
            last = s.last_index
            out[i] = -1 if last is None else int(last)
            s = s.parent
        return out

    # ---- search ----------------------------------------------------------------------------------

    def search(self, state: Any, *, playouts: int | None = None, seconds: float | None = None) -> AlphaGoInfo:
        """Search ``state`` for ``playouts`` simulations or ``seconds`` of wall time (whichever first)."""
        if playouts is None and seconds is None:
            raise InputError("give playouts or seconds (or both)")
        if playouts is not None and playouts < 1:
            raise InputError(f"playouts must be at least 1, got {playouts}")
        if seconds is not None and seconds <= 0:
            raise InputError(f"seconds must be positive, got {seconds}")
        if state.is_over():
            raise ValueError("the game is over: there is nothing to search")
        size = state.size
        self._scratch(size)
        self._reuse(state, self.config.reuse)
        root = state.buffer
        hist = self._history(state)
        prm = self.config.params(float(state.rules.komi), size)
        reused = int(self._tf[0, A.A_N])
        start = time.perf_counter()
        done = 0
        qcount = 0
        evals = 0
        calls = 0
        net_seconds = 0.0
        step = 8
        queued_at = 0  # simulations run when the oldest waiting leaf was queued
        lag = self.config.max_lag if self.config.max_lag is not None else 4 * self.config.batch
        while True:
            want = step if playouts is None else min(step, playouts - done)
            if want > 0:
                before = qcount
                ran, qcount = A.simulate(
                    root,
                    hist,
                    self._ti,
                    self._tf,
                    self._th,
                    prm,
                    want,
                    self._work,
                    self._path,
                    self._moves,
                    self._qbufs,
                    self._qhist,
                    self._qnode,
                    self._qpath,
                    self._qdepth,
                    qcount,
                    *self._w,
                    self._points,
                    self._scores,
                    self._amaf,
                    self._cand,
                    self._kinds,
                    *self._ladder,
                )
                done += ran
                if self._banned_sig != self._root_sig and self._ti[0, A.A_FIRST] >= 0:
                    self._ban_root_moves(state)
                if before == 0 and qcount > 0:
                    queued_at = done - ran
            now = time.perf_counter()
            over = (playouts is not None and done >= playouts) or (seconds is not None and now - start >= seconds)
            # Evaluate when the batch is full, when the oldest leaf has waited ``lag`` simulations (its
            # subtree runs on placeholder priors meanwhile), when the root waits, and at the end.
            root_waits = (self._ti[0, A.A_FLAGS] & A.FLAG_PENDING) != 0
            late = done - queued_at >= lag
            if qcount > 0 and (qcount >= self.config.batch or over or want <= 0 or late or root_waits):
                t0 = time.perf_counter()
                self._evaluate(qcount, size)
                net_seconds += time.perf_counter() - t0
                evals += qcount
                calls += 1
                qcount = 0
            if over or (want <= 0 and qcount == 0):
                break
            step = min(step * 2, 64)
        elapsed = time.perf_counter() - start
        return self._report(state, done, evals, calls, net_seconds, elapsed, reused)

    def _evaluate(self, count: int, size: int) -> None:
        lam = self.config.lam
        planes = np.zeros((count, 49, size * size), dtype=np.uint8)
        A.encode_queue(self._qbufs, self._qhist, count, planes)
        need_values = lam > 0.0
        priors, values = self.evaluator(planes.reshape(count, 49, size, size), True, need_values)
        priors = np.ascontiguousarray(priors, dtype=np.float64).reshape(count, size * size)
        values = np.ascontiguousarray(values, dtype=np.float64).reshape(count)
        if not (np.all(np.isfinite(priors)) and np.all(np.isfinite(values))):
            raise ValueError("the networks gave non-finite priors or values")
        A.apply_evaluations(
            self._ti,
            self._tf,
            self.config.params(0.0, size),
            self._qbufs,
            self._qnode,
            self._qpath,
            self._qdepth,
            count,
            priors,
            values,
            True,
            need_values,
        )

    def _report(self, state: Any, done: int, evals: int, calls: int, net_seconds: float, elapsed: float, reused: int) -> AlphaGoInfo:
        n2 = state.size * state.size
        lam = self.config.lam
        first, k = int(self._ti[0, A.A_FIRST]), int(self._ti[0, A.A_NCHILD])
        children: list[MoveStat] = []
        best, best_n = n2, -1.0
        for j in range(first, first + k):
            m = int(self._ti[j, A.A_MOVE])
            if m < 0:
                continue
            n, wr, nv, wv, p, _v = (float(x) for x in self._tf[j])
            rw = wr / n if n > 0 else math.nan
            vn = wv / nv if nv > 0 else math.nan
            if lam <= 0 or math.isnan(vn):
                q = rw
            elif lam >= 1 or math.isnan(rw):
                q = vn
            else:
                q = (1 - lam) * rw + lam * vn
            children.append(MoveStat(move=m, visits=int(n), value=q, rollout_winrate=rw, value_net=vn, prior=p))
            if n > best_n:
                best, best_n = m, n
        children.sort(key=lambda c: -c.visits)
        winrate = next((c.value for c in children if c.move == best), math.nan)
        return AlphaGoInfo(
            move=best,
            winrate=winrate,
            simulations=done,
            evaluations=evals,
            network_calls=calls,
            network_seconds=net_seconds,
            seconds=elapsed,
            tree_nodes=int(self._th[0]),
            reused_visits=reused,
            children=children,
        )
