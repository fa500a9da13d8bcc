"""One resumable run folder: settings file, settings check, folder lock, chunk plan, seeds, worker pool.

Six long jobs (``fuseki match``, ``eval``, ``data generate``, ``selfplay``,
``data process``, ``rl-loop``) write their results into a folder, one
numbered file (a game, a chunk, a shard) at a time, and continue a killed run
when the same command is run again. Each used to do the same five things its
own way; they do them here:

- **a settings file** (``match.json``, ``eval.json``, ``recipe.json`` ...)
  that says what the folder holds, written atomically (:class:`RunFolder`);
- **a settings check** when a run finds a folder made before: every setting
  that differs is named, ``key: X there, Y now``, in one
  :class:`RunMismatch` that also says how to go on. A setting that did not
  exist when an old folder was written stands for its default, or for the
  value the old behaviour had (a settings class's ``LEGACY``), so old
  folders still resume (:func:`settings_diffs`, :func:`field_defaults`);
- **a folder lock** (the ``filelock`` package): a second run on the same
  folder stops at once with :class:`RunFolderBusy` instead of writing the
  same files as the first. The lock is the operating system's (``flock``),
  so it dies with its process: a run killed with ``kill -9`` leaves no lock
  that blocks the next one;
- **a chunk plan** (:class:`ChunkPlan`): which numbered items are done (their
  file is there and finished) and which are still to do;
- **seeds**: every random choice of item ``n`` derives from the run's seed by
  :func:`derive_seed`, so an item is the same whichever worker makes it and
  however often the run was resumed;
- **a worker pool** (:class:`WorkerPool`): ``spawn``-ed processes (safe with
  threads, torch and on every platform) that end when their parent dies
  (:func:`~fuseki.util.workers.exit_with_parent`).

>>> settings_diffs({"size": 9, "komi": 6.5}, {"size": 9, "komi": 7.5, "clock": False}, defaults={"clock": True})
['komi: 6.5 there, 7.5 now', 'clock: True there, False now']
>>> ChunkPlan.scan(range(1, 5), lambda n: "old" if n % 2 else None).todo
[2, 4]
>>> chunk_items(3, 4, 10), chunk_count(10, 4)
([9, 10], 3)
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import json
import multiprocessing
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import filelock

from fuseki.util.atomic import write_json_atomic
from fuseki.util.errors import FusekiError
from fuseki.util.seeds import derive_seed
from fuseki.util.workers import exit_with_parent

__all__ = [
    "LOCK_FILE",
    "ChunkPlan",
    "RunFolder",
    "RunFolderBusy",
    "RunMismatch",
    "WorkerPool",
    "chunk_count",
    "chunk_items",
    "derive_seed",
    "field_defaults",
    "settings_diffs",
]

#: The lock file in every run folder (empty; what counts is the OS lock on it, not its presence).
LOCK_FILE = ".fuseki.lock"

T = TypeVar("T")
R = TypeVar("R")


class RunMismatch(FusekiError, ValueError):
    """The folder holds a run made with other settings (or no readable settings file): resuming would mix two runs."""


class RunFolderBusy(FusekiError, OSError):
    """Another run (another process, or another thread of this one) is writing to the folder now."""


# ---- settings ------------------------------------------------------------------------


def field_defaults(cls: type) -> dict[str, Any]:
    """What a setting missing from an old settings file stands for: the dataclass's defaults, then ``cls.LEGACY``.

    ``LEGACY`` names the settings whose old behaviour differs from today's
    default (``{"clock": True}``: runs made before ``clock`` existed sent a
    clock), so that an old folder still resumes with the same settings.
    """
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory()
    defaults.update(getattr(cls, "LEGACY", {}))
    return defaults


def settings_diffs(
    theirs: Mapping[str, Any],
    mine: Mapping[str, Any],
    *,
    defaults: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    hidden: Collection[str] = (),
) -> list[str]:
    """``"key: X there, Y now"`` for every setting of a saved run (``theirs``) that differs from this run's (``mine``).

    A key of ``mine`` missing from ``theirs`` (a file written before the
    setting existed) stands for ``defaults[key]`` (see :func:`field_defaults`),
    else ``None``. A key only ``theirs`` has is ``"key: X there, not set
    now"``. ``labels`` names a key in the text instead of the key itself; the
    keys in ``hidden`` show only their label, not their values (a checksum
    says nothing to a reader).

    >>> settings_diffs({"sha": "ab12"}, {"sha": "cd34"}, labels={"sha": "the games differ"}, hidden={"sha"})
    ['the games differ']
    """
    defaults = defaults or {}
    labels = labels or {}

    def line(key: str, there: str, now: str) -> str:
        label = labels.get(key, key)
        return label if key in hidden else f"{label}: {there} there, {now} now"

    diffs = []
    for key, value in mine.items():
        there = theirs[key] if key in theirs else defaults.get(key)
        if there != value:
            diffs.append(line(key, repr(there), repr(value)))
    diffs += [line(key, repr(theirs[key]), "not set") for key in theirs if key not in mine]
    return diffs


# ---- the folder ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunFolder:
    """A job's output folder: its settings file, the check against it, and its lock.

    The words fill the messages: ``holds`` what a folder of other settings
    holds (``"a match with other settings"``), ``file_kind`` what the
    settings file is (``"a match settings file"``), ``hint`` how to go on
    (``"use another --sgf-dir or the same settings"``; by default the
    ``--out`` form, which most jobs use).

    >>> import tempfile
    >>> run = RunFolder(Path(tempfile.mkdtemp()) / "run", "run.json", "a run with other settings",
    ...                 "a run settings file", "use another --out or the same settings")
    >>> with run.locked():
    ...     run.write({"settings": {"seed": 1}})
    ...     try:
    ...         run.check(run.saved_settings() or {}, {"seed": 2})
    ...     except RunMismatch as e:
    ...         print(str(e).split(" holds ")[1])
    a run with other settings (seed: 1 there, 2 now); use another --out or the same settings
    """

    path: Path
    settings_file: str
    holds: str
    file_kind: str
    #: Most jobs take their folder as ``--out``; the others say their own flag.
    hint: str = "use another --out or the same settings"

    @property
    def settings_path(self) -> Path:
        return self.path / self.settings_file

    @property
    def lock_path(self) -> Path:
        return self.path / LOCK_FILE

    @contextlib.contextmanager
    def locked(self) -> Iterator[RunFolder]:
        """Create the folder and hold its lock while the block runs; :class:`RunFolderBusy` if another run holds it.

        Refuses at once (no waiting): a run that waited for another to finish
        would then redo or mix its work. The lock is an ``flock`` on
        :data:`LOCK_FILE`, held by this process's open file: it is gone when
        the process is, however it ended.
        """
        if self.path.exists() and not self.path.is_dir():
            raise RunMismatch(f"{self.path} exists and is not a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(self.lock_path, timeout=0)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise RunFolderBusy(
                f"{self.path} is in use by another run (it holds {self.lock_path}); "
                "wait for that run to end, or use another folder"
            ) from None
        try:
            yield self
        finally:
            lock.release()

    def read(self) -> dict[str, Any] | None:
        """The settings file's JSON object; ``None`` when there is none; :class:`RunMismatch` when it is not one."""
        path = self.settings_path
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
        except (OSError, ValueError, TypeError) as e:
            raise RunMismatch(f"{path} is not {self.file_kind} ({e})") from None
        return data

    def saved_settings(self, key: str = "settings") -> dict[str, Any] | None:
        """The ``key`` object of the settings file (``None`` without a file); :class:`RunMismatch` if it is not one."""
        data = self.read()
        if data is None:
            return None
        theirs = data.get(key)
        if not isinstance(theirs, dict):
            raise RunMismatch(f"{self.settings_path} is not {self.file_kind} ({key!r} is not an object)")
        return theirs

    def check(
        self,
        theirs: Mapping[str, Any],
        mine: Mapping[str, Any],
        *,
        defaults: Mapping[str, Any] | None = None,
        labels: Mapping[str, str] | None = None,
        hidden: Collection[str] = (),
        holds: str | None = None,
    ) -> None:
        """Raise :class:`RunMismatch`, naming every differing setting, unless ``theirs`` and ``mine`` agree.

        ``defaults``, ``labels`` and ``hidden`` as in :func:`settings_diffs`;
        ``holds`` replaces the folder's words for what it holds.
        """
        diffs = settings_diffs(theirs, mine, defaults=defaults, labels=labels, hidden=hidden)
        if diffs:
            raise RunMismatch(f"{self.path} holds {holds or self.holds} ({'; '.join(diffs)}); {self.hint}")

    def write(self, data: Mapping[str, Any]) -> None:
        """Write the settings file atomically (indented, keys sorted)."""
        write_json_atomic(self.settings_path, dict(data))


# ---- the plan ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ChunkPlan(Generic[T]):
    """Numbered items of a run: those done (what their file says) and those still to do, in order."""

    done: dict[int, T]
    todo: list[int]

    @classmethod
    def scan(cls, numbers: Iterable[int], finished: Callable[[int], T | None]) -> ChunkPlan[T]:
        """``finished(n)``: item ``n`` as an earlier run left it, or ``None`` if it is missing, broken or unfinished."""
        done: dict[int, T] = {}
        todo: list[int] = []
        for number in numbers:
            old = finished(number)
            if old is None:
                todo.append(number)
            else:
                done[number] = old
        return cls(done, todo)


def chunk_count(items: int, chunk_size: int) -> int:
    """How many chunks of ``chunk_size`` hold ``items`` items (the last may be smaller)."""
    return -(-items // chunk_size)


def chunk_items(index: int, chunk_size: int, items: int) -> list[int]:
    """The 1-based item numbers of chunk ``index`` (1-based) of ``items`` items in chunks of ``chunk_size``."""
    first = (index - 1) * chunk_size + 1
    return list(range(first, min(index * chunk_size, items) + 1))


# ---- workers -------------------------------------------------------------------------------


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    exit_with_parent()
    if initializer is not None:
        initializer(*initargs)


class WorkerPool:
    """``workers`` spawned processes that end with their parent; :meth:`map_unordered` runs a job's items on them.

    ``spawn`` (not ``fork``): a worker starts clean, without the parent's
    threads, locks and torch state, and the same on every platform.
    ``initializer(*initargs)`` runs once in each worker (to load agents,
    start engines). Leaving the ``with`` block by an exception (a
    ``KeyboardInterrupt``, a failed item) ends the workers at once: what
    they finished is on disk, and the next run goes on from there.
    """

    def __init__(
        self, workers: int, initializer: Callable[..., Any] | None = None, initargs: Iterable[Any] = ()
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._executor = cf.ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(initializer, tuple(initargs)),
        )

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self._executor.shutdown(wait=True)
        else:
            self.terminate()

    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T], *, window: int | None = None) -> Iterator[R]:
        """``fn(item)`` for every item, in the workers; results as they finish.

        At most ``window`` items (default: two per worker) are handed out at a
        time, so a job whose items are big (a shard's games) keeps only a few
        in memory. An item that raises ends the iteration with its exception.
        """
        limit = window if window is not None else 2 * self.workers
        source = iter(items)
        pending: set[cf.Future[R]] = set()

        def fill() -> None:
            while len(pending) < limit:
                try:
                    item = next(source)
                except StopIteration:
                    return
                pending.add(self._executor.submit(fn, item))

        fill()
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                pending.discard(future)
                yield future.result()
            fill()

    def terminate(self) -> None:
        """End every worker now (no waiting for items in progress) and drop the items not started."""
        # Python 3.14 has ProcessPoolExecutor.terminate_workers; before it, the processes are only in _processes.
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
