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

Games are played many at a time in one process: at each step the positions
that need the SL policy go through it in one forward pass, those that need
the RL policy in another. A policy samples its softmax over the legal moves
that are not its own true eyes (the rollout policy's test) and passes when
none is left; a game ends at two passes, or at three times the board's
points, when it is scored as it stands (area).

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


def _softmax_pick(logits: np.ndarray, candidates: np.ndarray, rng: np.random.Generator) -> int:
    x = logits[candidates].astype(np.float64)
    x = np.exp(x - x.max())
    return int(candidates[int(rng.choice(len(candidates), p=x / x.sum()))])


class _Policies:
    """The two policy networks of a worker, on its device."""

    def __init__(self, sl_path: str, rl_path: str, device: str) -> None:
        from fuseki.agents.agent_file import load_agent_file
        from fuseki.encoders import get_encoder
        from fuseki.util.device import select_device

        self.device = select_device(device)
        self.sl, info = load_agent_file(sl_path)
        self.rl, info_rl = load_agent_file(rl_path)
        if info.board_size != info_rl.board_size or info.encoder != info_rl.encoder:
            raise ValueError("the SL and RL policies must read the same encoder on the same board")
        self.sl.to(self.device).eval()
        self.rl.to(self.device).eval()
        self.size = info.board_size
        self.encoder = get_encoder(info.encoder, self.size)
        self.encoder49 = get_encoder("alphago49", self.size)

    def logits(self, model: Any, planes: np.ndarray) -> np.ndarray:
        import torch

        from fuseki.nets.inference import inference

        with inference(self.device, len(planes)):
            x = torch.from_numpy(planes).to(self.device, dtype=torch.float32)
            return model(x).float().cpu().numpy()


def _candidates(state: Any) -> np.ndarray:
    from fuseki.search.go.rollout_policy import true_eye_points

    n2 = state.size * state.size
    legal = np.asarray([p for p in state.legal_points() if p < n2], dtype=np.int64)
    if len(legal) == 0:
        return legal
    eyes = true_eye_points(state.buffer, legal, 1 if state.next_player.letter == "B" else 2)
    return legal[~eyes]


def play_value_chunk(policies: _Policies, seed: int, games: int, komi: float, rules: str) -> dict[str, Any]:
    """Play ``games`` games side by side; the chunk's arrays and counts."""
    from fuseki.go.rules import Rules
    from fuseki.go.state import GameState, Move

    rng = np.random.default_rng(seed)
    n = policies.size
    area = n * n
    max_moves = 3 * area
    game_rules = Rules.preset(rules).replace(komi=komi)
    states = [GameState.new(n, game_rules) for _ in range(games)]
    sample_at = rng.integers(0, area, size=games)  # U: the random move's number (0-based)
    sample: list[np.ndarray | None] = [None] * games
    sample_black = np.zeros(games, dtype=bool)
    active = list(range(games))
    t0 = time.perf_counter()
    while active:
        sl_idx, rl_idx, moves = [], [], {}
        cands = {}
        for g in active:
            s = states[g]
            c = _candidates(s)
            cands[g] = c
            if len(c) == 0:
                moves[g] = n * n
            elif s.move_number == sample_at[g]:
                moves[g] = int(c[int(rng.integers(len(c)))])
            elif s.move_number < sample_at[g]:
                sl_idx.append(g)
            else:
                rl_idx.append(g)
        for idx, model in ((sl_idx, policies.sl), (rl_idx, policies.rl)):
            if idx:
                planes = np.stack([policies.encoder.encode(states[g]) for g in idx])
                logits = policies.logits(model, planes)
                for row, g in enumerate(idx):
                    moves[g] = _softmax_pick(logits[row], cands[g], rng)
        still = []
        for g in active:
            m = moves[g]
            s = states[g].play(Move.pass_turn() if m == n * n else m)
            states[g] = s
            if s.move_number == sample_at[g] + 1 and not s.is_over():
                sample[g] = policies.encoder49.encode(s)
                sample_black[g] = s.next_player.letter == "B"
            if not s.is_over() and s.move_number < max_moves:
                still.append(g)
        active = still
    feats, z, lengths, us = [], [], [], []
    capped = 0
    for g in range(games):
        s = states[g]
        capped += int(not s.is_over())
        if sample[g] is None:
            continue
        winner = s.score().winner
        black_won = winner is not None and winner.letter == "B"
        won = black_won == bool(sample_black[g])
        feats.append(sample[g])
        z.append(0 if winner is None else (1 if won else -1))
        lengths.append(s.move_number)
        us.append(int(sample_at[g]))
    shape = (0, *policies.encoder49.shape)
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
    np.savez(
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
