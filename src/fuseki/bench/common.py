"""What the benchmarks share: timing in rotating rounds, fresh-process probes, the record, the numbers.

* :func:`measure_rounds`: warm every contender up, then run each once per
  round, the order rotating each round, with a ``gc.collect()`` before every
  timed stint.
* :func:`median_rates`: the median wall-clock and CPU-time rates of those stints.
* :func:`run_probe`: a Python snippet timed in a fresh process (the JIT
  start-up measurements), optionally with its own ``NUMBA_CACHE_DIR``.
* :func:`warm_kernels`: every kernel compiled once before a match's engines start.
* :func:`machine_info`, :func:`source_info`: the machine, the versions and the
  checkout's commit, for the record.
* :func:`ratio`, :func:`fmt_rate`, :func:`fmt_ratio`, :func:`format_table`:
  the numbers and the table of the printed report.

>>> ratio(3.0, 2.0), fmt_ratio(1.5), fmt_ratio(12.0), fmt_rate(1234.5)
(1.5, '1.50x', '12.0x', '1,234')
"""

from __future__ import annotations

import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypeVar

from fuseki import __version__
from fuseki.util.atomic import write_json_atomic

#: How to get a missing peer.
INSTALL = {"openspiel": "pip install open-spiel", "dlgo": "pip install --no-deps dlgo"}

#: The largest board each peer supports.
PEER_MAX_SIZE = {"openspiel": 19, "dlgo": 19}


class PeerUnavailable(Exception):
    """A peer that cannot be measured here; the message is one line for the user."""


class Named(Protocol):
    """A contender as :func:`measure_rounds` sees it: a name and a warm-up."""

    name: str
    warmup: Callable[[], None]


class Rated(Protocol):
    """A timed stint as :func:`median_rates` sees it."""

    @property
    def rate(self) -> float: ...

    @property
    def cpu_rate(self) -> float: ...


class Rates:
    """``rate`` and ``cpu_rate`` of a timed stint: its ``count`` (plies, playouts) per second.

    A mix-in for a dataclass with ``seconds`` (wall clock) and ``cpu_seconds``
    fields that defines ``count``.
    """

    seconds: float
    cpu_seconds: float

    @property
    def count(self) -> int:
        raise NotImplementedError

    @property
    def rate(self) -> float:
        return self.count / self.seconds

    @property
    def cpu_rate(self) -> float:
        return self.count / self.cpu_seconds if self.cpu_seconds > 0 else math.nan


C = TypeVar("C", bound=Named)
S = TypeVar("S")


# ---- timing -------------------------------------------------------------


def measure_rounds(contenders: Sequence[C], repeats: int, run_one: Callable[[C], S],
                   progress: Callable[[str], None] | None = None) -> dict[str, list[S]]:
    """Warm every contender up, then ``run_one`` each once per round, ``repeats`` rounds, the order rotating.

    Round ``r`` starts with contender ``r % len(contenders)``, so that a busy
    moment of a shared machine, or the heap left by the one before, does not
    always hit the same contender.
    """
    for c in contenders:
        if progress:
            progress(f"warming up {c.name}")
        c.warmup()
    stints: dict[str, list[S]] = {c.name: [] for c in contenders}
    for r in range(repeats):
        k = r % len(contenders)
        for c in list(contenders[k:]) + list(contenders[:k]):
            if progress:
                progress(f"round {r + 1}/{repeats}: {c.name}")
            gc.collect()
            stints[c.name].append(run_one(c))
    return stints


def median_rates(stints: Mapping[str, Sequence[Rated]],
                 names: Iterable[str]) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """``(rates, cpu_rates)``: the median wall-clock and CPU-time rate of each name, rounded to 0.1.

    ``None`` for a name with no stints, and for a CPU rate where no stint has one.
    """
    rates: dict[str, float | None] = {}
    cpu_rates: dict[str, float | None] = {}
    for name in names:
        runs = stints.get(name)
        if not runs:
            rates[name] = cpu_rates[name] = None
            continue
        rates[name] = round(statistics.median(s.rate for s in runs), 1)
        cpu = [s.cpu_rate for s in runs if not math.isnan(s.cpu_rate)]
        cpu_rates[name] = round(statistics.median(cpu), 1) if cpu else None
    return rates, cpu_rates


# ---- fresh processes ----------------------------------------------------


def run_probe(snippet: str, args: Sequence[str] = (), cache_dir: str | None = None) -> dict[str, float]:
    """Run ``snippet`` in a fresh Python; its last output line (a JSON object of seconds), rounded to ms.

    ``process_s`` is added: the wall time of the whole process. With
    ``cache_dir``, the process gets it as its ``NUMBA_CACHE_DIR``.
    """
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", snippet, *args], env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the JIT start-up probe failed: {last}")
    phases = json.loads(proc.stdout.strip().splitlines()[-1])
    phases["process_s"] = wall
    return {k: round(v, 3) for k, v in phases.items()}


# ---- the record ---------------------------------------------------------


#: The modules whose import compiles (or loads from the cache) every Numba kernel a match's engine uses.
WARMUP_MODULES = ("fuseki.go.warmup", "fuseki.search.go.warmup")


def warm_kernels(env: Mapping[str, str] | None = None) -> None:
    """Compile (or load) the rules' and the search's kernels once, in a fresh process, before a match.

    The kernel cache is keyed by the kernels' sources, so the first engine
    started after a change compiles them all: a minute or more on a busy
    machine, longer than a match waits for an engine's first answer, and
    every game would be forfeited until the cache is full. ``env`` is the
    environment of the engines that will play (a snapshot's ``PYTHONPATH``
    warms that snapshot's cache); ``None``: this process's.
    """
    for module in WARMUP_MODULES:
        subprocess.run([sys.executable, "-m", module], env=None if env is None else dict(env), check=True,
                       stdout=subprocess.DEVNULL)


def dist_version(dist: str) -> str:
    """The installed version of distribution ``dist``, or ``""``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


def machine_info() -> dict[str, Any]:
    """The machine and the software versions, for the record."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numba
    import numpy

    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "fuseki": __version__,
        "open_spiel": dist_version("open_spiel") or None,
        "dlgo": dist_version("dlgo") or None,
    }


def source_info(watch: Mapping[str, str]) -> dict[str, Any] | None:
    """The git commit of the checkout and, for each ``key: folder`` of ``watch``, whether it has local changes.

    ``{"commit": ..., key: bool, ...}`` (``None`` for a key where git could
    not tell), or ``None`` outside a git checkout. Read-only git calls
    (``GIT_OPTIONAL_LOCKS=0``), so that a benchmark never touches the index
    that other work in the checkout is using.
    """
    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists():
        return None
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")

    def git(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *argv], cwd=root, env=env, check=False, capture_output=True, text=True,
                              timeout=10)

    try:
        head = git("rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    info: dict[str, Any] = {"commit": head.stdout.strip()}
    for key, folder in watch.items():
        try:
            dirty = git("status", "--porcelain", "--untracked-files=no", "--", folder)
            info[key] = bool(dirty.stdout.strip()) if dirty.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            info[key] = None
    return info


def commit_of(tree: Path | str = ".") -> str:
    """The short commit a checkout is at, with ``+`` when tracked files have local changes.

    A result file names the code that made it; ``+`` says that code was not a
    commit, so the figure cannot be reproduced from the hash alone.
    """
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          env=env, check=False)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, env=env, check=False)
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def finish_record(result: dict[str, Any], script: str, argv: Sequence[str] | None, out: Path | None,
                  indent: int | None = None) -> int:
    """Stamp ``result`` with the date and the command that made it, write it to ``out`` atomically, print it.

    Every benchmark script ends this way, so that every figure in the docs
    has a file that says when and how it was measured. ``argv`` is what the
    script's ``main`` was given (``None``: the process's own arguments).
    Returns 0, the script's exit status.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    result = {**result,
              "date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
              "command": " ".join(["python", script, *args])}
    if out is not None:
        write_json_atomic(out, result)
    print(json.dumps(result, indent=indent))
    return 0


# ---- the numbers --------------------------------------------------------


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b`` rounded to 0.001; ``None`` where either is missing or ``b`` is not positive."""
    if a is None or b is None or b <= 0:
        return None
    return round(a / b, 3)


def fmt_rate(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}x" if x < 10 else f"{x:,.1f}x" if x < 1000 else f"{x:,.0f}x"


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]], right: Iterable[int] | None = None) -> list[str]:
    """Header and rows as aligned lines: the columns in ``right`` (default: all but the first) right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    right = set(range(1, len(header)) if right is None else right)

    def fmt(row: Sequence[Any]) -> str:
        return "  ".join(str(v).rjust(w) if i in right else str(v).ljust(w)
                         for i, (v, w) in enumerate(zip(row, widths))).rstrip()

    return [fmt(header), *(fmt(r) for r in rows)]


def busy_contenders(rates: Mapping[str, float | None], cpu_rates: Mapping[str, float | None],
                    names: Iterable[str]) -> list[str]:
    """The names whose wall-clock rate is more than 10% below their CPU-time rate: the machine was busy."""
    return [n for n in names if rates.get(n) and cpu_rates.get(n) and rates[n] < 0.9 * cpu_rates[n]]  # type: ignore[operator]
