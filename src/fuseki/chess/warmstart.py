"""A supervised warm start for chess Zero: positions labelled by Stockfish, and a network trained on them.

AlphaZero learned chess from random play. On two CPU cores that first stretch
(games of random moves, a value that only slowly sees a checkmate) costs most
of the budget, so this module offers a way round it, **which departs from
AlphaZero** (docs/chess-zero.md):

1. :func:`label_games` plays games in which Stockfish (a fixed ``depth``)
   labels every position with its best move and its evaluation. The move
   played is Stockfish's, except for a share ``random_share`` of random legal
   moves (and a balanced opening from :mod:`fuseki.chess.openings` at the
   start) so that the games differ and reach positions Stockfish alone would
   not. Each position is stored with its full 119 planes (the game's history
   is there), the action of the best move, the value of the evaluation
   (:func:`fuseki.chess.scores.cp_to_value`; mate ±1) and the game's result.
   The planes are all 0/1 (the move counts are bit planes), so they are kept
   as packed bits: 952 bytes a position. Chunks of games are written
   atomically to a run folder (``label-0001.npz``, ...), which resumes.
   ``workers`` processes label chunks at once, each chunk with its own
   Stockfish. Game ``i`` depends only on ``(seed, i)`` (its opening and random
   moves are seeded by them, and Stockfish gets ``ucinewgame``, which clears
   its hash, before it) and chunk ``k`` holds games of fixed indices, so the
   chunks are the same bytes whatever ``workers`` is (their zip entries carry
   a fixed date), and ``workers`` is no setting of the folder.
2. :func:`train_warmstart` trains a Zero network (the loop's own
   architecture and loss: value MSE + policy cross-entropy + L2) on those
   labels, the policy target the best move (one-hot) and the value target
   the evaluation blended with the result (``result_weight``), and writes a
   Zero network file, the ``--init`` of ``fuseki zero train chess``.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import random
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np

from fuseki.chess.openings import BUILTIN, load_openings
from fuseki.chess.scores import MAX_CP, cp_to_value
from fuseki.engines.programs import program_exists
from fuseki.games.chess import ChessGame, ChessState
from fuseki.games.chess_encoding import NUM_PLANES, move_index
from fuseki.util.atomic import write_atomic
from fuseki.util.errors import InputError
from fuseki.util.runs import RunFolder, WorkerPool, field_defaults
from fuseki.util.seeds import derive_seed

__all__ = ["LabelSettings", "WarmStartSettings", "label_games", "label_summary", "load_labels", "train_warmstart", "unpack_planes"]

LABEL_SETTINGS = "label.json"
PLANE_BITS = NUM_PLANES * 64
#: The chess game options of a Zero run (``fuseki zero train chess``): a warm-start network names the same.
ZERO_CHESS_OPTIONS = {"claim_draws": True}


@dataclasses.dataclass(frozen=True)
class LabelSettings:
    """How labelled games are played (the folder's ``label.json``); the number of games is not one."""

    depth: int = 8
    random_share: float = 0.15
    openings: str = BUILTIN
    max_plies: int = 300
    games_per_chunk: int = 10
    seed: int = 0
    stockfish: str = "stockfish"
    threads: int = 1
    hash_mb: int = 16

    def __post_init__(self) -> None:
        if self.depth < 1 or self.max_plies < 1 or self.games_per_chunk < 1 or self.threads < 1 or self.hash_mb < 1:
            raise ValueError("depth, max_plies, games_per_chunk, threads and hash_mb must be at least 1")
        if not 0.0 <= self.random_share < 1.0:
            raise ValueError(f"random_share must be in [0, 1), got {self.random_share}")


def _stockfish_argv(command: str) -> list[str]:
    # Imported here: the match module starts engines the same way (shlex, /usr/games).
    from fuseki.chess.match import _argv

    return _argv(command)


def _score_value(score: chess.engine.PovScore, turn: chess.Color) -> tuple[float, int]:
    """(value in [-1, 1], centipawns clipped to ±MAX_CP) for the player ``turn``; a mate is ±1."""
    pov = score.pov(turn)
    mate = pov.mate()
    if mate is not None:
        return (1.0 if mate > 0 else -1.0), (MAX_CP if mate > 0 else -MAX_CP)
    cp = int(pov.score() or 0)
    cp = max(-MAX_CP, min(MAX_CP, cp))
    return cp_to_value(cp), cp


def _chunk_path(folder: Path, k: int) -> Path:
    return folder / f"label-{k:04d}.npz"


def label_games(
    out: str | Path,
    settings: LabelSettings,
    games: int,
    *,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play and label ``games`` games into ``out`` (resuming), ``workers`` chunks at a time; the totals (games, positions).

    ``workers`` processes (``spawn``-ed, :class:`~fuseki.util.runs.WorkerPool`)
    each label one chunk at a time with a Stockfish of their own; 1 labels in
    this process. The chunks do not depend on it (see the module notes).
    """
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    folder = Path(out)
    run = RunFolder(folder, LABEL_SETTINGS, "labels of other settings", "a label settings file", "use another --out or the same settings")
    mine = json.loads(json.dumps(dataclasses.asdict(settings)))
    chunks = math.ceil(games / settings.games_per_chunk)
    with run.locked():
        theirs = run.saved_settings()
        if theirs is not None:
            run.check(theirs, mine, defaults=json.loads(json.dumps(field_defaults(LabelSettings))))
        else:
            run.write({"settings": mine})
        load_openings(settings.openings)  # a bad openings file is refused here, not in a worker
        jobs = []
        for k in range(1, chunks + 1):
            first = (k - 1) * settings.games_per_chunk
            job = _ChunkJob(settings, str(_chunk_path(folder, k)), k, first, min(settings.games_per_chunk, games - first))
            if not _chunk_done(job):
                jobs.append(job)
        if jobs:
            argv = _stockfish_argv(settings.stockfish)
            if not program_exists(argv):
                raise InputError(f"cannot start Stockfish ({settings.stockfish}): {argv[0]} is not a program on PATH")

        def report(done: tuple[int, int, int, float]) -> None:
            k, count, n, seconds = done
            if progress is not None:
                progress(f"chunk {k}/{chunks}: {count} games, {n} positions, {seconds:.1f} s")

        if workers == 1 or len(jobs) < 2:
            for job in jobs:
                report(_label_chunk(job))
        else:
            with WorkerPool(min(workers, len(jobs))) as pool:
                for done in pool.map_unordered(_label_chunk, jobs):
                    report(done)
    return {"games": games, "chunks": chunks, "out": str(folder), **label_summary(folder)}


@dataclasses.dataclass(frozen=True)
class _ChunkJob:
    """Chunk ``k`` of a label run: games ``first .. first + count - 1`` (0-based) into ``path``; picklable for a worker."""

    settings: LabelSettings
    path: str
    k: int
    first: int
    count: int


def _chunk_done(job: _ChunkJob) -> bool:
    """Whether the chunk's file is there with all its games (a smaller last chunk grows when a run asks for more games)."""
    path = Path(job.path)
    if not path.exists():
        return False
    with np.load(path) as data:
        return int(data["games"]) >= job.count


def _label_chunk(job: _ChunkJob) -> tuple[int, int, int, float]:
    """Label the chunk's games with a Stockfish of its own and write the chunk; ``(k, games, positions, seconds)``.

    A Stockfish a chunk (it starts in a fraction of a second) rather than one
    a process: a chunk is then the same whichever process labels it and
    whatever it labelled before.
    """
    started = time.perf_counter()
    openings = load_openings(job.settings.openings)
    engine = _start(job.settings)
    try:
        parts = [_label_game(engine, job.settings, openings, job.first + i) for i in range(job.count)]
    finally:
        engine.quit()
    _write_chunk(Path(job.path), parts, job.count)
    return job.k, job.count, sum(len(p["action"]) for p in parts), time.perf_counter() - started


def _start(settings: LabelSettings) -> chess.engine.SimpleEngine:
    argv = _stockfish_argv(settings.stockfish)
    try:
        engine = chess.engine.SimpleEngine.popen_uci(argv, timeout=60)
        engine.configure({"Threads": settings.threads, "Hash": settings.hash_mb})
    except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as e:
        raise InputError(f"cannot start Stockfish ({settings.stockfish}): {e}") from None
    return engine


def _label_game(engine: chess.engine.SimpleEngine, settings: LabelSettings, openings: list[Any], index: int) -> dict[str, np.ndarray]:
    """One labelled game: packed planes, best-move actions, values, centipawns, FENs and the result per position."""
    rng = random.Random(derive_seed(settings.seed, "game", index))
    game = ChessGame(claim_draws=True)
    opening = openings[rng.randrange(len(openings))]
    state: ChessState = game.initial_state()
    for m in opening.moves:
        state = state.play(m)
    planes, actions, values, cps, fens, movers = [], [], [], [], [], []
    while not state.is_over() and len(planes) < settings.max_plies:
        board = state.board
        info = engine.analyse(board, chess.engine.Limit(depth=settings.depth), game=("label", settings.seed, index))
        pv = info.get("pv") or []
        score = info.get("score")
        if not pv or score is None:
            raise InputError(f"Stockfish gave no move or score for {board.fen()}")
        best = pv[0]
        value, cp = _score_value(score, board.turn)
        planes.append(np.packbits(game.planes(state).astype(bool).reshape(-1)))
        actions.append(move_index(best, board.turn))
        values.append(value)
        cps.append(cp)
        fens.append(board.fen())
        movers.append(0 if board.turn else 1)
        move = rng.choice(state.legal_moves()) if rng.random() < settings.random_share else best
        state = state.play(move)
    winner = state.winner() if state.is_over() else None
    result = np.array([0.0 if winner is None else (1.0 if winner == p else -1.0) for p in movers], dtype=np.float32)
    return {
        "planes": np.array(planes, dtype=np.uint8).reshape(len(planes), -1),
        "action": np.array(actions, dtype=np.int32),
        "value": np.array(values, dtype=np.float32),
        "cp": np.array(cps, dtype=np.int32),
        "fen": np.array(fens, dtype=str),
        "result": result,
    }


def _write_chunk(path: Path, parts: list[dict[str, np.ndarray]], games: int) -> None:
    """``np.savez_compressed``'s file, but with a fixed date on each entry, so that the same labels are the same bytes."""
    arrays = {"games": np.array(games), **{key: np.concatenate([p[key] for p in parts]) for key in parts[0]}}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for key, value in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w", force_zip64=True) as f:  # force_zip64 as numpy's savez (numpy gh-10776)
                np.lib.format.write_array(f, np.asanyarray(value), allow_pickle=False)
    write_atomic(path, buffer.getvalue())


def load_labels(folder: str | Path) -> dict[str, np.ndarray]:
    """Every chunk of a label folder as one set of arrays (``planes`` packed, ``action``, ``value``, ``cp``, ``fen``, ``result``)."""
    folder = Path(folder)
    paths = sorted(folder.glob("label-*.npz"))
    if not paths:
        raise InputError(f"{folder} holds no labelled positions (label-NNNN.npz); make them with `fuseki chess-warmstart label`")
    parts = []
    for p in paths:
        with np.load(p) as data:
            parts.append({k: data[k] for k in ("planes", "action", "value", "cp", "fen", "result")})
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def unpack_planes(packed: np.ndarray) -> np.ndarray:
    """float32 ``(N, 119, 8, 8)`` from packed bits ``(N, 952)``."""
    bits = np.unpackbits(packed, axis=1, count=PLANE_BITS)
    return bits.astype(np.float32).reshape(len(packed), NUM_PLANES, 8, 8)


# ---- training ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class WarmStartSettings:
    """The network and its supervised training."""

    blocks: int = 2
    channels: int = 32
    value_hidden: int = 64
    epochs: int = 4
    batch_size: int = 256
    optimizer: str = "adam"
    lr: float = 1e-3
    momentum: float = 0.9
    weight_decay: float = 1e-4
    #: The value target: ``(1 - w) * eval + w * result``.
    result_weight: float = 0.0
    #: The share of positions (whole chunks' tail) held out to measure move-prediction accuracy.
    holdout: float = 0.05
    seed: int = 0

    def __post_init__(self) -> None:
        if self.blocks < 0 or self.channels < 1 or self.value_hidden < 1 or self.epochs < 1 or self.batch_size < 2:
            raise ValueError("blocks >= 0, channels, value_hidden, epochs >= 1 and batch_size >= 2")
        if self.optimizer not in ("sgd", "adam"):
            raise ValueError(f"optimizer must be sgd or adam, got {self.optimizer!r}")
        if not 0.0 <= self.result_weight <= 1.0 or not 0.0 <= self.holdout < 1.0:
            raise ValueError("result_weight must be in [0, 1] and holdout in [0, 1)")


def train_warmstart(
    labels: str | Path,
    model_out: str | Path,
    settings: WarmStartSettings,
    *,
    device: str = "cpu",
    max_seconds: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train a chess Zero network on the labels of ``labels``; write it to ``model_out``; the per-epoch figures.

    ``max_seconds`` ends the training after the first epoch that ends past it
    (a lent machine's call has a deadline; a network of fewer epochs beats
    none); the summary's ``stopped`` says ``time`` then, else ``epochs``.
    """
    # Imported here: torch loads only when a network is trained.
    import torch
    from torch.nn import functional as F

    from fuseki.agents.zero_agent import build_zero_network, save_zero_network
    from fuseki.util.device import select_device

    data = load_labels(labels)
    n = len(data["action"])
    if n < 4:
        raise InputError(f"{labels} holds only {n} positions: label more games")
    held = int(n * settings.holdout)
    train_rows = np.arange(n - held)
    test_rows = np.arange(n - held, n)
    target_v = ((1.0 - settings.result_weight) * data["value"] + settings.result_weight * data["result"]).astype(np.float32)
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    dev = select_device(device)
    game = ChessGame(**ZERO_CHESS_OPTIONS)
    net = build_zero_network(game, settings.blocks, settings.channels, settings.value_hidden).to(dev)
    if settings.optimizer == "adam":
        opt: torch.optim.Optimizer = torch.optim.Adam(net.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=settings.lr, momentum=settings.momentum, weight_decay=settings.weight_decay)

    def batch(rows: np.ndarray) -> tuple[Any, Any, Any]:
        x = torch.from_numpy(unpack_planes(data["planes"][rows])).to(dev)
        a = torch.from_numpy(data["action"][rows].astype(np.int64)).to(dev)
        v = torch.from_numpy(target_v[rows]).to(dev)
        return x, a, v

    history = []
    started = time.perf_counter()
    stopped = "epochs"
    for epoch in range(1, settings.epochs + 1):
        net.train()
        order = rng.permutation(train_rows)
        sums = np.zeros(3)
        seen = 0
        for i in range(0, len(order), settings.batch_size):
            rows = order[i : i + settings.batch_size]
            if len(rows) < 2:
                continue
            x, a, v = batch(rows)
            logits, value = net(x)
            v_loss = F.mse_loss(value, v)
            p_loss = F.cross_entropy(logits, a)  # = the Zero loss's cross-entropy against a one-hot pi
            loss = v_loss + p_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums += len(rows) * np.array([loss.item(), v_loss.item(), p_loss.item()])
            seen += len(rows)
        entry: dict[str, Any] = {"epoch": epoch, "samples": seen}
        entry.update(dict(zip(("loss", "value_loss", "policy_loss"), (sums / max(seen, 1)).tolist())))
        entry.update(_evaluate(net, batch, test_rows, data, torch, F))
        history.append(entry)
        if progress is not None:
            progress(
                f"epoch {epoch}: loss {entry['loss']:.3f} (value {entry['value_loss']:.3f}, policy {entry['policy_loss']:.3f})"
                + (f"; held-out move accuracy {entry['holdout_accuracy']:.3f} of {len(test_rows)}" if len(test_rows) else "")
            )
        if max_seconds is not None and epoch < settings.epochs and time.perf_counter() - started > max_seconds:
            stopped = "time"
            break
    net.eval()
    summary = {
        "labels": str(labels),
        "positions": n,
        "holdout": int(held),
        "settings": dataclasses.asdict(settings),
        "history": history,
        "seconds": time.perf_counter() - started,
        "device": str(dev),
        "stopped": stopped,
    }
    save_zero_network(
        model_out,
        net,
        game="chess",
        game_options=ZERO_CHESS_OPTIONS,
        blocks=settings.blocks,
        channels=settings.channels,
        value_hidden=settings.value_hidden,
        extra={"generation": 0, "warmstart": {k: v for k, v in summary.items() if k != "history"}, "train": history[-1]},
    )
    return summary


def _evaluate(
    net: Any, batch: Callable[[np.ndarray], Any], rows: np.ndarray, data: dict[str, np.ndarray], torch: Any, F: Any
) -> dict[str, Any]:
    """Held-out figures: the best move's share among the legal moves the network ranks first, and the value error."""
    if len(rows) == 0:
        return {}
    net.eval()
    hits = 0
    sq = 0.0
    with torch.no_grad():
        for i in range(0, len(rows), 512):
            part = rows[i : i + 512]
            x, a, v = batch(part)
            logits, value = net(x)
            logits = logits.cpu().numpy()
            game = ChessGame()
            for k, r in enumerate(part):
                legal = game.legal_actions(ChessState.from_fen(str(data["fen"][r])))
                hits += int(legal[np.argmax(logits[k][legal])] == data["action"][r])
            sq += float(F.mse_loss(value, v, reduction="sum"))
    return {"holdout_accuracy": hits / len(rows), "holdout_value_mse": sq / len(rows), "holdout_positions": int(len(rows))}


def label_summary(folder: str | Path) -> dict[str, Any]:
    """What a label folder holds: positions, their mean |eval| and the share from games that ended decisively."""
    data = load_labels(folder)
    return {
        "positions": int(len(data["action"])),
        "mean_abs_cp": round(float(np.mean(np.abs(data["cp"]))), 1) if len(data["cp"]) else 0.0,
        "decisive_share": round(float(np.mean(data["result"] != 0)), 3) if len(data["result"]) else 0.0,
    }
