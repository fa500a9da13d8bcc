"""The value network's data: one position from each self-play game, with the game's outcome.

AlphaGo (Methods, "Reinforcement learning of value networks") found that
successive positions of one game are so alike that a network trained on
whole games memorises results instead of judging positions (MSE 0.19 on
training positions, 0.37 on test positions, on KGS games). So it drew one
position from each of 30 million self-play games: a time step ``U``
uniform at random, moves ``1 .. U-1`` by the SL policy, move ``U`` uniformly
random among the legal moves, then the RL policy to the end of the game;
the training pair is the position after move ``U`` and the outcome ``z`` (+1
when the player to move there won). We do the same, with ``U`` uniform over
``0 .. size*size - 1`` (9×9 games by these policies last about 80 moves).

Games are played many at a time in one process, on raw board buffers: one
Numba kernel finds every game's candidates and encodes the positions that
need a policy, the SL policy's positions go through it in one forward pass
and the RL policy's through it in another, and a second kernel plays the
moves. A policy samples its softmax over the legal moves that are not its
own true eyes (the rollout policy's test) and passes when none is left; a
game ends at two passes, or at three times the board's points, when it is
scored as it stands (area, every stone alive).

Output: ``chunk_NNNNNN.npz`` files of ``chunk_games`` games each
(``features`` uint8 ``(k, 49, N, N)``, ``z`` int8, the game lengths and
``U``), written atomically; a killed run keeps its finished chunks. Games
that end before move ``U+1`` give no position (``dropped`` in the chunk).
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from fuseki.encoders._features import alphago_planes
from fuseki.go.kernels import (
    BLACK,
    M_N,
    M_PASSES,
    M_TOMOVE,
    OVER_BIT,
    PAD,
    area_score,
    buffer_length,
    legal_points,
    new_board,
    play,
)
from fuseki.go.ladder import LADDER_MAX_NODES
from fuseki.search.go.playouts import true_eye
from fuseki.util.atomic import write_atomic
from fuseki.util.runs import WorkerPool, chunk_count, derive_seed

__all__ = ["ValueDataSettings", "make_value_data", "play_value_chunk", "load_value_data"]


@dataclasses.dataclass(frozen=True)
class ValueDataSettings:
    """What decides the games (not the workers or the device)."""

    sl_policy: str
    rl_policy: str
    games: int
    seed: int = 0
    chunk_games: int = 250
    komi: float = 7.5
    rules: str = "chinese"

    def key(self) -> dict[str, Any]:
        from fuseki.util.atomic import sha256_file

        return {
            "sl_sha256": sha256_file(self.sl_policy),
            "rl_sha256": sha256_file(self.rl_policy),
            "seed": self.seed,
            "chunk_games": self.chunk_games,
            "komi": self.komi,
            "rules": self.rules,
        }


@njit(cache=True)
def _prepare(
    bufs: np.ndarray,
    hist: np.ndarray,
    active: np.ndarray,
    movenum: np.ndarray,
    sample_at: np.ndarray,
    planes: np.ndarray,
    cand: np.ndarray,
    need: np.ndarray,
) -> None:
    """For every active game: its candidates (legal, no true eye of the mover) and who moves.

    ``need[g]``: 0 pass (no candidate), 1 the SL policy (its 48 planes go into
    ``planes[g]``), 2 the RL policy (likewise), 3 a uniformly random candidate.
    """
    for g in range(bufs.shape[0]):
        if not active[g]:
            continue
        buf = bufs[g]
        n = buf[M_N]
        n2 = n * n
        color = buf[M_TOMOVE]
        pts = legal_points(buf)
        k = 0
        for j in range(pts.shape[0] - 1):
            p = pts[j]
            if true_eye(buf, PAD[n, p], color):
                cand[g, p] = False
            else:
                cand[g, p] = True
                k += 1
        if k == 0:
            need[g] = 0
        elif movenum[g] == sample_at[g]:
            need[g] = 3
        else:
            need[g] = 1 if movenum[g] < sample_at[g] else 2
            legal = np.empty(pts.shape[0] - 1, dtype=np.int32)
            for j in range(pts.shape[0] - 1):
                legal[j] = pts[j]
            ages = np.zeros(n2, dtype=np.int32)
            for a in range(7):
                m = hist[g, a]
                if 0 <= m < n2 and ages[m] == 0:
                    ages[m] = a + 1
            alphago_planes(buf, legal, ages, planes[g], False, LADDER_MAX_NODES)


@njit(cache=True)
def _apply(
    bufs: np.ndarray,
    hist: np.ndarray,
    active: np.ndarray,
    movenum: np.ndarray,
    sample_at: np.ndarray,
    moves: np.ndarray,
    max_moves: int,
    sample: np.ndarray,
    sample_color: np.ndarray,
    sampled: np.ndarray,
) -> int:
    """Play ``moves[g]`` in every active game; record the position after move ``U``; returns the games still on."""
    still = 0
    for g in range(bufs.shape[0]):
        if not active[g]:
            continue
        buf = bufs[g]
        n = buf[M_N]
        n2 = n * n
        code = play(buf, moves[g])
        if code < 0:  # cannot happen for a candidate or a pass; end the game rather than loop
            active[g] = False
            continue
        for a in range(7, 0, -1):
            hist[g, a] = hist[g, a - 1]
        hist[g, 0] = moves[g]
        movenum[g] += 1
        over = (code & OVER_BIT) != 0
        if movenum[g] == sample_at[g] + 1 and not over:
            pts = legal_points(buf)
            legal = np.empty(pts.shape[0] - 1, dtype=np.int32)
            for j in range(pts.shape[0] - 1):
                legal[j] = pts[j]
            ages = np.zeros(n2, dtype=np.int32)
            for a in range(7):
                m = hist[g, a]
                if 0 <= m < n2 and ages[m] == 0:
                    ages[m] = a + 1
            alphago_planes(buf, legal, ages, sample[g], True, LADDER_MAX_NODES)
            sample_color[g] = buf[M_TOMOVE]
            sampled[g] = True
        if over or movenum[g] >= max_moves:
            active[g] = False
        else:
            still += 1
    return still


class _Policies:
    """The two policy networks of a worker, on its device."""

    def __init__(self, sl_path: str, rl_path: str, device: str) -> None:
        from fuseki.agents.agent_file import load_agent_file
        from fuseki.util.device import select_device

        self.device = select_device(device)
        self.sl, info = load_agent_file(sl_path)
        self.rl, info_rl = load_agent_file(rl_path)
        if info.board_size != info_rl.board_size or info.encoder != "alphago" or info_rl.encoder != "alphago":
            raise ValueError("the SL and RL policies must read the 48 AlphaGo planes on the same board")
        self.sl.to(self.device).eval()
        self.rl.to(self.device).eval()
        self.size = info.board_size

    def logits(self, model: Any, planes: np.ndarray) -> np.ndarray:
        import torch

        from fuseki.nets.inference import inference

        with inference(self.device, len(planes)):
            x = torch.from_numpy(planes).to(self.device, dtype=torch.float32)
            return model(x).float().cpu().numpy()


def play_value_chunk(policies: _Policies, seed: int, games: int, komi: float, rules: str) -> dict[str, Any]:
    """Play ``games`` games side by side on raw board buffers; the chunk's arrays and counts.

    Ko is the simple ko rule inside these games (the kernels'); a superko
    repetition on 9×9 between two sampling policies is rare and harmless to
    a value label.
    """
    from fuseki.go.rules import Rules

    rng = np.random.default_rng(seed)
    n = policies.size
    area = n * n
    max_moves = 3 * area
    suicide = int(Rules.preset(rules).suicide)
    length = buffer_length(n)
    bufs = np.empty((games, length), dtype=np.int32)
    empty = new_board(n, suicide)
    bufs[:] = empty
    hist = np.full((games, 8), -1, dtype=np.int32)
    active = np.ones(games, dtype=np.bool_)
    movenum = np.zeros(games, dtype=np.int64)
    sample_at = rng.integers(0, area, size=games).astype(np.int64)  # U: the random move's number (0-based)
    planes = np.zeros((games, 48, area), dtype=np.uint8)
    cand = np.zeros((games, area), dtype=np.bool_)
    need = np.zeros(games, dtype=np.int64)
    moves = np.zeros(games, dtype=np.int64)
    sample = np.zeros((games, 49, area), dtype=np.uint8)
    sample_color = np.zeros(games, dtype=np.int64)
    sampled = np.zeros(games, dtype=np.bool_)
    t0 = time.perf_counter()
    still = games
    while still > 0:
        planes[active] = 0
        cand[active] = False
        _prepare(bufs, hist, active, movenum, sample_at, planes, cand, need)
        moves[:] = area
        for kind, model in ((1, policies.sl), (2, policies.rl)):
            idx = np.nonzero(active & (need == kind))[0]
            if len(idx):
                logits = policies.logits(model, planes[idx].reshape(len(idx), 48, n, n))
                # Sampling the softmax over the candidates: the Gumbel-max trick, all rows at once.
                noisy = logits + rng.gumbel(size=logits.shape)
                noisy[~cand[idx]] = -np.inf
                moves[idx] = np.argmax(noisy, axis=1)
        for g in np.nonzero(active & (need == 3))[0]:
            choices = np.nonzero(cand[g])[0]
            moves[g] = int(choices[int(rng.integers(len(choices)))])
        still = _apply(bufs, hist, active, movenum, sample_at, moves, max_moves, sample, sample_color, sampled)
    feats, z, lengths, us = [], [], [], []
    capped = 0
    for g in range(games):
        capped += int(bufs[g, M_PASSES] < 2)
        if not sampled[g]:
            continue
        margin = float(area_score(bufs[g])) - komi
        black_won = margin > 0
        won = black_won == (sample_color[g] == BLACK)
        feats.append(sample[g].reshape(49, n, n))
        z.append(0 if margin == 0 else (1 if won else -1))
        lengths.append(int(movenum[g]))
        us.append(int(sample_at[g]))
    shape = (0, 49, n, n)
    return {
        "features": np.stack(feats).astype(np.uint8) if feats else np.zeros(shape, dtype=np.uint8),
        "z": np.asarray(z, dtype=np.int8),
        "lengths": np.asarray(lengths, dtype=np.int32),
        "u": np.asarray(us, dtype=np.int32),
        "games": games,
        "dropped": games - len(feats),
        "capped": capped,
        "seconds": time.perf_counter() - t0,
    }


def chunk_path(out: Path, index: int) -> Path:
    return out / f"chunk_{index:06d}.npz"


def _write_chunk(path: Path, data: dict[str, Any], key: dict[str, Any], index: int) -> None:
    meta = {"key": key, "index": index, **{k: data[k] for k in ("games", "dropped", "capped", "seconds")}}
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        features=data["features"],
        z=data["z"],
        lengths=data["lengths"],
        u=data["u"],
        meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8),
    )
    write_atomic(path, buf.getvalue())


def _read_meta(path: Path) -> dict[str, Any] | None:
    try:
        with np.load(path) as f:
            return json.loads(bytes(f["meta"]).decode("utf-8"))
    except (OSError, ValueError, KeyError):
        return None


# ---- workers ----------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init(
    sl: str, rl: str, device: str, komi: float, rules: str, out: str, key: dict[str, Any], seed: int, chunk_games: int, total: int
) -> None:
    import torch

    torch.set_num_threads(1)
    _WORKER.update(
        policies=_Policies(sl, rl, device), komi=komi, rules=rules, out=Path(out), key=key, seed=seed, chunk_games=chunk_games, total=total
    )


def _chunk_job(index: int) -> dict[str, Any]:
    w = _WORKER
    games = min(w["chunk_games"], w["total"] - (index - 1) * w["chunk_games"])
    data = play_value_chunk(w["policies"], derive_seed(w["seed"], "value-data", index), games, w["komi"], w["rules"])
    _write_chunk(chunk_path(w["out"], index), data, w["key"], index)
    return {"index": index, **{k: data[k] for k in ("games", "dropped", "capped", "seconds")}}


def make_value_data(
    settings: ValueDataSettings,
    out_dir: str | Path,
    *,
    workers: int = 1,
    device: str = "cpu",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play (or finish) the value games into ``out_dir``; a summary (the caller holds the run folder's lock)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    key = settings.key()
    chunks = chunk_count(settings.games, settings.chunk_games)
    todo = []
    for index in range(1, chunks + 1):
        meta = _read_meta(chunk_path(out, index)) if chunk_path(out, index).exists() else None
        if meta is None or meta.get("key") != key:
            todo.append(index)
    t0 = time.perf_counter()
    initargs = (
        settings.sl_policy,
        settings.rl_policy,
        device,
        settings.komi,
        settings.rules,
        str(out),
        key,
        settings.seed,
        settings.chunk_games,
        settings.games,
    )
    done = chunks - len(todo)
    if todo:
        jobs: Iterator[dict[str, Any]]
        if workers <= 1:
            _init(*initargs)
            jobs = (_chunk_job(i) for i in todo)
            for r in jobs:
                done += 1
                if progress:
                    progress(
                        f"value games: chunk {done}/{chunks} ({r['games']} games, {r['dropped']} without a position, {r['seconds']:.1f} s)"
                    )
        else:
            with WorkerPool(min(workers, len(todo)), _init, initargs) as pool:
                for r in pool.map_unordered(_chunk_job, todo):
                    done += 1
                    if progress:
                        progress(
                            f"value games: chunk {done}/{chunks} ({r['games']} games, {r['dropped']} without "
                            f"a position, {r['seconds']:.1f} s)"
                        )
    positions = 0
    dropped = 0
    capped = 0
    for index in range(1, chunks + 1):
        meta = _read_meta(chunk_path(out, index))
        if meta is None:
            raise RuntimeError(f"value chunk {index} is missing after the run")
        dropped += int(meta["dropped"])
        capped += int(meta["capped"])
        positions += int(meta["games"]) - int(meta["dropped"])
    return {
        "games": settings.games,
        "chunks": chunks,
        "positions": positions,
        "dropped": dropped,
        "capped": capped,
        "seconds_this_run": round(time.perf_counter() - t0, 1),
    }


def load_value_data(out_dir: str | Path, chunks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(features, z, chunk index)`` of chunks 1 to ``chunks``."""
    feats, zs, idx = [], [], []
    for index in range(1, chunks + 1):
        with np.load(chunk_path(Path(out_dir), index)) as f:
            feats.append(f["features"])
            zs.append(f["z"])
            idx.append(np.full(len(f["z"]), index, dtype=np.int32))
    return np.concatenate(feats), np.concatenate(zs), np.concatenate(idx)
