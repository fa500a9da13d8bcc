"""Reproduce Klein's chess search experiments and print ours next to his figures.

::

    fuseki chess-search                          # depth 3 on Figure 3.1 (about 3 s)
    fuseki chess-search --experiment legall      # alpha-beta depth 5 on Legall (minutes)
    fuseki chess-search --experiment mcts --max-playout 40
    fuseki chess-search --experiment all --json

Experiments (Klein, *Neural Networks for Chess*, ch. 3; see docs/chess-classics.md):

- ``depth3``: minimax vs alpha-beta at depth 3 on Figure 3.1 (his 46,828 vs
  8,050 nodes, best move h5f7);
- ``legall``: alpha-beta at depth 5 on the Legall position (his f3e5, score
  280, 2,121,700 nodes), also with the corrected piece-square indexing;
- ``mcts``: his MCTS on Figure 3.1 (200 iterations) and on the Legall position
  (2,000 iterations, where he says it fails), plus the generic UCT.

Each runs his search as printed (``klein``) and, unless ``--no-generic``, the
generic search of :mod:`fuseki.search` on the chess adapter with his settings
(``generic``). Node counts follow his convention: positions two or more plies
below the root. Progress goes to stderr; with ``--json`` the last line of
stdout is one JSON object with every number.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fuseki.cli import UserError, int_at_least

EXPERIMENTS = ("depth3", "legall", "mcts", "all")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--experiment",
        choices=EXPERIMENTS,
        default="depth3",
        help="which experiment (default depth3; legall and mcts take minutes in pure Python)",
    )
    parser.add_argument("--depth", type=int_at_least(1), default=5, help="alpha-beta depth for legall (default 5, Klein's)")
    parser.add_argument(
        "--iterations", type=int_at_least(0), default=2000, help="MCTS iterations on Legall (default 2000, Klein's; 0 skips)"
    )
    parser.add_argument(
        "--mate-iterations",
        type=int_at_least(0),
        default=200,
        help="MCTS iterations on Figure 3.1 (default 200, Klein's; 0 skips)",
    )
    parser.add_argument("--seed", type=int, default=42, help="MCTS random seed (default 42, Klein's random.seed(42))")
    parser.add_argument(
        "--max-playout",
        type=int_at_least(0),
        default=None,
        metavar="N",
        help="cut MCTS playouts after N moves and score them as draws (default: play to the end, as Klein)",
    )
    parser.add_argument("--no-generic", action="store_true", help="run only Klein's searches, not the generic ones")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON holding the result")


def _row(label: str, ours: dict[str, Any] | None, klein: dict[str, Any] | None) -> str:
    def fmt(r: dict[str, Any] | None) -> str:
        if not r:
            return "-"
        nodes = f"{r['nodes']:>9,} nodes" if "nodes" in r else ""
        secs = f"{r['seconds']:>7.2f} s" if r.get("seconds") is not None else ""
        return f"{r['move']} {r['value']:>8} {nodes} {secs}".rstrip()

    return f"  {label:<28} {fmt(ours):<46} | {fmt(klein)}"


def _print_depth(title: str, result: dict[str, Any], klein: dict[str, Any], keys: list[tuple[str, str, str]]) -> None:
    print(f"{title}  (depth {result['depth']})")
    print(f"  {'search':<28} {'ours: move value nodes time':<46} | Klein")
    for key, label, klein_key in keys:
        if key in result:
            print(_row(label, result[key], klein.get(klein_key)))
    print()


def _print_mcts(result: dict[str, Any]) -> None:
    print("MCTS (UCT)")
    names = {"mate": "Figure 3.1 (mate in one: h5f7)", "legall": "Legall position (Klein: no f3e5 at 2,000)"}
    for name in ("mate", "legall"):
        entry = result.get(name)
        if not entry:
            continue
        print(f"  {names[name]}, {entry['iterations']} iterations")
        for key, label in (("klein_style", "Klein's MCTS"), ("generic_uct", "generic UCT")):
            if key in entry:
                e = entry[key]
                top = ", ".join(f"{t['move']} {t['visits']} ({t['mean']:.2f})" for t in e["top"])
                t = e["target"]
                print(f"    {label:<14} picks {e['move']}  ({e['seconds']:.1f} s)  most visited (mean payout): {top}")
                print(f"    {'':<14} {t['move']}: rank {t['rank']} by visits, {t['visits']} visits")
    print()


def run(args: argparse.Namespace) -> int:
    from fuseki.chess import classics as cc

    if args.experiment not in EXPERIMENTS:  # argparse checks; kept for callers building args by hand
        raise UserError(f"unknown experiment {args.experiment!r}; known: {', '.join(EXPERIMENTS)}")
    chosen = ("depth3", "legall", "mcts") if args.experiment == "all" else (args.experiment,)
    generic = not args.no_generic
    results: dict[str, Any] = {}
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        if name == "depth3":
            r = cc.experiment_depth3(generic=generic)
            _print_depth(
                "Figure 3.1 (Klein ch. 3)",
                r,
                r["klein"],
                [
                    ("minimax", "minimax (Klein's code)", "minimax"),
                    ("generic_minimax", "minimax (fuseki.search)", "minimax"),
                    ("alphabeta", "alpha-beta (Klein's code)", "alphabeta"),
                    ("generic_alphabeta", "alpha-beta (fuseki.search)", "alphabeta"),
                    ("generic_alphabeta_narrowing", "  ... narrowing root window", "-"),
                ],
            )
        elif name == "legall":
            r = cc.experiment_legall(args.depth, generic=generic)
            klein = r["klein"] if args.depth == 5 else {}
            _print_depth(
                "Legall position",
                r,
                klein,
                [
                    ("alphabeta", "alpha-beta (Klein's code)", "alphabeta"),
                    ("alphabeta_corrected_eval", "  ... corrected table", "-"),
                    ("generic_alphabeta", "alpha-beta (fuseki.search)", "alphabeta"),
                    ("generic_alphabeta_narrowing", "  ... narrowing root window", "-"),
                ],
            )
        else:
            r = cc.experiment_mcts(
                mate_iterations=args.mate_iterations,
                legall_iterations=args.iterations,
                seed=args.seed,
                max_playout=args.max_playout,
                generic=generic,
            )
            _print_mcts(r)
        results[name] = r
    if args.json:
        print(json.dumps(results))
    return 0
