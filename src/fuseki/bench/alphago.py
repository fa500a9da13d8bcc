"""How fast is AlphaGo's search beside the MCTS engine alone? Simulations and network evaluations a second.

Each contender searches the same position (the empty board, komi 7.5) with a
fresh search, once per round, for ``seconds``; with several rounds the
contenders take turns and the median is reported (the machines this runs on
are shared, so the CPU-time rate is kept too).

=================  ==========================================================
``mcts``           the MCTS engine alone (``GoMCTS``, heavy playouts, priors,
                   RAVE): playouts a second
``alphago``        AlphaGo's search with the model (λ = 0.5): simulations
                   (each one rollout with the rollout policy) and network
                   evaluations (SL policy + value network, batched) a second
``rollouts-only``  λ = 0: the SL policy's priors, no value network
``value-only``     λ = 1: no rollouts, every leaf evaluated (AlphaGo Zero's
                   way)
``heavy``          λ = 0.5 with the engine's heavy playout instead of the
                   rollout policy
``rollout-policy`` the rollout policy alone: whole games from the position a
                   second, one core
=================  ==========================================================

The network's share of the search's time (``network_seconds`` over the
search's seconds) says how much the networks slow the tree down.
"""

from __future__ import annotations

import dataclasses
import datetime
import statistics
import time
from collections.abc import Callable
from typing import Any

from fuseki.bench.common import fmt_rate, fmt_ratio, format_table, machine_info, ratio

__all__ = ["Config", "CONTENDERS", "format_report", "run"]

CONTENDERS = ("mcts", "alphago", "rollouts-only", "value-only", "heavy", "rollout-policy")


@dataclasses.dataclass(frozen=True)
class Config:
    model: str
    size: int = 9
    seconds: float = 3.0
    repeats: int = 1
    seed: int = 1
    device: str = "auto"


def _search_once(name: str, config: Config, model: Any) -> dict[str, Any]:
    from fuseki.go import GameState
    from fuseki.search.go.alphago_search import AlphaGoConfig, AlphaGoSearch
    from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

    state = GameState.new(config.size, komi=7.5)
    cpu0 = time.process_time()
    if name == "mcts":
        info = GoMCTS(MCTSConfig(seed=config.seed)).search(state, seconds=config.seconds)
        cpu = time.process_time() - cpu0
        return {"simulations": info.playouts, "seconds": info.seconds, "cpu_seconds": cpu, "evaluations": 0, "network_seconds": 0.0}
    if name == "rollout-policy":
        import numpy as np

        from fuseki.go.kernels import M_MOVENUM
        from fuseki.search.go.rollout_policy import policy_rollout

        n = config.size
        w6, wr, ws = model.rollout.fused()
        points = np.empty(n * n + 1, dtype=np.int64)
        scores = np.empty(n * n + 1, dtype=np.float64)
        count, moves, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < config.seconds:
            work = state.buffer.copy()
            policy_rollout(work, -1, 3 * n * n, w6, wr, ws, points, scores)
            moves += int(work[M_MOVENUM])
            count += 1
        wall = time.perf_counter() - t0
        return {
            "simulations": count,
            "seconds": wall,
            "cpu_seconds": time.process_time() - cpu0,
            "evaluations": 0,
            "network_seconds": 0.0,
            "moves": moves,
        }
    lam = {"alphago": 0.5, "rollouts-only": 0.0, "value-only": 1.0, "heavy": 0.5}[name]
    rollout = "heavy" if name == "heavy" else "policy"
    search = AlphaGoSearch(model.evaluate, model.rollout, AlphaGoConfig(lam=lam, rollout=rollout, seed=config.seed))
    info = search.search(state, seconds=config.seconds)
    return {
        "simulations": info.simulations,
        "seconds": info.seconds,
        "cpu_seconds": time.process_time() - cpu0,
        "evaluations": info.evaluations,
        "network_seconds": info.network_seconds,
        "network_calls": info.network_calls,
    }


def run(config: Config, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    from fuseki.agents.alphago_agent import load_alphago_model

    model = load_alphago_model(config.model, device=config.device)
    if model.board_size != config.size:
        raise ValueError(f"the model plays {model.board_size}x{model.board_size}; use --size {model.board_size}")
    if not (model.has_value and model.has_rollout):
        # Its contenders compare λ = 0.5, λ = 1 and the rollout policy: a policy-only model can run none of them.
        raise ValueError(f"{model.folder}: this benchmark needs a model with a value network and a rollout policy")
    for name in CONTENDERS:  # warm up: compile, first forward passes
        _search_once(name, dataclasses.replace(config, seconds=0.2), model)
    stints: dict[str, list[dict[str, Any]]] = {name: [] for name in CONTENDERS}
    for r in range(config.repeats):
        order = CONTENDERS[r % len(CONTENDERS) :] + CONTENDERS[: r % len(CONTENDERS)]
        for name in order:
            if progress:
                progress(f"round {r + 1}/{config.repeats}: {name}")
            stints[name].append(_search_once(name, config, model))
    rows = {}
    for name, runs in stints.items():
        rate = statistics.median(s["simulations"] / s["seconds"] for s in runs)
        eval_rate = statistics.median(s["evaluations"] / s["seconds"] for s in runs)
        share = statistics.median(s["network_seconds"] / s["seconds"] for s in runs)
        cpu_rate = statistics.median(s["simulations"] / s["cpu_seconds"] for s in runs if s["cpu_seconds"] > 0)
        rows[name] = {
            "simulations_per_second": rate,
            "evaluations_per_second": eval_rate,
            "network_share": share,
            "simulations_per_cpu_second": cpu_rate,
            "runs": runs,
        }
        if name == "rollout-policy":
            rows[name]["cpu_microseconds_per_move"] = statistics.median(1e6 * s["cpu_seconds"] / s["moves"] for s in runs if s["moves"])
            rows[name]["moves_per_rollout"] = statistics.median(s["moves"] / s["simulations"] for s in runs)
    return {
        "benchmark": "alphago",
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "config": dataclasses.asdict(config),
        "device": str(model.device),
        "model": {"folder": str(model.folder), "metrics": model.manifest.get("metrics")},
        "machine": machine_info(),
        "results": rows,
        "ratio_alphago_to_mcts": ratio(rows["alphago"]["simulations_per_second"], rows["mcts"]["simulations_per_second"]),
    }


def format_report(result: dict[str, Any]) -> str:
    c = result["config"]
    lines = [
        f"AlphaGo's search beside the MCTS engine, {c['size']}x{c['size']}, empty board, {c['seconds']:g} s a "
        f"search, median of {c['repeats']}, networks on {result['device']}"
    ]
    base = result["results"]["mcts"]["simulations_per_second"]
    rows = []
    for name, r in result["results"].items():
        rows.append(
            [
                name,
                fmt_rate(r["simulations_per_second"]),
                fmt_rate(r["simulations_per_cpu_second"]),
                fmt_rate(r["evaluations_per_second"]) if r["evaluations_per_second"] else "-",
                f"{100 * r['network_share']:.0f} %" if r["network_share"] else "-",
                fmt_ratio(ratio(r["simulations_per_second"], base)),
            ]
        )
    lines += format_table(["search", "simulations/s", "per CPU-s", "evaluations/s", "network time", "vs mcts"], rows, right=range(1, 6))
    rp = result["results"]["rollout-policy"]
    lines.append(
        f"rollout policy: {rp['cpu_microseconds_per_move']:.1f} µs of CPU a move, "
        f"{rp['moves_per_rollout']:.0f} moves a rollout from the empty board"
    )
    return "\n".join(lines)
