"""Batched self-play for any game: many games advance together, their leaves in one network call.

The book's Zero agent (ch. 14) evaluates one position per network call; a
forward pass of a small net costs about the same for one position as for a
few hundred, so most of its time is overhead. Here ``parallel`` games are
played at once in one process. Each game has its own PUCT tree
(:class:`fuseki.search.puct.PUCT`); in every round each unfinished search
walks to its next batch of leaves (under virtual loss), the leaves of *all*
games go through *one* :meth:`~fuseki.search.evaluators.Evaluator.evaluate`
call, and each search takes its share back (PUCT's step API). When a game's
search has run its simulations, that game moves, and its next search starts;
a finished game makes room for the next one.

What AlphaGo Zero's self-play adds to the search:

- **Dirichlet noise** at every root (``dirichlet_epsilon`` 0.25; ``alpha``
  scaled to the moves available: :func:`default_alpha` is 10 / the legal
  moves of the first position, 0.03 on 19×19 Go as in the paper);
- **a temperature schedule**: for the first ``temperature_moves`` moves of a
  game the move is drawn in proportion to the visit counts (τ = 1), then the
  most visited move is played (τ → 0);
- **visit counts as policy targets**: each position's ``pi`` is the root's
  visit distribution (τ = 1), over all ``num_actions`` actions, zero off the
  legal ones;
- **exact terminal values** (PUCT never sends a finished game to the network)
  and ``z`` from the final result, from the view of the player to move in each
  position;
- **resignation**: a player resigns when its root value falls below
  ``resign_threshold``; a share ``no_resign_share`` of games is played to the
  end regardless, and there the first would-be resignation is recorded, so
  :func:`false_resignation_rate` can say how often resigning would have thrown
  away a game that was not lost (AlphaGo Zero kept that rate under 5 %).
  Each no-resign game also keeps its :func:`resign_record`, from which
  :func:`calibrate_resign` finds the threshold that would have kept the rate
  under a target (the loop's ``resign_target``: AlphaGo Zero's automatic
  ``v_resign``).

Every random choice of game ``i`` (its noise, its moves, whether it may
resign) derives from ``seed`` and ``i``, and a deterministic evaluator gives
each position the same answer whatever else is in the batch, so the games do
not depend on ``parallel``: batched and one-at-a-time self-play agree.

**Engines.** Go (with its own planes) is searched by the Numba trees of
:mod:`fuseki.search.go.zeropuct` when the evaluator can read ready-made
planes (``evaluate_planes``; the network evaluator can): one kernel call
walks every game's tree and writes the batch, Python only moves. Every other
game, and Go with a custom encoder, uses the Python PUCT. Both engines make
the same games from the same evaluations (``engine`` forces one).

**Gumbel root** (``root="gumbel"``, Danihelka et al. 2022; see
:mod:`fuseki.search.puct`): ``gumbel_m`` actions sampled by Gumbel-top-k,
sequential halving over the simulations, and the improved policy as the
policy target instead of the visit counts. The first ``temperature_moves``
moves are still drawn in proportion to the visit counts (sequential halving
spreads them over the considered actions: varied openings); later ones are
the search's own choice, the winner of sequential halving with the Gumbel
noise (a sample of the improved policy itself). The Dirichlet noise does not
apply.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fuseki.games.base import Game, returns_of
from fuseki.search.evaluators import Evaluator
from fuseki.search.puct import PUCT, PUCTConfig, PUCTResult
from fuseki.util.seeds import derive_seed

__all__ = [
    "ENGINES",
    "RESIGN_CANDIDATES",
    "SelfPlayConfig",
    "SelfPlayGame",
    "SelfPlayStats",
    "calibrate_resign",
    "capped_judge",
    "default_alpha",
    "false_resignation_rate",
    "play_games",
    "resign_counts",
    "resign_record",
    "samples_of",
]


#: The search engines of self-play (see the module notes).
ENGINES = ("auto", "python", "numba")


def default_alpha(game: Game) -> float:
    """Dirichlet α scaled to the moves available: 10 / the legal moves of the first position.

    That is AlphaZero's rule of thumb (0.03 for 19×19 Go's 361 moves, 0.3 for
    chess's ~30); tic-tac-toe gets about 1.1.
    """
    moves = len(game.initial_state().legal_moves())
    return 10.0 / max(1, moves)


@dataclasses.dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play games are played (see the module notes)."""

    simulations: int = 100
    c_puct: float = 1.5
    #: Leaves a game's search collects per round (under virtual loss).
    leaves_per_game: int = 8
    virtual_loss: float = 1.0
    dirichlet_epsilon: float = 0.25
    #: ``None``: :func:`default_alpha` of the game.
    dirichlet_alpha: float | None = None
    #: τ = 1 for this many moves of each game, then the most visited move.
    temperature_moves: int = 30
    #: Resign when the root value (for the player to move) is below this; ``None``: never.
    resign_threshold: float | None = None
    #: The share of games played to the end whatever the value says.
    no_resign_share: float = 0.1
    #: Stop a game after this many moves and score it a draw (``None``: no cap).
    max_moves: int | None = None
    #: Games played at once (their leaves share each network call).
    parallel: int = 64
    reuse: bool = True
    #: ``"puct"`` (AlphaZero's root) or ``"gumbel"`` (Gumbel AlphaZero's).
    root: str = "puct"
    #: Actions the Gumbel root considers (sampled by Gumbel-top-k).
    gumbel_m: int = 16
    #: ``"auto"``: the Numba search for Go when the evaluator reads planes, else Python; or ``"python"``/``"numba"``.
    engine: str = "auto"

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.leaves_per_game < 1 or self.parallel < 1:
            raise ValueError("simulations, leaves_per_game and parallel must be at least 1")
        if self.temperature_moves < 0:
            raise ValueError(f"temperature_moves must be >= 0, got {self.temperature_moves}")
        if self.resign_threshold is not None and not -1.0 <= self.resign_threshold <= 1.0:
            raise ValueError(f"resign_threshold must be in [-1, 1], got {self.resign_threshold}")
        if not 0.0 <= self.no_resign_share <= 1.0:
            raise ValueError(f"no_resign_share must be in [0, 1], got {self.no_resign_share}")
        if self.max_moves is not None and self.max_moves < 1:
            raise ValueError(f"max_moves must be at least 1, got {self.max_moves}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        self.puct_config(None, 0)  # the search's own checks (root, gumbel_m)

    def puct_config(self, game: Game | None, seed: int) -> PUCTConfig:
        if self.dirichlet_alpha is not None:
            alpha = self.dirichlet_alpha
        else:
            alpha = default_alpha(game) if game is not None else 0.3
        return PUCTConfig(
            simulations=self.simulations,
            c_puct=self.c_puct,
            batch_size=self.leaves_per_game,
            virtual_loss=self.virtual_loss,
            dirichlet_epsilon=self.dirichlet_epsilon if self.root == "puct" else 0.0,
            dirichlet_alpha=alpha,
            reuse=self.reuse,
            seed=seed,
            root=self.root,
            gumbel_m=self.gumbel_m,
            gumbel_noise=True,
        )


@dataclasses.dataclass
class SelfPlayGame:
    """One finished self-play game: its positions' planes, search targets and players, and how it ended."""

    index: int
    planes: np.ndarray  #: float32 ``(T, C, H, W)``, each from the view of the player to move
    pi: np.ndarray  #: float32 ``(T, num_actions)``: the root visit distributions
    players: np.ndarray  #: int8 ``(T,)``: who was to move
    moves: list[Any]
    winner: int | None
    returns: tuple[float, float]
    #: The player who resigned (the game's result counts it lost), else None.
    resigned: int | None = None
    #: In a no-resign game: the first player whose value fell below the threshold, else None.
    would_resign: int | None = None
    #: One of the games played to the end to measure false resignations.
    no_resign: bool = False
    capped: bool = False
    #: float32 ``(T,)``: the root value of each position, for its player to move (what resignation reads).
    values: np.ndarray | None = None

    @property
    def z(self) -> np.ndarray:
        """float32 ``(T,)``: the final result from the view of each position's player to move."""
        return np.array([self.returns[int(p)] for p in self.players], dtype=np.float32)


@dataclasses.dataclass
class SelfPlayStats:
    """Counts of one batch of self-play, for reports."""

    games: int = 0
    moves: int = 0
    evaluations: int = 0
    network_calls: int = 0
    seconds: float = 0.0
    wins: tuple[int, int] = (0, 0)
    draws: int = 0
    resigned: int = 0
    no_resign_games: int = 0
    would_resign: int = 0
    false_resignations: int = 0
    #: ``[index, record]`` of every no-resign game, by index: its :func:`resign_record`, for :func:`calibrate_resign`.
    resign_records: list[list[Any]] = dataclasses.field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["wins"] = list(self.wins)
        d["false_resignation_rate"] = self.false_resignations / self.would_resign if self.would_resign else None
        return d


def _resigns_falsely(winner: int | None, player: int) -> bool:
    """Whether ``player`` resigning would throw a result away: it did not lose in the end (won, or drew)."""
    return winner != 1 - player


def false_resignation_rate(games: Sequence[SelfPlayGame]) -> tuple[int, int]:
    """(false resignations, would-be resignations) over the no-resign games.

    A would-be resignation is false when the player who would have resigned
    did not lose in the end (won or drew): resigning would have thrown that
    result away.
    """
    would = [g for g in games if g.no_resign and g.would_resign is not None]
    false = sum(1 for g in would if _resigns_falsely(g.winner, int(g.would_resign or 0)))
    return false, len(would)


#: The thresholds :func:`calibrate_resign` chooses from: -1.00, -0.99, ..., -0.50.
RESIGN_CANDIDATES: tuple[float, ...] = tuple(round(-1.0 + 0.01 * k, 2) for k in range(51))


def resign_record(game: SelfPlayGame, below: float = RESIGN_CANDIDATES[-1]) -> list[list[Any]]:
    """Where a played-out game would have ended for every threshold up to ``below``: ``[[value, false], ...]``.

    The entries are the positions whose root value is lower than every
    value before it (the running minimum's new lows) and lower than
    ``below``, in order, so their values fall. For a threshold ``v`` (at most
    ``below``) the first resignation would have come at the first entry
    below ``v``: the entries split the thresholds into intervals, and
    ``false`` says whether the player to move there did not lose in the end
    (resigning would have thrown the game away). A few entries a game say
    what every threshold would have done, which the values of every move
    would say at a hundred times the size.
    """
    if game.values is None:
        raise ValueError(f"game {game.index} kept no root values")
    record: list[list[Any]] = []
    low = float("inf")
    for value, player in zip(game.values.tolist(), game.players.tolist(), strict=True):
        if value < low:
            low = value
            if value < below:
                record.append([round(value, 5), _resigns_falsely(game.winner, int(player))])
    return record


def resign_counts(records: Sequence[Sequence[Sequence[Any]]], threshold: float) -> tuple[int, int]:
    """(would-be resignations, false ones) of the games of ``records`` (:func:`resign_record`) at ``threshold``."""
    would = false = 0
    for record in records:
        first = next((entry for entry in record if entry[0] < threshold), None)
        if first is not None:
            would += 1
            false += bool(first[1])
    return would, false


def calibrate_resign(records: Sequence[Sequence[Sequence[Any]]], target: float, candidates: Sequence[float] = RESIGN_CANDIDATES) -> float:
    """The highest threshold whose false resignations on ``records`` (:func:`resign_record`) are at most ``target``.

    AlphaGo Zero chose ``v_resign`` so that under 5 % of the games it would
    have resigned (in the games played out) were in fact not lost. The
    highest such threshold resigns soonest, which saves the most self-play
    time. A threshold no game reaches resigns nothing and so qualifies: with
    the candidates starting at -1, a value head that cannot tell lost
    positions gets a threshold that never resigns.
    """
    if not 0.0 <= target < 1.0:
        raise ValueError(f"target must be in [0, 1), got {target}")
    if not candidates:
        raise ValueError("no candidate thresholds")
    best = min(candidates)
    for v in sorted(candidates):
        would, false = resign_counts(records, v)
        if false <= target * would:
            best = v
    return best


class _Live:
    """A game in progress: its state, search, random generator and records so far."""

    def __init__(self, game: Game, index: int, evaluator: Evaluator, config: SelfPlayConfig, seed: int, forest: Any = None) -> None:
        self.index = index
        self.state: Any = game.initial_state()
        noise_seed = derive_seed(seed, "game", index, "noise")
        #: A ``PUCT``, or a slot of the Numba forest (the same interface and the same noise generator).
        self.search: Any = forest.search(noise_seed) if forest is not None else PUCT(game, evaluator, config.puct_config(game, noise_seed))
        self.rng = np.random.default_rng(derive_seed(seed, "game", index, "moves"))
        draw = self.rng.random()  # drawn whether or not resignation is on, so the moves do not depend on it
        on = config.resign_threshold is not None
        #: Played to the end whatever the value says (to measure false resignations).
        self.no_resign = on and draw < config.no_resign_share
        self.may_resign = on and not self.no_resign
        self.planes: list[np.ndarray] = []
        self.pi: list[np.ndarray] = []
        self.players: list[int] = []
        self.moves: list[Any] = []
        self.values: list[float] = []
        self.would_resign: int | None = None
        self.search.start(self.state)


def play_games(
    game: Game,
    evaluator: Evaluator,
    games: int,
    config: SelfPlayConfig | None = None,
    *,
    seed: int = 0,
    first: int = 0,
    on_game: Callable[[SelfPlayGame], None] | None = None,
    judge: Callable[[Any], int | None] | None = None,
) -> tuple[list[SelfPlayGame], SelfPlayStats]:
    """Play games ``first .. first + games - 1`` of a run seeded ``seed``, ``config.parallel`` at a time.

    Returns the games in index order and their counts. ``on_game`` sees each
    game as it finishes (a progress line). ``judge(state)`` names the winner
    (0, 1 or None) of a game stopped at ``max_moves`` (:func:`capped_judge`);
    without one such a game is a draw.
    """
    config = config or SelfPlayConfig()
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    forest = _numba_forest(game, evaluator, config, min(games, config.parallel))
    started = time.perf_counter()
    stats = SelfPlayStats()
    done: dict[int, SelfPlayGame] = {}
    queue = iter(range(first, first + games))
    live: list[_Live] = []

    def refill() -> None:
        while len(live) < config.parallel:
            index = next(queue, None)
            if index is None:
                return
            live.append(_Live(game, index, evaluator, config, seed, forest))

    refill()
    while live:
        # One round: every search's next leaves, one evaluator call for all.
        if forest is not None:
            rows = forest.collect([g.search for g in live if not g.search.finished])
            if rows:
                priors, values = evaluator.evaluate_planes(forest.planes[:rows], forest.masks[:rows])  # type: ignore[attr-defined]
                stats.network_calls += 1
                stats.evaluations += rows
                forest.feed(priors, values)
        else:
            owners: list[tuple[_Live, int, int]] = []
            leaves: list[Any] = []
            for g in live:
                if not g.search.finished:
                    batch = g.search.pending_leaves()
                    if batch:
                        owners.append((g, len(leaves), len(leaves) + len(batch)))
                        leaves.extend(batch)
            if leaves:
                priors, values = evaluator.evaluate(leaves)
                stats.network_calls += 1
                stats.evaluations += len(leaves)
                for g, lo, hi in owners:
                    g.search.feed(priors[lo:hi], values[lo:hi])
        still: list[_Live] = []
        for g in live:
            if not g.search.finished:
                still.append(g)
                continue
            finished = _move(game, g, g.search.result(), config, judge)
            stats.moves += 1
            if finished is None:
                g.search.start(g.state)
                still.append(g)
            else:
                if forest is not None:
                    forest.release(g.search)
                done[finished.index] = finished
                _count(stats, finished)
                if on_game is not None:
                    on_game(finished)
        live[:] = still
        refill()
    stats.seconds = time.perf_counter() - started
    stats.resign_records.sort(key=lambda r: int(r[0]))  # by game, not by when each ended
    return [done[i] for i in sorted(done)], stats


def _move(
    game: Game, g: _Live, result: PUCTResult, config: SelfPlayConfig, judge: Callable[[Any], int | None] | None
) -> SelfPlayGame | None:
    """Record the position, resign or play the chosen move; the finished game, or None while it goes on."""
    state = g.state
    player = int(state.current_player)
    g.planes.append(game.planes(state))
    g.pi.append(result.policy_target())
    g.players.append(player)
    g.values.append(float(result.value))
    threshold = config.resign_threshold
    if threshold is not None and result.value < threshold:
        if g.may_resign:
            return _finish(g, winner=1 - player, resigned=player)
        if g.no_resign and g.would_resign is None:
            g.would_resign = player
    if len(g.moves) < config.temperature_moves:
        # The visit distribution; the prior when one simulation visited no move (PUCTResult's notes).
        p = result.move_distribution()
        action = int(g.rng.choice(len(p), p=p))
        move = game.index_to_move(state, action)
    else:
        move = result.move  # the most visited; with the Gumbel root, sequential halving's choice (noise included)
    g.state = state.play(move)
    g.moves.append(move)
    g.search.advance(move)
    if g.state.is_over():
        return _finish(g, winner=g.state.winner())
    if config.max_moves is not None and len(g.moves) >= config.max_moves:
        return _finish(g, winner=judge(g.state) if judge is not None else None, capped=True)
    return None


def _numba_forest(game: Game, evaluator: Evaluator, config: SelfPlayConfig, slots: int) -> Any:
    """The Numba search's forest for ``slots`` games, or None for the Python PUCT (see the module notes)."""
    if config.engine == "python" or slots < 1:
        return None
    # Imported here: the Numba Go search loads Go's kernels, which the other games never need.
    from fuseki.search.go.zeropuct import GoZeroForest, supports

    ok = supports(game) and callable(getattr(evaluator, "evaluate_planes", None))
    if not ok:
        if config.engine == "numba":
            raise ValueError(
                f"the Numba search plays Go with its own planes and an evaluator with evaluate_planes; "
                f"not {game.name} with {type(evaluator).__name__}"
            )
        return None
    return GoZeroForest(game, config.puct_config(game, 0), slots)  # type: ignore[arg-type]  # supports() checked it is a GoGame


def capped_judge(game: Game) -> Callable[[Any], int | None] | None:
    """How a game stopped at the move cap is scored: Go counts the board as it stands; other games draw (None).

    Go's count is the rules' own with every stone alive (Tromp-Taylor's
    convention): a dead-stone estimate would cost more than the game.
    """
    if not game.name.startswith("go"):
        return None

    def judge(state: Any) -> int | None:
        winner = state.go.score().winner
        return None if winner is None else (0 if winner.name == "BLACK" else 1)

    return judge


def _finish(g: _Live, *, winner: int | None, resigned: int | None = None, capped: bool = False) -> SelfPlayGame:
    returns = returns_of(winner)
    return SelfPlayGame(
        index=g.index,
        planes=np.stack(g.planes).astype(np.float32),
        pi=np.stack(g.pi),
        players=np.array(g.players, dtype=np.int8),
        moves=g.moves,
        winner=winner,
        returns=returns,
        resigned=resigned,
        would_resign=g.would_resign,
        no_resign=g.no_resign,
        capped=capped,
        values=np.array(g.values, dtype=np.float32),
    )


def _count(stats: SelfPlayStats, g: SelfPlayGame) -> None:
    stats.games += 1
    if g.winner is None:
        stats.draws += 1
    else:
        wins = list(stats.wins)
        wins[g.winner] += 1
        stats.wins = (wins[0], wins[1])
    if g.resigned is not None:
        stats.resigned += 1
    if g.no_resign:
        stats.no_resign_games += 1
        stats.resign_records.append([g.index, resign_record(g)])
        if g.would_resign is not None:
            stats.would_resign += 1
            if _resigns_falsely(g.winner, g.would_resign):
                stats.false_resignations += 1


def samples_of(games: Sequence[SelfPlayGame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All positions of ``games`` as training samples: planes ``(N, C, H, W)``, pi ``(N, A)``, z ``(N,)``."""
    if not games:
        raise ValueError("no games")
    planes = np.concatenate([g.planes for g in games])
    pi = np.concatenate([g.pi for g in games])
    z = np.concatenate([g.z for g in games])
    return planes, pi, z
