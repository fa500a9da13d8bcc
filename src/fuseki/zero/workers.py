"""Where a Zero run's self-play and training run: in this process, in local worker processes, or on Ray actors.

Each generation's self-play games are numbered, and every random choice of
game ``i`` derives from the generation's seed and ``i``
(:func:`fuseki.zero.selfplay.play_games`). So the games can be split into
contiguous slices (:func:`split_games`), each slice played by its own
worker with its own batch of games, and the set of games is the same
whatever the number of workers: a worker needs only the network, the
settings, the seed and its slice (a :class:`SelfPlayTask`).

- :class:`LocalRunner`: ``workers`` = 1 plays in this process; more start
  spawned processes (:class:`fuseki.util.runs.WorkerPool`) that live for the
  whole run and end with it, each with one torch thread.
- :class:`RayRunner`: the same slices on Ray actors, one per worker, and the
  learner as an actor too, so that a run can use the machines of a Ray
  cluster (``--ray ADDRESS``). Ray is an optional extra (``pip install -e
  .[ray]``) imported only here, inside the runner.

Workers get the network file's *bytes*, never its path: a Ray actor may run
on a machine that does not see the run folder. Results come back to the
loop, which alone writes the run folder.

The learner (:func:`learn`) is a pure function of the previous network, the
optimiser state it left, the samples and a seed, so it too gives the same
weights wherever it runs (torch on one thread).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import torch

from fuseki.agents.zero_agent import zero_network_from_bytes
from fuseki.search.evaluators import NetworkEvaluator
from fuseki.util.device import select_device
from fuseki.util.errors import FusekiError
from fuseki.util.runs import WorkerPool
from fuseki.zero.learner import LearnerConfig, make_optimizer, optimizer_from_bytes, optimizer_to_bytes, train_network
from fuseki.zero.selfplay import SelfPlayConfig, SelfPlayGame, SelfPlayStats, capped_judge, play_games

__all__ = [
    "LearnResult",
    "LocalRunner",
    "RayRunner",
    "Runner",
    "RayUnavailable",
    "SelfPlayTask",
    "learn",
    "make_runner",
    "merge_stats",
    "play_task",
    "split_games",
]


class RayUnavailable(FusekiError):
    """``--ray`` was asked for, and Ray is not installed or its cluster cannot be reached."""


@dataclasses.dataclass(frozen=True)
class SelfPlayTask:
    """One worker's share of a generation's self-play: games ``first .. first + count - 1`` of the run seeded ``seed``."""

    network: bytes  #: the Zero network file's bytes
    config: SelfPlayConfig
    seed: int
    first: int
    count: int
    device: str = "cpu"
    precision: str = "fp32"  #: the self-play network's number format (fuseki.nets.batcher)


@dataclasses.dataclass(frozen=True)
class LearnResult:
    """What one generation's training returns: the weights, the optimiser state they leave, the loss per epoch."""

    tensors: dict[str, torch.Tensor]
    optimizer: bytes
    history: list[dict[str, Any]]


def split_games(games: int, workers: int) -> list[tuple[int, int]]:
    """``(first, count)`` of each worker's contiguous slice of games ``0 .. games - 1`` (no empty slice).

    >>> split_games(10, 3)
    [(0, 4), (4, 3), (7, 3)]
    >>> split_games(2, 4)
    [(0, 1), (1, 1)]
    """
    parts = max(1, min(workers, games))
    base, extra = divmod(games, parts)
    out, first = [], 0
    for k in range(parts):
        count = base + (1 if k < extra else 0)
        out.append((first, count))
        first += count
    return out


def play_task(task: SelfPlayTask) -> tuple[list[SelfPlayGame], SelfPlayStats]:
    """Play one slice of self-play (in whichever process or actor runs it)."""
    network, game, _ = zero_network_from_bytes(task.network)
    evaluator = NetworkEvaluator(game, network, device=task.device, max_batch=1024, precision=task.precision)
    return play_games(game, evaluator, task.count, task.config, seed=task.seed, first=task.first, judge=capped_judge(game))


def learn(
    network: bytes,
    optimizer: bytes | None,
    planes: np.ndarray,
    pi: np.ndarray,
    z: np.ndarray,
    config: LearnerConfig,
    seed: int,
) -> LearnResult:
    """Train the network of ``network`` (a file's bytes) on the samples, from the optimiser state ``optimizer``."""
    net, game, _ = zero_network_from_bytes(network)
    net.to(select_device(config.device))
    opt = make_optimizer(net, config)
    if optimizer is not None:
        optimizer_from_bytes(opt, optimizer)
    history = train_network(net, game, planes, pi, z, config, seed=seed, optimizer=opt)
    tensors = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    return LearnResult(tensors, optimizer_to_bytes(opt), history)


def merge_stats(parts: Sequence[SelfPlayStats], seconds: float) -> SelfPlayStats:
    """The counts of several slices added up; ``seconds`` is the wall time of them all."""
    total = SelfPlayStats()
    for p in parts:
        for f in dataclasses.fields(SelfPlayStats):
            if f.name in ("seconds", "wins"):
                continue
            setattr(total, f.name, getattr(total, f.name) + getattr(p, f.name))
        total.wins = (total.wins[0] + p.wins[0], total.wins[1] + p.wins[1])
    total.resign_records.sort(key=lambda r: int(r[0]))  # by game, whatever the slicing
    total.seconds = seconds
    return total


def _join(results: Sequence[tuple[list[SelfPlayGame], SelfPlayStats]], started: float) -> tuple[list[SelfPlayGame], SelfPlayStats]:
    games = sorted((g for part, _ in results for g in part), key=lambda g: g.index)
    return games, merge_stats([s for _, s in results], time.perf_counter() - started)


class Runner(Protocol):
    """Plays a generation's self-play and trains its network, somewhere."""

    workers: int
    precision: str  #: the self-play network's number format as asked ("auto" left to each worker's machine)

    def selfplay(self, network: bytes, games: int, config: SelfPlayConfig, seed: int) -> tuple[list[SelfPlayGame], SelfPlayStats]: ...

    def train(
        self, network: bytes, optimizer: bytes | None, planes: np.ndarray, pi: np.ndarray, z: np.ndarray, config: LearnerConfig, seed: int
    ) -> LearnResult: ...

    def close(self) -> None: ...


def _one_thread(threads: int) -> None:
    """A worker's start: its own torch threads (one by default: the workers share the machine's cores)."""
    torch.set_num_threads(threads)


class LocalRunner:
    """Self-play in this process (``workers`` = 1) or in ``workers`` spawned processes; training here."""

    def __init__(self, workers: int = 1, *, device: str = "cpu", threads: int = 1, precision: str = "fp32") -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.device = device
        self.precision = precision
        self._pool: WorkerPool | None = WorkerPool(workers, _one_thread, (threads,)) if workers > 1 else None

    def selfplay(self, network: bytes, games: int, config: SelfPlayConfig, seed: int) -> tuple[list[SelfPlayGame], SelfPlayStats]:
        started = time.perf_counter()
        tasks = [
            SelfPlayTask(network, config, seed, first, count, self.device, self.precision)
            for first, count in split_games(games, self.workers)
        ]
        if self._pool is None:
            return _join([play_task(t) for t in tasks], started)
        return _join(list(self._pool.map_unordered(play_task, tasks, window=len(tasks))), started)

    def train(
        self, network: bytes, optimizer: bytes | None, planes: np.ndarray, pi: np.ndarray, z: np.ndarray, config: LearnerConfig, seed: int
    ) -> LearnResult:
        return learn(network, optimizer, planes, pi, z, config, seed)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None


class RayRunner:
    """The same self-play slices on ``workers`` Ray actors, and the learner on one more.

    ``address``: ``"auto"`` joins the running cluster (``ray start --head``
    on this machine, or ``RAY_ADDRESS``); ``"local"`` starts a Ray instance
    inside this process with ``workers`` CPUs; anything else is a cluster's
    address (``ray://host:10001`` or ``host:6379``). When Ray is already
    initialised in this process (a test, a notebook) that session is used.
    Each self-play actor holds one CPU of the cluster; the learner holds none
    (it runs between self-play phases, when the self-play actors are idle)
    and a GPU when ``device`` is ``cuda``.
    """

    def __init__(self, address: str, workers: int = 1, *, device: str = "cpu", threads: int = 1, precision: str = "fp32") -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        try:
            # Imported here: Ray is an optional extra, needed only on this path.
            import ray
        except ImportError:
            raise RayUnavailable("--ray needs the Ray package: pip install -e '.[ray]' (or pip install 'ray[default]')") from None
        self._ray = ray
        self.workers = workers
        self.device = device
        self.precision = precision
        self._owns = False
        if not ray.is_initialized():
            # The actors import fuseki as the cluster's nodes have it: a local instance's workers inherit this
            # process's environment (PYTHONPATH included); a cluster's nodes need fuseki installed.
            try:
                if address == "local":
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
                else:
                    ray.init(address=address, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise RayUnavailable(
                    f"cannot join a Ray cluster at {address!r} ({first}); start one with `ray start --head`, or use --ray local"
                ) from None
            self._owns = True
        cpus = float(ray.cluster_resources().get("CPU", 0))
        if cpus < workers:
            self.close()
            raise RayUnavailable(f"the Ray cluster has {cpus:g} CPUs, fewer than the {workers} self-play workers asked for")
        gpu = 1 if select_device(device).type == "cuda" else 0
        selfplay_actor = ray.remote(num_cpus=1, num_gpus=gpu / max(1, workers) if gpu else 0)(_SelfPlayActor)
        learner_actor = ray.remote(num_cpus=0, num_gpus=gpu)(_LearnerActor)
        self._actors = [selfplay_actor.remote(threads) for _ in range(workers)]
        self._learner = learner_actor.remote(threads)

    def selfplay(self, network: bytes, games: int, config: SelfPlayConfig, seed: int) -> tuple[list[SelfPlayGame], SelfPlayStats]:
        started = time.perf_counter()
        ray = self._ray
        ref = ray.put(network)
        futures = [
            actor.play.remote(ref, config, seed, first, count, self.device, self.precision)
            for actor, (first, count) in zip(self._actors, split_games(games, self.workers), strict=False)
        ]
        return _join(ray.get(futures), started)

    def train(
        self, network: bytes, optimizer: bytes | None, planes: np.ndarray, pi: np.ndarray, z: np.ndarray, config: LearnerConfig, seed: int
    ) -> LearnResult:
        result: LearnResult = self._ray.get(self._learner.learn.remote(network, optimizer, planes, pi, z, config, seed))
        return result

    def close(self) -> None:
        ray = self._ray
        for actor in [*getattr(self, "_actors", []), *([self._learner] if hasattr(self, "_learner") else [])]:
            ray.kill(actor)
        self._actors = []
        if hasattr(self, "_learner"):
            del self._learner
        if self._owns:
            ray.shutdown()
            self._owns = False


class _SelfPlayActor:
    """A Ray self-play worker: one torch thread, slices of games on demand."""

    def __init__(self, threads: int) -> None:
        _one_thread(threads)

    def play(self, network: bytes, config: SelfPlayConfig, seed: int, first: int, count: int, device: str, precision: str) -> Any:
        return play_task(SelfPlayTask(network, config, seed, first, count, device, precision))


class _LearnerActor:
    """The Ray learner: one generation's training on demand (:func:`learn`)."""

    def __init__(self, threads: int) -> None:
        _one_thread(threads)

    def learn(self, *args: Any) -> LearnResult:
        return learn(*args)


def make_runner(
    workers: int = 1, ray: str | None = None, *, device: str = "cpu", threads: int = 1, precision: str = "fp32"
) -> LocalRunner | RayRunner:
    """A :class:`RayRunner` when ``ray`` names a cluster, else a :class:`LocalRunner`."""
    if ray is not None:
        return RayRunner(ray, workers, device=device, threads=threads, precision=precision)
    return LocalRunner(workers, device=device, threads=threads, precision=precision)
