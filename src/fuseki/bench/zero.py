"""How fast is Zero self-play on Go? Moves and network evaluations per second, beside OpenSpiel's MCTSBot.

Both sides play self-play moves with **the same network**: the dual residual
net of ``fuseki zero train go`` (``--blocks`` × ``--channels``, 4 × 64 by
default, random weights from ``--seed``), on AlphaGo Zero's 17 planes, each
network answer through the same :class:`fuseki.nets.batcher.Batcher` (a
softmax over the legal moves), ``--simulations`` (100) simulations a move,
torch on one thread.

=====================  ===========================================================
``fuseki``             :func:`fuseki.zero.selfplay.play_games`: ``--parallel``
                       games at once on the Numba Go search
                       (:mod:`fuseki.search.go.zeropuct`), ``--batch`` leaves a
                       game per round under virtual loss, every game's leaves in
                       one forward pass; Dirichlet noise, τ = 1 for 30 moves,
                       tree reuse (the loop's self-play, as ``fuseki zero train
                       go`` runs it)
``openspiel_mcts``     ``open_spiel.python.algorithms.mcts.MCTSBot`` (the
                       MCTSBot of OpenSpiel's AlphaZero in Python) on
                       OpenSpiel's ``go`` (9×9, komi 7.5), PUCT child selection
                       (``uct_c`` 1.5), Dirichlet noise, no solver, with an
                       evaluator that calls the network on one position at a
                       time, the planes made from the position's last 8 boards
                       as ours are, and an LRU cache of answers (2^16, as
                       OpenSpiel's own AlphaZero evaluator keeps one) so that a
                       position's prior and value cost one forward pass
=====================  ===========================================================

Each side plays games of ``--moves`` moves from the empty board (ours:
``--parallel`` of them at once; OpenSpiel: as many one after the other), so
both measure the same number of moves from the same part of the game
(``--peer-moves`` caps the peer's for a GPU run with thousands of games at
once: its rate per move does not depend on how many it plays). Moves
per second is moves over wall time; the CPU-time rate is kept too (the
machine may be shared), and the ratio of both. ``--device cuda`` runs our
side's network on the GPU (the peer stays on the CPU: one position at a time
is its design); ``--device cuda`` without a GPU is an error, not a silent CPU
run. ``--precision bf16`` runs both sides' network under bfloat16 autocast.

**Chess** (``--game chess``, issue 20): the same self-play of ``fuseki zero
train chess`` (the Python PUCT, python-chess's moves, AlphaZero's 119 planes
and 4,672 actions, threefold repetition and the 50-move rule ending games)
with a network of the same ``--blocks`` × ``--channels`` (random weights from
``--seed``), the same simulations, games at once, leaves and moves a game
from the start position; and, in the same run, Go at ``--size`` with those
settings, so that the two figures stand side by side on the same machine at
the same moment. There is no peer for chess. The time spent in the forward
passes is kept for both, so the report says what bounds each game.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fuseki.bench import common
from fuseki.bench.common import INSTALL, PeerUnavailable, dist_version, fmt_rate, fmt_ratio, machine_info, ratio

PEERS = ("openspiel_mcts",)
#: The games the bench plays (``--game``).
GAMES = ("go", "chess")
KOMI = 7.5
#: The issue's target: our self-play moves per second over OpenSpiel's MCTSBot's, 9x9.
TARGET_RATIO = 20.0
#: OpenSpiel MCTSBot's PUCT constant (ours is SelfPlayConfig's default, also 1.5).
UCT_C = 1.5
#: Entries of the peer evaluator's answer cache.
CACHE = 1 << 16


@dataclasses.dataclass(frozen=True)
class Config:
    """What to measure."""

    size: int = 9
    simulations: int = 100
    blocks: int = 4
    channels: int = 64
    moves: int = 20  # per game
    parallel: int = 16  # our games at once
    batch: int = 8  # leaves a game per round
    seed: int = 1
    device: str = "cpu"
    root: str = "puct"
    gumbel_m: int = 16
    precision: str = "fp32"
    peers: tuple[str, ...] = PEERS
    #: Moves the peer plays; None: as many as ours (a GPU run with thousands of games at once may cap it).
    peer_moves: int | None = None
    #: ``"go"``: ours beside OpenSpiel's MCTSBot; ``"chess"``: chess self-play beside Go's (see the module notes).
    game: str = "go"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        if self.game == "chess" and self.peers:
            raise ValueError(f"bench zero --game chess has no peer (OpenSpiel's MCTSBot is measured on Go); got {', '.join(self.peers)}")


def make_bench_game(name: str, size: int) -> Any:
    """The game the bench plays: Go at ``size`` (komi 7.5), or chess as ``fuseki zero train chess`` plays it."""
    from fuseki.games import make_game

    if name == "chess":
        # Threefold repetition and the 50-move rule end games, as in the loop's chess self-play.
        return make_game("chess", claim_draws=True)
    return make_game("go", size=size, komi=KOMI)


def build_network(size: int, blocks: int, channels: int, seed: int, game: str = "go") -> Any:
    """The bench's fixed network: the Zero network for ``game`` (Go at ``size``), random weights from ``seed``."""
    import torch

    from fuseki.agents.zero_agent import build_zero_network

    torch.manual_seed(seed)
    return build_zero_network(make_bench_game(game, size), blocks, channels).eval()


# ---- ours ---------------------------------------------------------------------


class _TimedBatcher:
    """Wraps an evaluator's batcher to add up the seconds of its forward passes (the answers come
    back as numpy arrays, so a GPU's work is finished when the call returns)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __call__(self, planes: np.ndarray, masks: np.ndarray) -> Any:
        t = time.perf_counter()
        try:
            return self.inner(planes, masks)
        finally:
            self.seconds += time.perf_counter() - t


def run_fuseki(config: Config, network: Any, game_name: str = "go") -> dict[str, Any]:
    """``parallel`` self-play games of ``moves`` moves of ``game_name``; their counts and rates.

    Go runs on the Numba search; chess on the Python PUCT (its only engine),
    as ``fuseki zero train`` plays each.
    """
    from fuseki.search.evaluators import NetworkEvaluator
    from fuseki.zero.selfplay import SelfPlayConfig, play_games

    game = make_bench_game(game_name, config.size)
    evaluator = NetworkEvaluator(
        game, network, device=config.device, max_batch=max(256, config.parallel * config.batch), precision=config.precision
    )
    sp = SelfPlayConfig(
        simulations=config.simulations,
        parallel=config.parallel,
        leaves_per_game=config.batch,
        max_moves=config.moves,
        root=config.root,
        gumbel_m=config.gumbel_m,
        engine="numba" if game_name == "go" else "python",
    )
    # Warm-up: compile the kernels and let torch pick its convolution code.
    play_games(game, evaluator, 2, dataclasses.replace(sp, parallel=2, max_moves=2, simulations=8), seed=config.seed + 1)
    timed = _TimedBatcher(evaluator.batcher)
    evaluator.batcher = timed  # type: ignore[assignment]  # the same call, timed
    cpu = time.process_time()
    games, stats = play_games(game, evaluator, config.parallel, sp, seed=config.seed)
    cpu = time.process_time() - cpu
    return {
        "game": game_name,
        "moves": stats.moves,
        "games": stats.games,
        "evaluations": stats.evaluations,
        "network_calls": stats.network_calls,
        "seconds": stats.seconds,
        "cpu_seconds": cpu,
        "network_seconds": timed.seconds,
        "network_share": timed.seconds / stats.seconds if stats.seconds > 0 else None,
        "moves_per_s": stats.moves / stats.seconds,
        "evals_per_s": stats.evaluations / stats.seconds,
        "cpu_moves_per_s": stats.moves / cpu if cpu > 0 else None,
        "cpu_evals_per_s": stats.evaluations / cpu if cpu > 0 else None,
        "positions_per_call": stats.evaluations / max(1, stats.network_calls),
    }


# ---- OpenSpiel ----------------------------------------------------------------


def _load_openspiel() -> tuple[Any, Any]:
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except Exception as e:  # noqa: BLE001 - a peer must never end the run
        raise PeerUnavailable(f"OpenSpiel is not importable ({type(e).__name__}); install it: {INSTALL['openspiel']}") from None
    return pyspiel, mcts


class OpenSpielPlanes:
    """AlphaGo Zero's planes of an OpenSpiel Go state, as ``GoGame.planes`` makes them for the same position.

    OpenSpiel numbers points from the bottom row (``a1`` is action 0); ours
    from the top, so rows are flipped. The history planes need the boards of
    the last positions: each position's board is kept under its action
    history the first time it is seen (MCTSBot evaluates a node's parent
    before the node, and every game position is a root first), and rebuilt
    by replaying the actions in the rare case it was not.
    """

    def __init__(self, game: Any, size: int, history: int = 8) -> None:
        self.game = game
        self.size = size
        self.history = history
        self.boards: dict[tuple[int, ...], np.ndarray] = {}

    def board(self, state: Any, key: tuple[int, ...]) -> np.ndarray:
        """int8 ``(size, size)``: 1 black, 2 white, 0 empty, top row first."""
        board = self.boards.get(key)
        if board is None:
            n = self.size
            t = np.asarray(state.observation_tensor(), dtype=np.float32).reshape(-1, n, n)
            board = (t[0] + 2 * t[1]).astype(np.int8)[::-1].copy()
            self.boards[key] = board
        return board

    def planes(self, state: Any) -> np.ndarray:
        n, h = self.size, self.history
        actions = tuple(state.history())
        me = 1 if state.current_player() == 0 else 2
        out = np.zeros((2 * h + 1, n, n), dtype=np.float32)
        for t in range(min(h, len(actions) + 1)):
            key = actions[: len(actions) - t]
            board = self.boards.get(key) if t else None
            if board is None:
                past = state if t == 0 else self._replay(key)
                board = self.board(past, key)
            out[2 * t] = board == me
            out[2 * t + 1] = board == 3 - me
        if me == 1:
            out[-1] = 1.0
        return out

    def _replay(self, actions: tuple[int, ...]) -> Any:
        state = self.game.new_initial_state()
        for a in actions:
            state.apply_action(a)
        return state


def make_openspiel_evaluator(base: Any, batcher: Any, planes: OpenSpielPlanes, size: int) -> Any:
    """An ``mcts.Evaluator`` that asks the network about one position per forward pass (cached by history)."""
    n2 = size * size

    def to_ours(a: int) -> int:  # OpenSpiel action (bottom row first) -> our action (top row first)
        if a == n2:
            return n2
        return (size - 1 - a // size) * size + a % size

    class TorchEvaluator(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.cache: collections.OrderedDict[tuple[int, ...], tuple[list[tuple[int, float]], float]] = collections.OrderedDict()
            self.calls = 0
            self.hits = 0

        def _answer(self, state: Any) -> tuple[list[tuple[int, float]], float]:
            key = tuple(state.history())
            hit = self.cache.get(key)
            if hit is not None:
                self.hits += 1
                self.cache.move_to_end(key)
                return hit
            legal = state.legal_actions()
            mask = np.zeros((1, n2 + 1), dtype=bool)
            ours = [to_ours(a) for a in legal]
            mask[0, ours] = True
            priors, values = batcher(planes.planes(state)[None], mask)
            self.calls += 1
            answer = ([(a, float(priors[0, o])) for a, o in zip(legal, ours, strict=True)], float(values[0]))
            self.cache[key] = answer
            if len(self.cache) > CACHE:
                self.cache.popitem(last=False)
            return answer

        def evaluate(self, state: Any) -> np.ndarray:
            v = self._answer(state)[1]  # for the player to move
            return np.array([v, -v] if state.current_player() == 0 else [-v, v])

        def prior(self, state: Any) -> list[tuple[int, float]]:
            return self._answer(state)[0]

    return TorchEvaluator()


def run_openspiel(config: Config, network: Any, total_moves: int) -> dict[str, Any]:
    """OpenSpiel's MCTSBot in self-play, games of ``config.moves`` moves, until ``total_moves`` moves."""
    pyspiel, mcts = _load_openspiel()
    from fuseki.nets.batcher import Batcher

    if config.size > common.PEER_MAX_SIZE["openspiel"]:
        raise PeerUnavailable(f"OpenSpiel's Go goes up to {common.PEER_MAX_SIZE['openspiel']}x{common.PEER_MAX_SIZE['openspiel']}")
    game = pyspiel.load_game("go", {"board_size": config.size, "komi": KOMI})
    batcher = Batcher(network, device="cpu", max_batch=1, precision=config.precision)
    alpha = 10.0 / (config.size * config.size + 1)
    rng = np.random.RandomState(config.seed)

    def bot(evaluator: Any) -> Any:
        return mcts.MCTSBot(
            game,
            UCT_C,
            config.simulations,
            evaluator,
            solve=False,
            random_state=rng,
            child_selection_fn=mcts.SearchNode.puct_value,
            dirichlet_noise=(0.25, alpha),
        )

    def play(moves: int, evaluator: Any) -> int:
        searcher = bot(evaluator)
        state = game.new_initial_state()
        played = 0
        while played < moves and not state.is_terminal():
            state.apply_action(searcher.step(state))
            played += 1
        return played

    warm = make_openspiel_evaluator(mcts.Evaluator, batcher, OpenSpielPlanes(game, config.size), config.size)
    play(2, warm)
    moves = 0
    games = 0
    calls = hits = 0
    cpu = time.process_time()
    t = time.perf_counter()
    while moves < total_moves:
        # One evaluator (and cache) per game, as OpenSpiel's AlphaZero actors keep one per process.
        evaluator = make_openspiel_evaluator(mcts.Evaluator, batcher, OpenSpielPlanes(game, config.size), config.size)
        moves += play(min(config.moves, total_moves - moves), evaluator)
        games += 1
        calls += evaluator.calls
        hits += evaluator.hits
    wall = time.perf_counter() - t
    cpu = time.process_time() - cpu
    return {
        "moves": moves,
        "games": games,
        "evaluations": calls,
        "cache_hits": hits,
        "seconds": wall,
        "cpu_seconds": cpu,
        "moves_per_s": moves / wall,
        "evals_per_s": calls / wall,
        "cpu_moves_per_s": moves / cpu if cpu > 0 else None,
        "cpu_evals_per_s": calls / cpu if cpu > 0 else None,
        "version": dist_version("open_spiel") or dist_version("open-spiel"),
    }


# ---- the whole run ------------------------------------------------------------------


def run(config: Config, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure what ``config`` asks for; the JSON-ready result."""
    import torch

    from fuseki.util.device import select_device

    device = select_device(config.device)  # --device cuda without a GPU fails here, before any measuring
    torch.set_num_threads(1)
    if config.game == "chess":
        return run_chess(config, str(device), progress)
    network = build_network(config.size, config.blocks, config.channels, config.seed)
    if progress:
        progress(f"fuseki: {config.parallel} games x {config.moves} moves at {config.simulations} simulations on {device}")
    ours = run_fuseki(config, network)
    peers: dict[str, Any] = {}
    notes: dict[str, str] = {}
    if "openspiel_mcts" in config.peers:
        if progress:
            progress(f"openspiel_mcts: {ours['moves']} moves at {config.simulations} simulations, one position per forward pass")
        try:
            total = ours["moves"] if config.peer_moves is None else config.peer_moves
            peers["openspiel_mcts"] = run_openspiel(config, network.to("cpu"), total)
        except PeerUnavailable as e:
            notes["openspiel_mcts"] = str(e)
    else:
        notes["openspiel_mcts"] = "not requested (--no-peers)"
    peer = peers.get("openspiel_mcts")
    peer_rate = peer["moves_per_s"] if peer else None
    result: dict[str, Any] = {
        "size": config.size,
        "game": "go",
        "moves_per_s": ours["moves_per_s"],
        "evals_per_s": ours["evals_per_s"],
        "peers": {"openspiel_mcts": peer_rate},
        "ratio_vs_openspiel": ratio(ours["moves_per_s"], peer_rate),
        "ratio_vs_openspiel_cpu": ratio(ours["cpu_moves_per_s"], peer["cpu_moves_per_s"] if peer else None),
        "fuseki": ours,
        "peer_detail": peers,
        "target": {
            "ratio": TARGET_RATIO,
            "met": None if peer_rate is None else ours["moves_per_s"] >= TARGET_RATIO * peer_rate,
        },
        "settings": {
            **_settings(config, str(device)),
            "uct_c": UCT_C,
            "peer_cache": CACHE,
            "peer_moves": config.peer_moves,
        },
        "peer_notes": notes,
        **_provenance(),
    }
    return result


def _settings(config: Config, device: str) -> dict[str, Any]:
    return {
        "simulations": config.simulations,
        "network": f"dual residual {config.blocks} blocks x {config.channels} filters, random weights (seed {config.seed})",
        "moves_per_game": config.moves,
        "parallel": config.parallel,
        "batch": config.batch,
        "device": device,
        "root": config.root,
        "gumbel_m": config.gumbel_m,
        "precision": config.precision,
        "komi": KOMI,
        "threads": 1,
        "seed": config.seed,
    }


def _provenance() -> dict[str, Any]:
    return {
        "machine": machine_info(),
        "source": common.source_info({"search_modified": "src/fuseki/search", "zero_modified": "src/fuseki/zero"}),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def run_chess(config: Config, device: str, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Chess self-play, then Go's with the same settings in the same run (see the module notes)."""
    if progress:
        progress(f"chess: {config.parallel} games x {config.moves} moves at {config.simulations} simulations on {device}")
    chess = run_fuseki(config, build_network(config.size, config.blocks, config.channels, config.seed, "chess"), "chess")
    if progress:
        progress(f"go {config.size}x{config.size}: the same settings, for the figure beside chess")
    go = run_fuseki(config, build_network(config.size, config.blocks, config.channels, config.seed, "go"), "go")
    return {
        "game": "chess",
        "moves_per_s": chess["moves_per_s"],
        "evals_per_s": chess["evals_per_s"],
        "go": {"size": config.size, "moves_per_s": go["moves_per_s"], "evals_per_s": go["evals_per_s"]},
        "ratio_chess_vs_go": ratio(chess["moves_per_s"], go["moves_per_s"]),
        "ratio_chess_vs_go_cpu": ratio(chess["cpu_moves_per_s"], go["cpu_moves_per_s"]),
        "fuseki": chess,
        "go_detail": go,
        "settings": {**_settings(config, device), "size": config.size, "chess": "ChessGame(claim_draws=True), from the start position"},
        **_provenance(),
    }


def format_report(result: dict[str, Any]) -> str:
    """The result as a readable table (no JSON)."""
    if result.get("game") == "chess":
        return format_chess_report(result)
    s, ours = result["settings"], result["fuseki"]
    lines = [
        f"fuseki bench zero: {result['size']}x{result['size']} self-play, {s['network']}, {s['simulations']} simulations a move, "
        f"{s['moves_per_game']} moves a game, {s['precision']}, one torch thread; ours on {s['device']}, {s['parallel']} games at once, "
        f"{s['batch']} leaves a game per round",
        "",
    ]
    rows = [
        [
            "fuseki (Numba trees, batched)",
            ours["moves"],
            fmt_rate(ours["moves_per_s"]),
            fmt_rate(ours["evals_per_s"]),
            fmt_rate(ours["cpu_moves_per_s"]),
            f"{ours['positions_per_call']:.0f}",
        ],
    ]
    peer = result["peer_detail"].get("openspiel_mcts")
    if peer:
        rows.append(
            [
                "OpenSpiel MCTSBot (one position a pass)",
                peer["moves"],
                fmt_rate(peer["moves_per_s"]),
                fmt_rate(peer["evals_per_s"]),
                fmt_rate(peer["cpu_moves_per_s"]),
                "1",
            ]
        )
    lines += common.format_table(["", "moves", "moves/s", "evals/s", "moves/CPU-s", "positions/pass"], rows, right=[1, 2, 3, 4, 5])
    for name, note in result["peer_notes"].items():
        lines.append(f"{name}: {note}")
    if peer:
        t = result["target"]
        lines.append("")
        lines.append(
            f"ratio: {fmt_ratio(result['ratio_vs_openspiel'])} wall, {fmt_ratio(result['ratio_vs_openspiel_cpu'])} CPU time "
            f"(target {t['ratio']:g}x: {'met' if t['met'] else 'not met'})"
        )
    return "\n".join(lines)


def format_chess_report(result: dict[str, Any]) -> str:
    """A ``--game chess`` result as a readable table: chess and Go side by side."""
    s = result["settings"]
    lines = [
        f"fuseki bench zero --game chess: self-play, {s['network']}, {s['simulations']} simulations a move, "
        f"{s['moves_per_game']} moves a game, {s['precision']}, one torch thread, on {s['device']}, {s['parallel']} games at once, "
        f"{s['batch']} leaves a game per round",
        "",
    ]
    rows = []
    for label, d in (
        ("chess (Python PUCT, python-chess)", result["fuseki"]),
        (f"Go {s['size']}x{s['size']} (Numba trees)", result["go_detail"]),
    ):
        share = d["network_share"]
        rows.append(
            [
                label,
                d["moves"],
                fmt_rate(d["moves_per_s"]),
                fmt_rate(d["evals_per_s"]),
                fmt_rate(d["cpu_moves_per_s"]),
                f"{d['positions_per_call']:.0f}",
                "-" if share is None else f"{100 * share:.0f} %",
            ]
        )
    lines += common.format_table(
        ["", "moves", "moves/s", "evals/s", "moves/CPU-s", "positions/pass", "in the network"], rows, right=[1, 2, 3, 4, 5, 6]
    )
    lines.append("")
    lines.append(f"chess / Go: {fmt_ratio(result['ratio_chess_vs_go'])} wall, {fmt_ratio(result['ratio_chess_vs_go_cpu'])} CPU time")
    return "\n".join(lines)
