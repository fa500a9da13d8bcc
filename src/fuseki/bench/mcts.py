"""How fast is our Go MCTS? Playouts per second from the empty board, one core, dlgo beside it.

Each contender searches the empty board (komi 7.5) with a fresh engine, once
per round; playouts per second is the playouts of that search over its wall
time (the CPU-time rate is kept too: the machines this runs on are shared).

=================  ==========================================================
``default``        ``GoMCTS(MCTSConfig(seed=S))``: the strong engine, heavy
                   playouts (captures, ataris, 3x3 patterns), priors, RAVE
``light``          ``MCTSConfig(policy="light")``: the book's light playout
                   (random, never fills its own eye), with priors and RAVE
``book``           ``MCTSConfig.book()``: the book's plain UCT (c = 1.5),
                   light playouts, no priors, no RAVE, expansion at the first
                   visit
``dlgo``           the book's own code: ``dlgo.mcts.mcts.MCTSAgent(rounds,
                   1.5).select_move()`` on ``dlgo.goboard_fast`` (pure
                   Python); a fixed number of rounds, timed
=================  ==========================================================

Our searches run for ``seconds`` each (``search(state, seconds=...)``, a
fresh :class:`~fuseki.search.go.gomcts.GoMCTS` every time, so no tree is reused).
dlgo runs about a hundred times slower, so it gets a fixed number of rounds
instead of a time budget. Every contender is warmed up first (JIT compile, a
short search). With several repeats the contenders take turns, the order
rotating each round, and the median rate is reported.

dlgo's ``dlgo/agent/__init__.py`` imports its Keras agents (``h5py``,
``keras``), which a ``--no-deps`` install lacks. ``MCTSAgent`` itself needs
only ``dlgo.agent.base.Agent`` and ``dlgo.agent.naive_fast.FastRandomBot``
(pure Python), so when the plain import fails on that, :func:`load_dlgo_mcts`
imports those two modules from dlgo's files, unchanged, without running the
package ``__init__``; the result's ``peer_notes`` says so. Nothing is stubbed.

>>> info = time_search("book", 5, 1, 0.05)
>>> info.playouts > 0 and info.seconds > 0
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import importlib
import io
import random
import sys
import tempfile
import textwrap
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fuseki.bench import common
from fuseki.bench.common import (INSTALL, PEER_MAX_SIZE, PeerUnavailable, dist_version, fmt_rate, fmt_ratio,
                                 machine_info, ratio)
from fuseki.go import GameState
from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

CONFIGS = ("default", "light", "book")
PEERS = ("dlgo",)
CONTENDERS = CONFIGS + PEERS

#: The number the issue asks for: playouts per second of the default engine, one core, 9x9.
TARGET_9X9 = 20_000.0

#: dlgo's UCT constant (``temperature``); the same c as ``MCTSConfig.book()``.
DLGO_TEMPERATURE = 1.5

KOMI = 7.5

LABELS = {
    "default": "fuseki MCTS (default: heavy, priors, RAVE)",
    "light": "fuseki MCTS (light playout, priors, RAVE)",
    "book": "fuseki MCTS (book: UCT c=1.5, light)",
    "dlgo": "dlgo MCTSAgent",
}

WHAT = {
    "default": "GoMCTS(MCTSConfig(seed)): heavy playouts (captures, ataris, 3x3 patterns), priors, RAVE",
    "light": "GoMCTS(MCTSConfig(policy='light', seed)): the book's random no-own-eye playout, priors, RAVE",
    "book": "GoMCTS(MCTSConfig.book(seed)): plain UCT c=1.5, light playouts, no priors, no RAVE, expand at first visit",
    "dlgo": (f"dlgo.mcts.mcts.MCTSAgent(rounds, temperature={DLGO_TEMPERATURE}).select_move() on "
             "dlgo.goboard_fast.GameState.new_game(size); playouts by FastRandomBot (no own-eye fill); komi 7.5"),
}


@dataclasses.dataclass(frozen=True)
class Config:
    """What to measure and for how long."""

    size: int = 9
    seconds: float = 3.0  # per configuration and round
    repeats: int = 1
    seed: int = 1
    rounds: int = 300  # dlgo's MCTS rounds per round of the benchmark
    peers: tuple[str, ...] = PEERS
    jit: bool = False
    jit_cold: bool = False


def engine_config(name: str, seed: int) -> MCTSConfig:
    """The :class:`MCTSConfig` of one of our configurations."""
    if name == "default":
        return MCTSConfig(seed=seed)
    if name == "light":
        return MCTSConfig(policy="light", seed=seed)
    if name == "book":
        return MCTSConfig.book(seed=seed)
    raise ValueError(f"unknown configuration {name!r}")


@dataclasses.dataclass
class Stint(common.Rates):
    """One timed search."""

    playouts: int
    seconds: float  # wall clock
    cpu_seconds: float
    tree_nodes: int | None = None

    @property
    def count(self) -> int:
        return self.playouts


@dataclasses.dataclass
class Contender:
    name: str
    run: Callable[[], Stint]
    warmup: Callable[[], None]
    version: str = ""


# ---- ours ---------------------------------------------------------------


def time_search(name: str, size: int, seed: int, seconds: float) -> Any:
    """One search of the empty board with a fresh engine; the engine's :class:`SearchInfo`."""
    engine = GoMCTS(engine_config(name, seed))
    return engine.search(GameState.new(size, komi=KOMI), seconds=seconds)


def fuseki_contender(name: str, size: int, seed: int, seconds: float) -> Contender:
    state = GameState.new(size, komi=KOMI)

    def run() -> Stint:
        engine = GoMCTS(engine_config(name, seed))  # fresh: no tree from an earlier search
        cpu = time.process_time()
        t = time.perf_counter()
        info = engine.search(state, seconds=seconds)
        wall = time.perf_counter() - t
        return Stint(info.playouts, wall, time.process_time() - cpu, info.tree_nodes)

    def warmup() -> None:
        GoMCTS(engine_config(name, seed)).search(state, playouts=256)

    return Contender(name, run, warmup)


# ---- dlgo ---------------------------------------------------------------


_DLGO: tuple[types.ModuleType, types.ModuleType, str | None] | None = None


def load_dlgo_mcts() -> tuple[types.ModuleType, types.ModuleType, str | None]:
    """``(dlgo.mcts.mcts, dlgo.goboard_fast, note)``; the note says how MCTSAgent was loaded, if not plainly.

    Raises :class:`PeerUnavailable` (one line for the user) when dlgo cannot run.
    """
    global _DLGO
    try:
        import dlgo
        from dlgo import goboard_fast
    except Exception as e:  # noqa: BLE001 - a peer must never end the run
        raise PeerUnavailable(f"dlgo is not importable ({type(e).__name__}); install it: {INSTALL['dlgo']}") from None
    if _DLGO is not None:
        return _DLGO
    try:
        from dlgo.mcts import mcts

        _DLGO = (mcts, goboard_fast, None)
        return _DLGO
    except ImportError as e:
        first = f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001
        raise PeerUnavailable(f"dlgo.mcts does not import ({type(e).__name__}: {e})") from None
    # dlgo/agent/__init__.py pulls in the Keras agents. Import the two pure-Python
    # modules that mcts.py uses from dlgo's own files, without that __init__.
    pkg = types.ModuleType("dlgo.agent")
    pkg.__path__ = [str(Path(dlgo.__file__).resolve().parent / "agent")]
    pkg.__package__ = "dlgo.agent"
    had_agent = sys.modules.get("dlgo.agent")
    sys.modules["dlgo.agent"] = pkg
    try:
        base = importlib.import_module("dlgo.agent.base")
        naive_fast = importlib.import_module("dlgo.agent.naive_fast")
        pkg.Agent = base.Agent  # type: ignore[attr-defined]
        pkg.FastRandomBot = naive_fast.FastRandomBot  # type: ignore[attr-defined]
        mcts = importlib.import_module("dlgo.mcts.mcts")
    except Exception as e:  # noqa: BLE001
        raise PeerUnavailable(f"dlgo.mcts does not import ({first}; without dlgo.agent's __init__: "
                              f"{type(e).__name__}: {e})") from None
    finally:
        # Leave no partial dlgo.agent package behind for other importers; mcts.py keeps its own reference.
        if had_agent is None:
            sys.modules.pop("dlgo.agent", None)
            if getattr(dlgo, "agent", None) is pkg:
                delattr(dlgo, "agent")
        else:
            sys.modules["dlgo.agent"] = had_agent
    note = (f"the plain import of dlgo.mcts fails ({first}; dlgo/agent/__init__.py imports the Keras agents), "
            "so MCTSAgent ran unchanged with dlgo.agent.base and dlgo.agent.naive_fast imported from dlgo's files")
    _DLGO = (mcts, goboard_fast, note)
    return _DLGO


def dlgo_contender(size: int, seed: int, rounds: int) -> tuple[Contender, str | None]:
    if size > PEER_MAX_SIZE["dlgo"]:
        raise PeerUnavailable(f"dlgo's Zobrist table covers boards up to {PEER_MAX_SIZE['dlgo']}x{PEER_MAX_SIZE['dlgo']}")
    mcts, goboard_fast, note = load_dlgo_mcts()
    import numpy as np

    def search(n: int) -> Stint:
        # dlgo draws from the global generators (random for the tree, NumPy for playouts).
        # Seed them for this search and put them back after.
        py_state, np_state = random.getstate(), np.random.get_state()
        random.seed(seed)
        np.random.seed(seed)
        agent = mcts.MCTSAgent(n, DLGO_TEMPERATURE)
        state = goboard_fast.GameState.new_game(size)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # select_move prints its top ten moves
                cpu = time.process_time()
                t = time.perf_counter()
                agent.select_move(state)
                wall = time.perf_counter() - t
                cpu = time.process_time() - cpu
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)
        return Stint(n, wall, cpu)

    return Contender("dlgo", lambda: search(rounds), lambda: search(min(rounds, 20)), dist_version("dlgo")), note


# ---- timing -------------------------------------------------------------


def make_contenders(config: Config) -> tuple[list[Contender], dict[str, str]]:
    out = [fuseki_contender(name, config.size, config.seed, config.seconds) for name in CONFIGS]
    notes: dict[str, str] = {}
    for peer in PEERS:
        if peer not in config.peers:
            notes[peer] = "not requested (--peers)"
            continue
        try:
            contender, note = dlgo_contender(config.size, config.seed, config.rounds)
        except PeerUnavailable as e:
            notes[peer] = str(e)
            continue
        out.append(contender)
        if note:
            notes[peer] = note
    return out, notes


def measure(contenders: Sequence[Contender], repeats: int,
            progress: Callable[[str], None] | None = None) -> dict[str, list[Stint]]:
    """Warm every contender up, then run each once per round, ``repeats`` rounds, the order rotating.

    See :func:`common.measure_rounds`.
    """
    return common.measure_rounds(contenders, repeats, lambda c: c.run(), progress)


# ---- JIT start-up -------------------------------------------------------

_JIT_SNIPPET = textwrap.dedent(
    """
    import json, sys, time
    c0 = time.process_time()
    t0 = time.perf_counter()
    from fuseki.go import GameState
    from fuseki.search.go.gomcts import GoMCTS, MCTSConfig
    t1 = time.perf_counter()
    info = GoMCTS(MCTSConfig(seed=1)).search(GameState.new(int(sys.argv[1]), komi=7.5), playouts=1)
    t2 = time.perf_counter()
    assert info.playouts == 1
    print(json.dumps({"import_s": t1 - t0, "first_search_s": t2 - t1, "total_s": t2 - t0,
                      "total_cpu_s": time.process_time() - c0}))
    """
)


def _jit_once(size: int, cache_dir: str | None) -> dict[str, float]:
    return common.run_probe(_JIT_SNIPPET, [str(size)], cache_dir)


def measure_jit(size: int, cold: bool = False) -> dict[str, Any]:
    """Start-up of the search in fresh processes: ``import`` to the result of a first 1-playout search.

    ``cached``: with this process's Numba cache (the searches above have filled
    it), the second of two fresh processes, so the first makes sure the cache
    is warm. ``cold`` (only when asked; 20-30 s): an empty ``NUMBA_CACHE_DIR``,
    so every kernel compiles.
    """
    warm_up = _jit_once(size, None)
    cached = _jit_once(size, None)
    out: dict[str, Any] = {
        "cached_s": cached["total_s"],
        "cached_cpu_s": cached["total_cpu_s"],
        "cached": cached,
        "first_process": warm_up,
        "cold_s": None,
        "cold_cpu_s": None,
        "cold": None,
        "what": (f"fresh process: import fuseki.go and fuseki.search.go.gomcts, then "
                 f"GoMCTS(MCTSConfig(seed=1)).search(GameState.new({size}, komi=7.5), playouts=1)"),
    }
    if cold:
        with tempfile.TemporaryDirectory(prefix="fuseki-numba-cache-") as cache:
            c = _jit_once(size, cache)
        out.update(cold_s=c["total_s"], cold_cpu_s=c["total_cpu_s"], cold=c)
    return out


# ---- the whole run ------------------------------------------------------


def run(config: Config, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure everything that ``config`` asks for; return the JSON-ready result."""
    contenders, notes = make_contenders(config)
    stints = measure(contenders, config.repeats, progress)
    versions = {c.name: c.version for c in contenders}

    rates, cpu_rates = common.median_rates(stints, CONTENDERS)

    configs: dict[str, Any] = {}
    for name in CONFIGS:
        runs = stints[name]
        configs[name] = {
            "playouts_per_s": rates[name],
            "cpu_playouts_per_s": cpu_rates[name],
            "vs_dlgo": ratio(rates[name], rates["dlgo"]),
            "vs_dlgo_cpu": ratio(cpu_rates[name], cpu_rates["dlgo"]),
            "runs_playouts_per_s": [round(s.rate, 1) for s in runs],
            "playouts": [s.playouts for s in runs],
            "tree_nodes": [s.tree_nodes for s in runs],
            "what": WHAT[name],
        }
    dl = stints.get("dlgo")
    peer_detail = None
    if dl:
        peer_detail = {
            "playouts_per_s": rates["dlgo"],
            "cpu_playouts_per_s": cpu_rates["dlgo"],
            "rounds": config.rounds,
            "runs_playouts_per_s": [round(s.rate, 2) for s in dl],
            "seconds": [round(s.seconds, 3) for s in dl],
            "what": WHAT["dlgo"],
        }
    target = None
    if config.size == 9:
        target = {
            "playouts_per_s": TARGET_9X9,
            "met": rates["default"] >= TARGET_9X9,  # type: ignore[operator]
            "met_cpu": None if cpu_rates["default"] is None else cpu_rates["default"] >= TARGET_9X9,
        }
    result: dict[str, Any] = {
        "size": config.size,
        "playouts_per_s": rates["default"],
        "peers": {p: rates.get(p) for p in PEERS},
        "ratio_vs_dlgo": ratio(rates["default"], rates["dlgo"]),
        "cpu_playouts_per_s": cpu_rates["default"],
        "configs": configs,
        "peer_detail": {"dlgo": peer_detail},
        "target": target,
        "settings": {
            "seconds": config.seconds,
            "repeats": config.repeats,
            "seed": config.seed,
            "rounds": config.rounds,
            "komi": KOMI,
            "dlgo_temperature": DLGO_TEMPERATURE,
            "peers": list(config.peers),
            "position": f"empty {config.size}x{config.size} board, Black to move",
            "threads": 1,
        },
        "peer_notes": notes,
        "peer_versions": {p: versions.get(p) or None for p in PEERS if p in versions},
        "jit": None,
    }
    if config.jit or config.jit_cold:
        if progress:
            progress("measuring the JIT start-up in fresh processes")
        result["jit"] = measure_jit(config.size, cold=config.jit_cold)
    result["machine"] = machine_info()
    result["source"] = _source()
    result["date"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return result


def _source() -> dict[str, Any] | None:
    """The checkout's commit and whether the rules engine or the search code has local changes."""
    return common.source_info({"go_engine_modified": "src/fuseki/go", "search_modified": "src/fuseki/search"})


# ---- output -------------------------------------------------------------


def format_report(result: dict[str, Any]) -> str:
    """The result as a readable table, notes and the verdict (no JSON)."""
    s, size = result["settings"], result["size"]
    lines = [f"fuseki bench mcts: {size}x{size}, empty board, komi {s['komi']:g}, one thread; "
             f"{s['seconds']:g} s per configuration, dlgo {s['rounds']} rounds, x {s['repeats']} round(s), "
             f"seed {s['seed']}", ""]
    dl, dl_cpu = result["peers"].get("dlgo"), (result["peer_detail"].get("dlgo") or {}).get("cpu_playouts_per_s")
    header = ("contender", "playouts/s", "playouts/CPU-s", "vs dlgo", "vs dlgo (CPU)")
    rows = []
    for name in CONFIGS:
        c = result["configs"][name]
        rows.append((LABELS[name], fmt_rate(c["playouts_per_s"]), fmt_rate(c["cpu_playouts_per_s"]),
                     fmt_ratio(c["vs_dlgo"]), fmt_ratio(c["vs_dlgo_cpu"])))
    version = (result.get("peer_versions") or {}).get("dlgo")
    label = LABELS["dlgo"] + (f" {version}" if version else "")
    if dl is None:
        rows.append((label, "null", "-", "-", "-"))
    else:
        rows.append((label, f"{dl:,.1f}", "-" if dl_cpu is None else f"{dl_cpu:,.1f}", "1", "1"))
    lines.extend(common.format_table(header, rows))
    lines.append("")
    for name, note in result["peer_notes"].items():
        prefix = "dlgo: null" if result["peers"].get(name) is None else "dlgo: note"
        lines.append(f"{prefix} ({note})")
    configs = result["configs"]
    busy = common.busy_contenders({n: configs[n]["playouts_per_s"] for n in CONFIGS},
                                  {n: configs[n]["cpu_playouts_per_s"] for n in CONFIGS}, CONFIGS)
    if busy:
        lines.append("note: the machine was busy (wall-clock rates more than 10% below CPU-time rates for "
                     + ", ".join(busy) + "); the CPU-time rates and ratios are the steadier ones")
    t = result.get("target")
    if t:
        wall, cpu = t["met"], t.get("met_cpu")
        verdict = ("met" if wall and cpu in (True, None) else "NOT met" if not wall and not cpu
                   else "unclear (wall clock and CPU time disagree)")
        lines.append(f"target >= {t['playouts_per_s']:,.0f} playouts/s (default engine, 9x9, one core): {verdict} "
                     f"({fmt_rate(result['playouts_per_s'])} wall clock, {fmt_rate(result['cpu_playouts_per_s'])} CPU time)")
    jit = result.get("jit")
    if jit:
        text = (f"JIT start-up (import to the result of a first 1-playout search, fresh process): "
                f"cached {jit['cached_s']:.2f} s (CPU {jit['cached_cpu_s']:.2f} s)")
        if jit.get("cold_s") is not None:
            text += f", cold {jit['cold_s']:.2f} s (CPU {jit['cold_cpu_s']:.2f} s)"
        lines.append(text)
    return "\n".join(lines)
