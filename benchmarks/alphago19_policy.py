"""AlphaGo's search on 19×19 with a policy-only model: its speed, and its move beside the policy's own choice.

The model is a folder made by ``fuseki alphago model --policy FILE --out DIR``
(the SL policy alone: λ = 0, heavy playouts, the policy's priors at every
expanded node). For each position, the empty board and the position after
``--move`` moves of a real game, it runs one fresh search of ``--seconds``
and records what it cost (simulations, network evaluations and calls, tree
nodes, wall and CPU seconds, the load average: the machine is shared) and
what it chose: its most visited moves with their priors, and the policy's
argmax over the legal points, with the search move's rank in the policy.

    nice -n 10 python benchmarks/alphago19_policy.py --model /tmp/ag19-model --seconds 5 \\
        --sgf ../shared/data/fox-9d/games.tar.xz --out benchmarks/results/alphago19_policy_search.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import tarfile
import time
from typing import Any


def _game_position(archive: str, moves: int) -> tuple[Any, str]:
    """The position after ``moves`` moves of the first even game in ``archive`` (a .tar.xz of SGF files) that long."""
    from fuseki.go.rules import Rules
    from fuseki.go.sgf import read_sgf

    with tarfile.open(archive) as tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".sgf"):
                continue
            f = tar.extractfile(member)
            if f is None:
                continue
            try:
                record = read_sgf(f.read())
            except Exception:  # a malformed file of the archive: take the next one
                continue
            if record.size != 19 or record.handicap or record.setup_black or len(record.moves) < moves + 20:
                continue
            state = record.initial_state(Rules.preset("chinese").replace(komi=7.5))
            for m in record.moves[:moves]:
                state = state.play(m.move)
            return state, member.name
    raise SystemExit(f"no even 19x19 game of {moves + 20} moves in {archive}")


def _gtp(index: int, n: int) -> str:
    from fuseki.go.state import Move, Point

    return "pass" if index == n * n else Move.play(Point(index // n, index % n)).gtp(n)


def _policy_view(model: Any, state: Any) -> tuple[list[tuple[int, float]], Any]:
    """The legal points sorted by the policy's probability, and the probability array."""
    import numpy as np
    import torch

    from fuseki.encoders import get_encoder

    n = state.size
    x = torch.from_numpy(get_encoder("alphago", n).encode(state)[None]).float()
    with torch.inference_mode():
        p = torch.softmax(model.policy(x).float(), dim=1)[0].numpy()
    legal = [int(i) for i in state.legal_points() if i < n * n]
    order = sorted(legal, key=lambda i: -p[i])
    return [(i, float(p[i])) for i in order], np.asarray(p)


def _search(bot: Any, state: Any, seconds: float) -> dict[str, Any]:
    n = state.size
    ranked, probs = _policy_view(bot.model, state)
    rank = {m: r for r, (m, _) in enumerate(ranked)}
    bot.reset()
    load0 = os.getloadavg()[0]
    cpu0 = time.process_time()
    info = bot.search.search(state, seconds=seconds)
    cpu = time.process_time() - cpu0
    visited = [c for c in info.children if c.visits > 0]
    low = sum(c.visits for c in visited if c.prior < 0.001)
    return {
        "moves_played": state.move_number,
        "to_play": "black" if state.next_player.name.lower().startswith("b") else "white",
        "seconds": info.seconds,
        "cpu_seconds": cpu,
        "loadavg_1min_before": load0,
        "simulations": info.simulations,
        "simulations_per_second": info.simulations_per_second,
        "simulations_per_cpu_second": info.simulations / cpu if cpu > 0 else None,
        "evaluations": info.evaluations,
        "network_calls": info.network_calls,
        "network_seconds": info.network_seconds,
        "tree_nodes": info.tree_nodes,
        "root_children_visited": len(visited),
        # Root visits spent on moves the policy gives under 0.1 %: first-play urgency (an unvisited child gets its
        # parent's value) and noisy rollout values pull the search there.
        "root_visit_share_prior_below_0.001": low / max(1, sum(c.visits for c in visited)),
        "move": _gtp(info.move, n),
        "winrate": info.winrate,
        "move_prior": float(probs[info.move]) if info.move < n * n else None,
        "move_policy_rank": rank.get(info.move),
        "policy_argmax": _gtp(ranked[0][0], n),
        "policy_top5": [[_gtp(m, n), round(p, 4)] for m, p in ranked[:5]],
        "search_top5": [
            {"move": _gtp(c.move, n), "visits": c.visits, "value": c.value, "prior": round(c.prior, 4)} for c in info.children[:5]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a model folder made by `fuseki alphago model` (19x19 policy)")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--sgf", required=True, help="a .tar.xz of SGF games: the middle-game position comes from its first long even game")
    ap.add_argument("--move", type=int, default=100, help="moves of the game played before the middle-game position (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--c-puct", type=float, default=5.0, help="the search's c_puct (default 5, the paper's)")
    ap.add_argument("--fpu-reduction", type=float, default=None, help="the search's fpu_reduction (default: the agent's, 0)")
    ap.add_argument("--expand-visits", type=int, default=None, help="the search's expand_visits (default: the agent's, 16)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from fuseki.agents.alphago_agent import make_alphago
    from fuseki.bench.common import machine_info
    from fuseki.go import GameState

    bot = make_alphago(
        model=args.model,
        seconds=args.seconds,
        seed=args.seed,
        expand_visits=args.expand_visits,
        c_puct=args.c_puct,
        fpu_reduction=0.0 if args.fpu_reduction is None else args.fpu_reduction,
        device="cpu",
    )
    empty = GameState.new(bot.board_size, komi=7.5)
    bot.search.search(empty, playouts=64)  # warm up: compiled kernels, first forward passes
    middle, game = _game_position(args.sgf, args.move)
    positions = {"empty board": _search(bot, empty, args.seconds), f"after move {args.move} of {game}": _search(bot, middle, args.seconds)}
    for name, r in positions.items():
        print(
            f"{name}: {r['simulations']} simulations in {r['seconds']:.1f} s ({r['simulations_per_second']:.0f}/s, "
            f"{r['cpu_seconds']:.1f} CPU s), {r['evaluations']} evaluations in {r['network_calls']} calls "
            f"({r['network_seconds']:.1f} s), {r['tree_nodes']} nodes, {r['root_children_visited']} root moves tried, "
            f"{100 * r['root_visit_share_prior_below_0.001']:.0f} % of root visits on priors < 0.1 %; "
            f"move {r['move']} (policy rank {r['move_policy_rank']}, "
            f"prior {r['move_prior']}), policy argmax {r['policy_argmax']}",
            flush=True,
        )
    result = {
        "benchmark": "alphago19_policy",
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "command": shlex.join(["python", *sys.argv]),
        "model": {"folder": args.model, "manifest": bot.model.manifest},
        "settings": {
            "lam": bot.search.config.lam,
            "c_puct": bot.search.config.c_puct,
            "fpu_reduction": bot.search.config.fpu_reduction,
            "rollout": bot.search.config.rollout,
            "expand_at": bot.search.config.expand_at,
            "seconds": args.seconds,
            "seed": args.seed,
        },
        "machine": machine_info(),
        "positions": positions,
    }
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
