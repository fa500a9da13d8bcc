"""Fast Monte Carlo tree search for Go: the Python side of :mod:`fuseki.search.go.gotree`.

:class:`GoMCTS` owns the tree arrays and the scratch space, turns a
:class:`~fuseki.go.GameState` into a search root, runs simulations in
batches until a playout or time limit, and keeps the subtree of the moves
actually played for the next search (tree reuse).

The settings live in :class:`MCTSConfig`. Its defaults are the strong
configuration (heavy playouts, priors, RAVE, Michi's constants). The
``book()`` preset is the book's chapter-4 agent: plain UCT with
``c = 1.5``, the no-own-eye random playout, no priors, no RAVE, and one new
node per simulation (a leaf is expanded on its second visit, so each
simulation stops at the first node it has never visited, as the book's
``add_random_child`` does).

>>> from fuseki.go import GameState
>>> mcts = GoMCTS(MCTSConfig(seed=1))
>>> result = mcts.search(GameState.new(5, komi=0.5), playouts=200)
>>> result.playouts, 0.0 <= result.winrate <= 1.0
(200, True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fuseki.go import kernels as K
from fuseki.search.go import flattree as FT
from fuseki.search.go import gotree as T
from fuseki.search.go.reader import READER_DEPTH, reader_stack
from fuseki.util.errors import InputError

__all__ = ["MCTSConfig", "GoMCTS", "SearchInfo", "ChildInfo", "PV_LENGTH"]

#: Longest principal variation a search reports per move.
PV_LENGTH = 32


@dataclasses.dataclass(frozen=True)
class MCTSConfig:
    """Everything that shapes the search (see :mod:`fuseki.search.go.gotree` for the formulas).

    Priors are virtual visits: ``prior_even`` visits, half won, for every
    move; the bonuses add won (or, for self-atari and first/second-line moves
    in empty areas, lost) visits on top. The defaults are Michi's.
    """

    policy: str = "heavy"  # "heavy" (captures, ataris, 3x3 patterns) or "light" (the book's)
    rave: bool = True
    priors: bool = True
    c: float = 0.0  # UCB exploration constant; 0 lets priors and RAVE explore
    expand_visits: int = 8
    rave_equiv: float = 3500.0
    p_capture: float = 0.9
    p_pat3: float = 0.95
    p_selfatari: float = 0.9
    p_selfatari_random: float = 0.5
    prior_even: float = 10.0
    prior_capture_one: float = 15.0
    prior_capture_many: float = 30.0
    prior_pat3: float = 10.0
    prior_selfatari: float = 10.0
    prior_cfg: tuple[float, float, float] = (24.0, 22.0, 8.0)
    prior_emptyarea: float = 10.0
    ladders: bool = True  # read ladders for the capture and escape priors
    ladder_nodes: int = 200  # positions one ladder read may visit (priors)
    # ... in a playout, where reads are many and a long one costs more than the playout: a ladder that takes
    # more reading counts as an escape there (Michi reads without a limit, at a third of the speed).
    playout_ladder_nodes: int = 16
    max_game_factor: int = 3  # a playout stops after this many times the board's points
    reuse: bool = True
    capacity: int = 1 << 21  # tree rows; about 44 bytes each
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.policy not in ("heavy", "light"):
            raise InputError(f"policy must be 'heavy' or 'light', got {self.policy!r}")
        if self.expand_visits < 1:
            # 0 would expand every new node at once, all the way to the end of the game.
            raise InputError("expand_visits must be at least 1")
        if self.capacity < 1024:
            raise InputError("capacity must be at least 1024 rows")
        if self.c < 0:
            raise InputError("c must be >= 0")

    @classmethod
    def book(cls, **overrides: Any) -> "MCTSConfig":
        """The book's MCTS agent: UCT (c = 1.5), random no-own-eye playouts, no priors, no RAVE."""
        base = dict(policy="light", rave=False, priors=False, c=1.5, expand_visits=1, prior_even=0.0)
        base.update(overrides)
        return cls(**base)  # type: ignore[arg-type]

    def params(self, komi: float, size: int) -> np.ndarray:
        """The float64 parameter array that the kernels read."""
        p = np.zeros(T.NPARAMS, dtype=np.float64)
        p[T.P_EXPAND] = self.expand_visits
        p[T.P_RAVE_EQUIV] = self.rave_equiv
        p[T.P_C] = self.c
        p[T.P_KOMI] = komi
        p[T.P_CAPTURE] = self.p_capture
        p[T.P_PAT3] = self.p_pat3
        p[T.P_SA] = self.p_selfatari
        p[T.P_SA_RANDOM] = self.p_selfatari_random
        p[T.P_MAXMOVES] = self.max_game_factor * size * size
        p[T.P_RAVE] = 1.0 if self.rave else 0.0
        p[T.P_PRIORS] = 1.0 if self.priors else 0.0
        p[T.P_POLICY] = 1.0 if self.policy == "heavy" else 0.0
        p[T.P_PRIOR_EVEN] = self.prior_even
        p[T.P_PRIOR_CAPTURE_ONE] = self.prior_capture_one
        p[T.P_PRIOR_CAPTURE_MANY] = self.prior_capture_many
        p[T.P_PRIOR_PAT3] = self.prior_pat3
        p[T.P_PRIOR_SELFATARI] = self.prior_selfatari
        p[T.P_PRIOR_CFG1], p[T.P_PRIOR_CFG2], p[T.P_PRIOR_CFG3] = self.prior_cfg
        p[T.P_PRIOR_EMPTYAREA] = self.prior_emptyarea
        p[T.P_LADDERS] = 1.0 if self.ladders else 0.0
        p[T.P_LADDER_NODES] = self.ladder_nodes
        p[T.P_PLAYOUT_LADDER_NODES] = self.playout_ladder_nodes
        return p


@dataclasses.dataclass(frozen=True)
class ChildInfo:
    """One root move's statistics: ``move`` is an int index (``size*size`` = pass)."""

    move: int
    visits: int
    winrate: float  # for the player to move at the root; NaN when unvisited
    prior: float  # prior win fraction
    amaf_visits: int
    amaf_winrate: float
    #: Mean and spread of the final score (area difference against komi) for the player to
    #: move at the root, over the simulations through this move; NaN when unvisited.
    score_mean: float = math.nan
    score_stdev: float = math.nan
    #: This move's share of the root's prior wins (heuristics plus any policy network):
    #: the nearest thing this engine has to a policy probability, in [0, 1].
    prior_share: float = 0.0
    #: The principal variation starting with this move (most visited replies), at most PV_LENGTH moves.
    pv: tuple[int, ...] = ()
    pv_visits: tuple[int, ...] = ()  #: the visits of each move of ``pv``


@dataclasses.dataclass(frozen=True)
class SearchInfo:
    """What a search found: the move (int index; ``size*size`` = pass), its win rate, and effort."""

    move: int
    winrate: float  # of the chosen move, for the player to move
    playouts: int  # simulations run in this search
    seconds: float
    tree_nodes: int
    reused_visits: int  # visits the root already had from earlier searches
    children: list[ChildInfo]
    ownership: np.ndarray  # per unpadded point, in [-1, 1] (+1 = Black's)
    interrupted: bool = False  # stopped by ``stop()`` (the next command) rather than by a limit

    @property
    def value(self) -> float:
        """The root's win rate for the player to move: child win rates weighted by visits.

        The best child's own rate is biased upwards with few visits (the
        maximum of noisy estimates); the weighted mean is the root's estimate.
        NaN before any visit.
        """
        visited = [c for c in self.children if c.visits > 0]
        total = sum(c.visits for c in visited)
        return sum(c.visits * c.winrate for c in visited) / total if total else math.nan

    @property
    def score(self) -> float:
        """The root's mean final score for the player to move (visits-weighted, against komi)."""
        visited = [c for c in self.children if c.visits > 0]
        total = sum(c.visits for c in visited)
        return sum(c.visits * c.score_mean for c in visited) / total if total else math.nan

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds > 0 else float("inf")


class GoMCTS(FT.KeptTree):
    """A reusable MCTS engine for one board size at a time (it adapts when the size changes)."""

    def __init__(
        self,
        config: MCTSConfig | None = None,
        *,
        root_prior: Callable[[Any], np.ndarray] | None = None,
        root_prior_visits: float = 100.0,
    ) -> None:
        """``root_prior(state)`` (optional) gives move probabilities for a root position, one per
        unpadded point plus pass (``N*N + 1`` values; a policy network's output). Each root child then
        gets ``root_prior_visits * p`` extra prior visits, all won: a policy that is sure of a move
        makes the search start there, as AlphaGo's priors do, and the playouts overrule it when it
        is wrong. Inner nodes keep the heuristic priors, so the network is asked once per move.
        """
        if root_prior_visits < 0 or not math.isfinite(root_prior_visits):
            raise InputError(f"root_prior_visits must be a number at least 0, got {root_prior_visits!r}")
        self.root_prior = root_prior
        self.root_prior_visits = float(root_prior_visits)
        self._prior_sig: tuple[int, int, int] | None = None  # the root that last got the policy priors
        self.config = config or MCTSConfig()
        cap = self.config.capacity
        self._ti = np.empty((cap, 3), dtype=np.int32)
        self._tf = np.empty((cap, T.NF), dtype=np.float32)
        self._th = np.zeros(1, dtype=np.int64)
        self._size = 0
        self._root_sig: tuple[int, int, int] | None = None  # (key, move number, size) of the tree's root
        if self.config.seed is not None:
            K.seed_kernels(int(self.config.seed))
        self._reset_tree()

    # ---- tree management ------------------------------------------------

    def _reset_tree(self) -> None:
        self._ti[0] = (-1, -1, 0)
        self._tf[0] = 0.0
        self._th[0] = 1
        self._root_sig = None
        self._prior_sig = None

    def _scratch(self, size: int) -> None:
        if size == self._size:
            return
        np_ = (size + 2) ** 2
        self._size = size
        self._work = np.empty(K.buffer_length(size), dtype=np.int32)
        self._amaf = np.zeros(np_, dtype=np.int32)
        self._path = np.zeros(T.MAX_DEPTH, dtype=np.int64)
        self._cand = np.zeros(8 * np_, dtype=np.int32)
        self._pn = np.zeros(np_, dtype=np.float32)
        self._pw = np.zeros(np_, dtype=np.float32)
        self._dist = np.zeros(np_, dtype=np.int32)
        self._owner = np.zeros(np_, dtype=np.float64)
        self._kinds = np.zeros(8, dtype=np.int64)
        self._ladder = reader_stack(size, depth=min(READER_DEPTH, 4 * size))
        self._reset_tree()

    # ---- search -----------------------------------------------------------

    def search(
        self,
        state: Any,
        *,
        playouts: int | None = None,
        seconds: float | None = None,
        max_seconds: float | None = None,
        started: float | None = None,
        stop: Callable[[], bool] | None = None,
        progress: Callable[[SearchInfo], None] | None = None,
        interval: float = 1.0,
        decisive: bool = False,
        allow_pass: bool = True,
    ) -> SearchInfo:
        """Search ``state`` (a :class:`fuseki.go.GameState`) until a limit is reached.

        Limits (at least one): ``playouts`` simulations, ``seconds`` of wall
        time, or ``stop()`` returning True (polled between batches of about
        20 ms: an analysis runs until the next GTP command arrives).

        ``started`` is the :func:`time.perf_counter` time from which
        ``seconds`` and ``max_seconds`` count (default: now). A GTP engine
        under a clock passes the moment the command arrived, so that reading
        it and preparing the root is paid out of the same budget.
        ``max_seconds`` (at least ``seconds``) lets the search run on past
        ``seconds`` while the choice is unclear: another move with at least a
        quarter of the best one's visits has a higher win rate.
        ``decisive`` stops as soon as no other move can overtake the most
        visited one in the simulations left (at the measured rate), which is
        what a clock wants: time saved on an obvious move is time for a hard one.
        ``progress(info)`` gets a snapshot every ``interval`` seconds.
        ``allow_pass=False`` keeps the pass out of the root's choices for this search (the next
        search allows it again): the best move other than a pass, when passing is not wanted.
        """
        if playouts is None and seconds is None and stop is None:
            raise InputError("give playouts, seconds or a stop condition")
        if playouts is not None and playouts < 1:
            raise InputError(f"playouts must be at least 1, got {playouts}")
        if seconds is not None and not seconds > 0:
            raise InputError(f"seconds must be positive, got {seconds}")
        if max_seconds is not None and (seconds is None or not max_seconds >= seconds):
            raise InputError("max_seconds needs seconds and must be at least seconds")
        if state.is_over():
            raise ValueError("the game is over: there is nothing to search")
        size = state.size
        self._scratch(size)
        self._reuse(state, self.config.reuse)
        root = state._buf
        prm = self.config.params(state.rules.komi, size)
        self._owner[:] = 0.0
        reused = int(self._tf[0, T.F_N])
        start = time.perf_counter()
        origin = start if started is None else float(started)
        soft_end = None if seconds is None else origin + seconds
        hard_end = soft_end if max_seconds is None else origin + max_seconds
        done = 0
        if self._ti[0, T.T_FIRST] < 0:
            T.expand(
                root, self._ti, self._tf, self._th, 0, prm, self._pn, self._pw, self._cand, self._dist, *self._ladder
            )
        FT.ban_root_moves(self._ti, state, allow_pass)
        if self.root_prior is not None and self._prior_sig != self._root_sig:
            self._add_root_prior(state)
        timed = seconds is not None or stop is not None or progress is not None
        next_report = start + interval if progress is not None else math.inf
        interrupted = False
        batch = 16
        args = (self._amaf, self._path, self._cand, self._pn, self._pw, self._dist, self._owner, *self._ladder, self._kinds)
        while True:
            want = batch if playouts is None else min(batch, playouts - done)
            if want <= 0:
                break
            t0 = time.perf_counter()
            T.run_simulations(root, self._work, self._ti, self._tf, self._th, prm, want, *args)
            done += want
            now = time.perf_counter()
            if stop is not None and stop():
                interrupted = True
                break
            if now >= next_report:
                assert progress is not None
                progress(self._report(state, done, now - start, reused))
                now = time.perf_counter()
                next_report = now + interval
            per = (now - t0) / want
            if hard_end is not None:
                if now >= hard_end:
                    break
                if soft_end is not None and now >= soft_end and not self._unclear():
                    break
                if decisive:
                    left = (playouts - done) if playouts is not None else math.inf
                    left = min(left, (hard_end - now) / max(per, 1e-9))
                    if self._decided(left):
                        break
            elif decisive and playouts is not None and self._decided(playouts - done):
                break
            if timed:
                # Aim at about 20 ms per call: time checks stay cheap, limits stay sharp.
                size_cap = 4096
                if hard_end is not None and soft_end is not None:
                    target_end = soft_end if now < soft_end else hard_end
                    size_cap = min(size_cap, int((target_end - now) / max(per, 1e-7)) + 1)
                batch = max(1, min(int(0.02 / max(per, 1e-7)), size_cap))
            else:
                batch = min(batch * 2, 4096)
        elapsed = time.perf_counter() - start
        info = self._report(state, done, elapsed, reused)
        return dataclasses.replace(info, interrupted=interrupted)

    def _root_stats(self) -> tuple[np.ndarray, np.ndarray]:
        """Visits and wins of the root's playable children (arrays, tree order)."""
        first, k = int(self._ti[0, T.T_FIRST]), int(self._ti[0, T.T_NCHILD])
        if first < 0:
            return np.zeros(0, np.float32), np.zeros(0, np.float32)
        ok = self._ti[first : first + k, T.T_MOVE] >= 0
        rows = self._tf[first : first + k]
        return rows[ok, T.F_N], rows[ok, T.F_W]

    def _unclear(self) -> bool:
        """Another move with at least a quarter of the best one's visits has a higher win rate."""
        n, w = self._root_stats()
        if n.size < 2:
            return False
        best = int(np.argmax(n))
        if n[best] <= 0:
            return True
        rivals = n >= 0.25 * n[best]
        rates = np.where(rivals, w / np.maximum(n, 1.0), -1.0)
        return bool(rates.max() > rates[best] + 1e-6)

    def _decided(self, left: float) -> bool:
        """No other move can reach the most visited one's visits in ``left`` more simulations."""
        n, _ = self._root_stats()
        if n.size < 2:
            return n.size == 1
        top2 = np.partition(n, n.size - 2)[-2:]
        return bool(top2[1] - top2[0] > left)

    def _add_root_prior(self, state: Any) -> None:
        """Add the policy's prior visits to the root's children (once per root position)."""
        assert self.root_prior is not None
        n2 = state.size * state.size
        probs = np.asarray(self.root_prior(state), dtype=np.float64).ravel()
        if probs.shape != (n2 + 1,) and probs.shape != (n2,):
            raise InputError(f"the root prior gave {probs.size} values; a {state.size}x{state.size} board needs {n2 + 1}")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0):
            raise InputError("the root prior gave negative or non-finite probabilities")
        first, k = int(self._ti[0, T.T_FIRST]), int(self._ti[0, T.T_NCHILD])
        if first >= 0:
            moves = self._ti[first : first + k, T.T_MOVE]
            plain = np.where(moves < 0, -1 - moves, moves)
            p = np.zeros(k, dtype=np.float64)
            inside = plain < probs.size
            p[inside] = probs[plain[inside]]
            total = p.sum()
            if total > 0:
                extra = (self.root_prior_visits * p / total).astype(np.float32)
                self._tf[first : first + k, T.F_PN] += extra
                self._tf[first : first + k, T.F_PW] += extra
        self._prior_sig = self._root_sig

    def _report(self, state: Any, done: int, elapsed: float, reused: int) -> SearchInfo:
        size = state.size
        first, k = int(self._ti[0, T.T_FIRST]), int(self._ti[0, T.T_NCHILD])
        children: list[ChildInfo] = []
        best, best_n = size * size, -1.0
        rows = self._tf[first : first + k].astype(np.float64) if first >= 0 else np.zeros((0, T.NF))
        moves = self._ti[first : first + k, T.T_MOVE] if first >= 0 else np.zeros(0, np.int32)
        playable = moves >= 0
        prior_total = float(np.clip(rows[playable, T.F_PW], 0.0, None).sum()) if len(rows) else 0.0
        pv_buf = np.empty(PV_LENGTH, dtype=np.int64)
        pv_visits = np.empty(PV_LENGTH, dtype=np.float64)
        for j in range(len(moves)):
            m = int(moves[j])
            if m < 0:
                continue
            n, w, pn, pw, an, aw, s1, s2 = (float(x) for x in rows[j])
            if n > 0:
                mean = s1 / n
                stdev = math.sqrt(max(s2 / n - mean * mean, 0.0))
                got = T.principal_variation(self._ti, self._tf, first + j, pv_buf, pv_visits)
                pv = tuple(int(x) for x in pv_buf[:got])
                pv_n = tuple(int(x) for x in pv_visits[:got])
            else:
                mean = stdev = math.nan
                pv, pv_n = (m,), (0,)
            children.append(
                ChildInfo(
                    move=m,
                    visits=int(n),
                    winrate=w / n if n > 0 else math.nan,
                    prior=pw / pn if pn > 0 else math.nan,
                    amaf_visits=int(an),
                    amaf_winrate=aw / an if an > 0 else math.nan,
                    score_mean=mean,
                    score_stdev=stdev,
                    prior_share=max(pw, 0.0) / prior_total if prior_total > 0 else 0.0,
                    pv=pv,
                    pv_visits=pv_n,
                )
            )
            if n > best_n:
                best, best_n = m, n
        children.sort(key=lambda c: -c.visits)
        winrate = next((c.winrate for c in children if c.move == best), math.nan)
        w = size + 2
        owner = self._owner.reshape(w, w)[1:-1, 1:-1].reshape(-1) / max(done, 1)
        return SearchInfo(
            move=best,
            winrate=winrate,
            playouts=done,
            seconds=elapsed,
            tree_nodes=int(self._th[0]),
            reused_visits=reused,
            children=children,
            ownership=owner.astype(np.float32),
        )

    def clear(self) -> None:
        """Forget the tree (for example after ``clear_board``)."""
        self._reset_tree()
