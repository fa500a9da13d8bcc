"""PUCT for Go on Numba arrays (:mod:`fuseki.search.go.zerotree`), many games per network call.

:class:`GoZeroForest` holds the trees of ``slots`` searches; each
:class:`GoPUCT` is one slot, with the interface of
:class:`fuseki.search.puct.PUCT` (``start``, ``finished``, ``result``,
``advance``, ``reset``, ``search``) and the same options
(:class:`~fuseki.search.puct.PUCTConfig`: ``c_puct``, leaves per round
under virtual loss, Dirichlet root noise, FPU, tree reuse, the Gumbel root).
What differs is how leaves reach the network: instead of ``pending_leaves``
returning states, :meth:`GoZeroForest.collect` walks every open search's
tree in one kernel call and leaves the batch's planes and legal masks in
:attr:`GoZeroForest.planes` and :attr:`GoZeroForest.masks`; the caller runs
the network once (an evaluator's ``evaluate_planes``) and hands the answers
to :meth:`GoZeroForest.feed`.

Per move, Python does what the Python PUCT does per move: the root's noise
(drawn from the search's own generator, in the same order, so both searches
give the same games), the result and its move. The search follows the
game's ko rule (simple, positional or situational superko) at every node,
as the Python tree does through ``GoGameState.legal_moves``, and values a
game that ends by two passes exactly, by the rules' count (area, or territory
with prisoners) against komi.

>>> from fuseki.games.go import GoGame
>>> from fuseki.search.evaluators import UniformEvaluator
>>> game = GoGame(size=5, komi=0.5)
>>> search = GoPUCT.single(game, UniformEvaluator(game), simulations=50)
>>> result = search.search(game.initial_state())
>>> int(result.visit_counts.sum()), result.move is not None
(49, True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from fuseki.games.go import GoGame, GoGameState
from fuseki.go import kernels as K
from fuseki.go.rules import KoRule, Scoring
from fuseki.go.state import Move
from fuseki.search.evaluators import terminal_value
from fuseki.search.go import zerotree as Z
from fuseki.search.puct import GumbelRoot, PUCTConfig, PUCTMoveStats, PUCTResult
from fuseki.search.uct import MoveStats

__all__ = ["GoPUCT", "GoZeroForest", "supports"]

#: Longest path a walk may take (a chain of this many expanded nodes would need as many simulations along one line).
MAX_DEPTH = 1024


def supports(game: Any) -> bool:
    """True when ``game`` is Go with its own AlphaGo Zero planes (no custom encoder): what the Numba search computes."""
    return isinstance(game, GoGame) and game.encoder is None


class GoZeroForest:
    """The trees of ``slots`` Go searches under one :class:`PUCTConfig`, walked and fed together."""

    ti: np.ndarray
    tf: np.ndarray
    tv: np.ndarray
    tflag: np.ndarray

    def __init__(self, game: GoGame, config: PUCTConfig, slots: int) -> None:
        if not supports(game):
            raise ValueError("the Numba Zero search plays Go with its own planes (GoGame without an encoder)")
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots}")
        self.game = game
        self.config = config
        self.slots = slots
        start = game.initial_state().go
        rules = start.rules
        n = game.size
        self.size = n
        self.actions = n * n + 1
        self.history = game.history
        self.ko_rule = {KoRule.SIMPLE: Z.KO_SIMPLE, KoRule.POSITIONAL: Z.KO_POSITIONAL, KoRule.SITUATIONAL: Z.KO_SITUATIONAL}[rules.ko]
        self.rules = rules
        prm = np.zeros(Z.NPARAMS)
        prm[Z.P_CPUCT] = config.c_puct
        prm[Z.P_FPU] = config.fpu
        prm[Z.P_VL] = config.virtual_loss
        prm[Z.P_BATCH] = config.batch_size
        territory = rules.scoring is Scoring.TERRITORY
        bonus = 0.0 if territory else float(rules.handicap_bonus.points(start.handicap))
        prm[Z.P_WHITE_BONUS] = rules.komi + bonus
        prm[Z.P_TERRITORY] = 1.0 if territory else 0.0
        prm[Z.P_KO] = self.ko_rule
        prm[Z.P_HISTORY] = self.history
        prm[Z.P_CVISIT] = config.gumbel_c_visit
        prm[Z.P_CSCALE] = config.gumbel_c_scale
        self.prm = prm
        a = self.actions
        b = config.batch_size
        length = K.buffer_length(n)
        self.cap = 0
        self._grow((2 * config.simulations + 2) * a)
        self.ss = np.zeros((slots, Z.NSS), dtype=np.int64)
        self.root_buf = np.zeros((slots, length), dtype=np.int32)
        self.hkeys = np.zeros((slots, 4 * n * n + 64), dtype=np.int64)
        self.hbits = np.zeros((slots, 1 << 13), dtype=np.uint8)
        self.hboards = np.zeros((slots, self.history, n * n), dtype=np.int8)
        self.gum = np.zeros((slots, 3, a))
        self.gseq = np.zeros((slots, max(1, config.simulations)), dtype=np.int32)
        self.pend_path = np.zeros((slots, b, MAX_DEPTH), dtype=np.int32)
        self.pend_len = np.zeros((slots, b), dtype=np.int32)
        self.pend_legal = np.zeros((slots, b, a), dtype=np.int16)
        self.pend_nlegal = np.zeros((slots, b), dtype=np.int32)
        #: The last batch's network input: float32 ``(rows, 2·history + 1, size, size)`` (use ``[:rows]``).
        self.planes = np.zeros((slots * b, 2 * self.history + 1, n, n), dtype=np.float32)
        #: And the legal actions of each row, bool ``(rows, size² + 1)``.
        self.masks = np.zeros((slots * b, a), dtype=bool)
        self._work = np.zeros(length, dtype=np.int32)
        self._ring = np.zeros((self.history, n * n), dtype=np.int8)
        self._path = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._pkeys = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._score = np.zeros(a)
        self._q = np.zeros(a)
        self._tmp = np.zeros(a)
        self._free = list(range(slots))
        self._order = np.zeros(0, dtype=np.int64)
        self._last: list[GoPUCT] = []
        for g in range(slots):
            self._reset(g)

    # -- storage ------------------------------------------------------------

    def _grow(self, rows: int) -> None:
        """Make room for ``rows`` tree rows per slot (keeping what is there)."""
        if rows <= self.cap:
            return
        cap = max(rows, 2 * self.cap)
        s = self.slots
        ti = np.zeros((s, cap, 3), dtype=np.int32)
        tf = np.zeros((s, cap, 3), dtype=np.float64)
        tv = np.zeros((s, cap), dtype=np.float32)
        tflag = np.zeros((s, cap), dtype=np.int8)
        if self.cap:
            ti[:, : self.cap] = self.ti
            tf[:, : self.cap] = self.tf
            tv[:, : self.cap] = self.tv
            tflag[:, : self.cap] = self.tflag
        self.ti, self.tf, self.tv, self.tflag = ti, tf, tv, tflag
        self.cap = cap
        self._ti2 = np.zeros((cap, 3), dtype=np.int32)
        self._tf2 = np.zeros((cap, 3), dtype=np.float64)
        self._tv2 = np.zeros(cap, dtype=np.float32)
        self._tflag2 = np.zeros(cap, dtype=np.int8)
        self._queue = np.zeros(cap, dtype=np.int64)
        self._dst = np.zeros(cap, dtype=np.int64)

    def _reset(self, g: int) -> None:
        """Slot ``g``'s tree becomes one unexpanded root."""
        self.ti[g, 0] = (-1, -1, 0)
        self.tf[g, 0] = 0.0
        self.tv[g, 0] = 0.0
        self.tflag[g, 0] = Z.FREE
        self.ss[g, Z.S_USED] = 1

    def _compact(self, g: int, row: int) -> None:
        Z.compact(
            g, row, self.ti, self.tf, self.tv, self.tflag, self.ss, self._ti2, self._tf2, self._tv2, self._tflag2, self._queue, self._dst
        )

    def _children(self, g: int) -> tuple[int, int]:
        return int(self.ti[g, 0, Z.I_FIRST]), int(self.ti[g, 0, Z.I_NCHILD])

    def _child(self, g: int, node: int, action: int) -> int:
        """The row of ``node``'s child by ``action``, or -1."""
        first, k = int(self.ti[g, node, Z.I_FIRST]), int(self.ti[g, node, Z.I_NCHILD])
        if first < 0:
            return -1
        hit = np.nonzero(self.ti[g, first : first + k, Z.I_MOVE] == action)[0]
        return first + int(hit[0]) if len(hit) else -1

    def _check(self, state: Any) -> None:
        """A position this forest can search: Go of its size under its rules."""
        go = getattr(state, "go", None)
        if go is None:
            raise ValueError(f"the Go Zero search takes GoGameState positions, not {type(state).__name__}")
        if go.size != self.size or go.rules != self.rules:
            raise ValueError(
                f"this search plays {self.size}x{self.size} under {self.rules}; the position is {go.size}x{go.size} under {go.rules}"
            )

    def _sync(self, g: int, state: GoGameState) -> None:
        """Slot ``g``'s root position, the game's superko keys and its last boards (for the planes)."""
        self._check(state)
        go = state.go
        self.root_buf[g] = go.buffer
        if self.ko_rule != Z.KO_SIMPLE:
            keys = go.superko_keys()
            if len(keys) > self.hkeys.shape[1]:
                grown = np.zeros((self.slots, 2 * len(keys)), dtype=np.int64)
                grown[:, : self.hkeys.shape[1]] = self.hkeys
                self.hkeys = grown
            self.hkeys[g, : len(keys)] = keys
            self.ss[g, Z.S_HLEN] = len(keys)
            Z.set_bits(self.hbits[g], self.hkeys[g], len(keys))
        s: Any = go
        count = 0
        while s is not None and count < self.history:
            self.hboards[g, count] = K.colors(s.buffer)
            s = s.parent
            count += 1
        self.ss[g, Z.S_HCOUNT] = count
        self.ss[g, Z.S_ROOTPLAYER] = state.current_player

    # -- searches -------------------------------------------------------------

    def search(self, seed: int | None = None, evaluator: Any = None) -> GoPUCT:
        """A search on a free slot (its own noise generator seeded ``seed``)."""
        if not self._free:
            raise RuntimeError(f"all {self.slots} slots of this forest are in use")
        return GoPUCT(self, self._free.pop(0), seed, evaluator)

    def release(self, search: GoPUCT) -> None:
        """Give ``search``'s slot back."""
        search._abandon()
        self._reset(search.slot)
        search.root_state = None
        self._free.append(search.slot)
        self._free.sort()

    def collect(self, searches: list[GoPUCT]) -> int:
        """Walk each search's tree (in this order) to its next leaves; returns the rows of :attr:`planes` to evaluate.

        Searches that are finished, or that wait for a :meth:`feed`, take no rows.
        """
        self._order = np.array([s.slot for s in searches], dtype=np.int64)
        self._last = list(searches)
        return int(
            Z.collect(
                self._order,
                self.ti,
                self.tf,
                self.tv,
                self.tflag,
                self.ss,
                self.prm,
                self.root_buf,
                self.hkeys,
                self.hbits,
                self.hboards,
                self.gum,
                self.gseq,
                self.pend_path,
                self.pend_len,
                self.pend_legal,
                self.pend_nlegal,
                self.planes,
                self.masks,
                self._work,
                self._ring,
                self._path,
                self._pkeys,
                self._score,
                self._q,
                self._tmp,
            )
        )

    def feed(self, priors: np.ndarray, values: np.ndarray) -> None:
        """The evaluations of the last :meth:`collect`'s rows: priors ``(rows, size² + 1)``, values ``(rows,)``
        for the player to move, as an evaluator's ``evaluate_planes`` returns them."""
        priors = np.ascontiguousarray(priors, dtype=np.float32)
        values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
        Z.feed(
            self._order,
            priors,
            values,
            self.ti,
            self.tf,
            self.tv,
            self.tflag,
            self.ss,
            self.prm,
            self.pend_path,
            self.pend_len,
            self.pend_legal,
            self.pend_nlegal,
            self._tmp,
        )
        for s in self._last:
            if self.ss[s.slot, Z.S_JUSTROOT]:
                self.ss[s.slot, Z.S_JUSTROOT] = 0
                s._begin_root()

    def root_planes(self, state: GoGameState) -> np.ndarray:
        """AlphaGo Zero's planes of ``state`` made by the kernel that makes the leaves' (for tests and samples)."""
        g = 0
        keep = (self.root_buf[g].copy(), self.hboards[g].copy(), self.ss[g].copy(), self.hkeys[g].copy(), self.hbits[g].copy())
        try:
            self._sync(g, state)
            out = np.zeros((1, *self.planes.shape[1:]), dtype=np.float32)
            Z.root_planes(self.root_buf[g], self.hboards[g], int(self.ss[g, Z.S_HCOUNT]), self.history, out)
            return out[0]
        finally:
            self.root_buf[g], self.hboards[g], self.ss[g], self.hkeys[g], self.hbits[g] = keep


@dataclasses.dataclass
class _Open:
    started: float
    target: int
    reused: int = 0
    final: PUCTResult | None = None


class GoPUCT:
    """One slot of a :class:`GoZeroForest`: a Go PUCT search with the interface of :class:`fuseki.search.puct.PUCT`.

    ``evaluator`` (with ``evaluate_planes(planes, masks)``) is needed only for
    :meth:`search`; a driver of many searches evaluates the forest's batches itself.
    """

    def __init__(self, forest: GoZeroForest, slot: int, seed: int | None, evaluator: Any = None) -> None:
        self.forest = forest
        self.slot = slot
        self.game = forest.game
        self.config = forest.config
        self.evaluator = evaluator
        self.rng = np.random.default_rng(seed)
        #: The position of the tree's root (None: unknown, the tree is rebuilt at the next start).
        self.root_state: GoGameState | None = None
        self._advanced = False
        self._clean: np.ndarray | None = None
        self._job: _Open | None = None
        self._gumbel: GumbelRoot | None = None

    @classmethod
    def single(cls, game: GoGame, evaluator: Any, config: PUCTConfig | None = None, seed: int | None = None, **overrides: Any) -> GoPUCT:
        """A search with a forest of its own (an agent's), evaluated by ``evaluator``."""
        config = config or PUCTConfig()
        if overrides:
            config = dataclasses.replace(config, **overrides)
        if seed is not None:
            config = dataclasses.replace(config, seed=seed)
        return GoZeroForest(game, config, 1).search(config.seed, evaluator)

    # -- the tree between searches ------------------------------------------------

    def reset(self) -> None:
        """Forget the tree (and any open search)."""
        self._abandon()
        self.forest._reset(self.slot)
        self.root_state = None
        self._advanced = False
        self._clean = None

    def advance(self, move: Any) -> None:
        """Make the root's child after ``move`` the root, keeping its subtree (or forget the tree): ``PUCT.advance``."""
        f, g = self.forest, self.slot
        self._abandon()
        self.root_state = None
        self._clean = None
        self._advanced = False
        if not self.config.reuse or f.ti[g, 0, Z.I_FIRST] < 0:
            f._reset(g)
            return
        row = f._child(g, 0, self._action(move))
        if row < 0 or f.ti[g, row, Z.I_FIRST] < 0:
            f._reset(g)
            return
        f._compact(g, row)
        self._advanced = True

    def _action(self, move: Any) -> int:
        n = self.forest.size
        if isinstance(move, Move):
            if move.is_pass:
                return n * n
            if move.point is None:
                return -1
            return move.point.row * n + move.point.col
        return int(move)

    def _find_root(self, state: GoGameState) -> None:
        """Keep the subtree of ``state`` when the tree's root is ``state``, its parent or grandparent; else a new tree."""
        f, g = self.forest, self.slot
        advanced, self._advanced = self._advanced, False
        if not self.config.reuse:
            f._reset(g)
            self._clean = None
            return
        if advanced:  # the driver moved the root to the move it played: this is its position
            if f.ti[g, 0, Z.I_FIRST] < 0:
                f._reset(g)
            return
        old = self.root_state
        if old is None or f.ti[g, 0, Z.I_FIRST] < 0:
            f._reset(g)
            self._clean = None
            return
        moves: list[int] = []
        s: Any = state.go
        for _ in range(3):
            if s is None:
                break
            if s is old.go or GoGameState(s).key == old.key:
                node = 0
                for m in reversed(moves):
                    node = f._child(g, node, m)
                    if node < 0:
                        break
                if node == 0:
                    return  # the same position: the same root (and its clean priors)
                if node > 0 and f.ti[g, node, Z.I_FIRST] >= 0:
                    f._compact(g, node)
                    self._clean = None
                    return
                break
            if s.parent is None:
                break
            moves.append(int(s.move_index(s.move_played())))
            s = s.parent
        f._reset(g)
        self._clean = None

    # -- one search, step by step ---------------------------------------------------

    def start(self, state: GoGameState, simulations: int | None = None) -> None:
        """Open a search of ``simulations`` (default: the config's) new simulations from ``state``."""
        simulations = self.config.simulations if simulations is None else simulations
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        f, g = self.forest, self.slot
        f._check(state)
        self._abandon()
        job = _Open(time.perf_counter(), simulations)
        self._job = job
        self._gumbel = None
        if state.is_over():
            self.reset()
            self._job = job
            job.final = PUCTResult(None, 0, 0.0, [], None, np.zeros(self.game.num_actions), terminal_value(state), 0)
            return
        self._find_root(state)
        self.root_state = state
        f._sync(g, state)
        f._grow(int(f.ss[g, Z.S_USED]) + (simulations + 1) * f.actions)
        if f.gseq.shape[1] < simulations:
            grown = np.zeros((f.slots, simulations), dtype=np.int32)
            grown[:, : f.gseq.shape[1]] = f.gseq
            f.gseq = grown
        ss = f.ss[g]
        ss[Z.S_ACTIVE] = 1
        ss[Z.S_TARGET] = simulations
        ss[Z.S_DONE] = 0
        ss[Z.S_AWAIT] = 0
        ss[Z.S_NPEND] = 0
        ss[Z.S_GUMBEL] = 0
        if f.ti[g, 0, Z.I_FIRST] >= 0:
            first, k = f._children(g)
            job.reused = int(f.tf[g, first : first + k, Z.F_N].sum())
            self._begin_root()

    @property
    def finished(self) -> bool:
        """True when the open search has run its simulations (and has no leaves waiting)."""
        job = self._open_job()
        if job.final is not None:
            return True
        f, g = self.forest, self.slot
        ss = f.ss[g]
        return bool(f.ti[g, 0, Z.I_FIRST] >= 0 and ss[Z.S_DONE] >= ss[Z.S_TARGET] and ss[Z.S_NPEND] == 0 and not ss[Z.S_AWAIT])

    def result(self) -> PUCTResult:
        """Close the finished search and return its result (``PUCT.result``)."""
        job = self._open_job()
        if not self.finished:
            raise RuntimeError("the search has not run its simulations yet")
        self._job = None
        f, g = self.forest, self.slot
        f.ss[g, Z.S_ACTIVE] = 0
        if job.final is not None:
            return job.final
        assert self.root_state is not None
        first, k = f._children(g)
        actions = f.ti[g, first : first + k, Z.I_MOVE].astype(np.int64)
        n = f.tf[g, first : first + k, Z.F_N].copy()
        w = f.tf[g, first : first + k, Z.F_W].copy()
        prior = f.tf[g, first : first + k, Z.F_P].copy()
        counts = np.zeros(self.game.num_actions)
        counts[actions] = n
        state = self.root_state
        moves = [self.game.index_to_move(state, int(a)) for a in actions]
        stats: list[MoveStats] = [
            PUCTMoveStats(moves[i], int(n[i]), (1.0 + w[i] / n[i]) / 2.0 if n[i] > 0 else math.nan, int(actions[i]), float(prior[i]))
            for i in range(k)
        ]
        improved = None
        if self._gumbel is not None:
            gumbel = self._gumbel
            gumbel.local = f.gum[g, 2, :k].copy()
            root = SimpleNamespace(n=n, w=w, clean_prior=prior, raw_value=float(f.tv[g, 0]))
            best, policy = gumbel.final(root, self.config)  # type: ignore[arg-type]  # the fields GumbelRoot reads
            improved = np.zeros(self.game.num_actions)
            improved[actions] = policy
        else:
            best = max(range(k), key=lambda i: (n[i], prior[i], -i))
        total = n.sum()
        # No move visited (one simulation on a fresh root): the network's own value (as PUCT._result).
        value = float(w.sum() / total) if total > 0 else float(f.tv[g, 0])
        clean = np.zeros(self.game.num_actions)
        noised = self.config.root == "puct" and self.config.dirichlet_epsilon > 0 and self._clean is not None and len(self._clean) == k
        clean[actions] = self._clean if noised else prior
        seconds = time.perf_counter() - job.started
        return PUCTResult(moves[best], int(f.ss[g, Z.S_DONE]), seconds, stats, None, counts, value, job.reused, improved, clean)

    def search(self, state: GoGameState, simulations: int | None = None) -> PUCTResult:
        """Run ``simulations`` new simulations from ``state`` with this search's evaluator (``PUCT.search``)."""
        if self.evaluator is None:
            raise RuntimeError("this search has no evaluator of its own: drive it through its forest")
        self.start(state, simulations)
        f = self.forest
        while not self.finished:
            rows = f.collect([self])
            if rows:
                priors, values = self.evaluator.evaluate_planes(f.planes[:rows], f.masks[:rows])
                f.feed(priors, values)
        return self.result()

    # -- internals ----------------------------------------------------------------------

    def _open_job(self) -> _Open:
        if self._job is None:
            raise RuntimeError("no search is open: call start(state) first")
        return self._job

    def _abandon(self) -> None:
        f, g = self.forest, self.slot
        if self._job is not None and f.ss[g, Z.S_ACTIVE]:
            Z.abandon(g, f.ti, f.tf, f.tflag, f.ss, f.prm, f.pend_path, f.pend_len)
        f.ss[g, Z.S_ACTIVE] = 0
        self._job = None

    def _begin_root(self) -> None:
        """The root is ready (evaluated, or reused): its Dirichlet noise, or the Gumbel root (``PUCT._begin_root``)."""
        f, g = self.forest, self.slot
        config = self.config
        first, k = f._children(g)
        job = self._open_job()
        done = int(f.ss[g, Z.S_DONE])
        if config.root == "gumbel":
            prior = f.tf[g, first : first + k, Z.F_P].copy()
            gumbel = GumbelRoot.begin(prior, job.target - done, config.gumbel_m, self.rng if config.gumbel_noise else None)
            f.gum[g, 0, :k] = gumbel.gumbel
            f.gum[g, 1, :k] = gumbel.logits
            f.gum[g, 2, :k] = 0.0
            f.gseq[g, : len(gumbel.schedule)] = gumbel.schedule
            f.ss[g, Z.S_GUMBEL] = 1
            self._gumbel = gumbel
            return
        eps = config.dirichlet_epsilon
        if eps > 0 and k > 0:
            if self._clean is None or len(self._clean) != k:
                self._clean = f.tf[g, first : first + k, Z.F_P].copy()
            noise = self.rng.dirichlet([config.dirichlet_alpha] * k)
            f.tf[g, first : first + k, Z.F_P] = (1.0 - eps) * self._clean + eps * noise
