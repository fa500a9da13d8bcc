"""Measure speed, with peers side by side (benchmarks: rules, mcts, zero, alphago).

::

    fuseki bench rules --size 9 --json            # ~15 s: ours and the peers, 3 s each
    fuseki bench rules --size 19 --repeats 5 --save
    fuseki bench mcts --size 9 --json             # ~15 s: three MCTS configurations and dlgo's MCTSAgent
    fuseki bench zero --size 9 --json             # ~2-4 min: Zero self-play beside OpenSpiel's MCTSBot
    fuseki bench zero --game chess --json         # chess self-play beside Go's, the same settings
    fuseki bench alphago --model DIR --seconds 3  # AlphaGo's search (simulations, evaluations) beside the MCTS engine

``rules`` plays uniform-random games (pass included, at most 2 x area plies)
through the Python API (simple ko, and again under positional superko), inside
a Numba kernel (whole playouts), in OpenSpiel and in dlgo, and prints plies per
second and the ratios. ``--jit`` adds the Numba start-up cost (cold and cached,
in fresh processes, ~20 s); ``--breakdown`` adds the cost of each step of a
ply. Both are on by default when the result is written (``--save``/``--out``).
With ``--json`` the last line printed is the result as one JSON object.

``mcts`` searches the empty board on one core with a fresh engine per round:
our default (strong) configuration, the light playout and the book's plain
UCT, each for ``--seconds``, and dlgo's pure-Python ``MCTSAgent`` for
``--rounds`` rounds, and prints playouts per second and the ratios. ``--jit``
(on with ``--save``/``--out``) adds the start-up of a first search in a fresh
process with the Numba cache warm (~2 s); ``--jit-cold`` adds it with an empty
cache (~20-30 s).

``zero`` plays Zero self-play moves on Go with a fixed network (``--blocks``
x ``--channels``, 4 x 64, random weights from ``--seed``) at
``--simulations`` (100) a move: ours with ``--parallel`` games at once and
``--batch`` leaves a game per round in one forward pass (``--device cuda``
on a GPU, with a batch that fills it), and OpenSpiel's MCTSBot with an
evaluator that runs the same network on one position at a time, the same
number of moves (games of ``--moves`` moves). It prints moves and network
evaluations per second and the ratio; the last line with ``--json`` is
``{"size": 9, "moves_per_s": ..., "evals_per_s": ..., "peers": {"openspiel_mcts": ...}}``
followed by the details. ``--game chess`` plays chess self-play (the Python
PUCT on python-chess, a network of the same blocks x filters) and, in the same
run, Go with the same settings, for the figure beside it; no peer. Its last
line is ``{"game": "chess", "moves_per_s": ..., "evals_per_s": ..., "go":
{"size": 9, "moves_per_s": ..., "evals_per_s": ...}}``.

``alphago`` searches the empty board with the MCTS engine alone and with
AlphaGo's search on the model folder ``--model DIR`` (λ = 0.5, 0 and 1, and
with the heavy playout), and the rollout policy alone, for ``--seconds``
each: simulations and network evaluations a second, and the network's share
of the time (:mod:`fuseki.bench.alphago`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from fuseki.cli import UserError
from fuseki.util.progress import print_json

#: Benchmark name -> module in fuseki.bench.
BENCHMARKS = {"rules": "fuseki.bench.rules", "mcts": "fuseki.bench.mcts", "zero": "fuseki.bench.zero",
              "alphago": "fuseki.bench.alphago"}

PEER_NAMES = ("openspiel", "dlgo")

#: The peers each benchmark knows (the first is the default list).
BENCHMARK_PEERS = {"rules": ("openspiel", "dlgo"), "mcts": ("dlgo",), "zero": ("openspiel_mcts",), "alphago": ()}

#: ``bench zero``'s own options and their defaults (kept here so that ``--help`` needs no torch).
ZERO_DEFAULTS = {"simulations": 100, "blocks": 4, "channels": 64, "moves": 20, "parallel": 16, "batch": 8,
                 "device": "cpu", "root": "puct", "gumbel_m": 16, "precision": "fp32"}

#: dlgo's MCTS rounds per round of ``bench mcts`` (about 1-3 s on 9x9).
DEFAULT_ROUNDS = 300
MAX_ROUNDS = 1_000_000

# The board sizes that fuseki.go.coords accepts (MIN_SIZE, MAX_SIZE), repeated
# here so that a bad flag is reported without importing Numba.
MIN_SIZE, MAX_SIZE = 2, 25

MAX_SECONDS = 600.0
MAX_REPEATS = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("benchmark", metavar="NAME", help=f"what to measure: {', '.join(BENCHMARKS)}")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time budget per contender and round, in seconds (default 3)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds; the contenders take turns and the median is reported (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    peers = parser.add_mutually_exclusive_group()
    peers.add_argument("--peers", default=None,
                       help="comma-separated peers to run beside ours (default: openspiel,dlgo for rules, dlgo for mcts)")
    peers.add_argument("--no-peers", dest="peers", action="store_const", const="", help="measure only fuseki")
    parser.add_argument("--jit", action=argparse.BooleanOptionalAction, default=None,
                        help="measure the Numba start-up, cold and cached (~20 s; default: on with --save/--out)")
    parser.add_argument("--breakdown", action=argparse.BooleanOptionalAction, default=None,
                        help="rules: time each step of a ply (default: on with --save/--out)")
    parser.add_argument("--rounds", type=int, default=None,
                        help=f"mcts: dlgo's MCTS rounds per round (default {DEFAULT_ROUNDS})")
    parser.add_argument("--jit-cold", action="store_true",
                        help="mcts: also measure the start-up with an empty Numba cache (~20-30 s)")
    zero = parser.add_argument_group("bench zero")
    zero.add_argument("--simulations", type=int, default=None,
                      help=f"zero: simulations a move (default {ZERO_DEFAULTS['simulations']})")
    zero.add_argument("--blocks", type=int, default=None, help=f"zero: residual blocks (default {ZERO_DEFAULTS['blocks']})")
    zero.add_argument("--channels", type=int, default=None, help=f"zero: filters (default {ZERO_DEFAULTS['channels']})")
    zero.add_argument("--moves", type=int, default=None,
                      help=f"zero: moves of each game from the empty board (default {ZERO_DEFAULTS['moves']})")
    zero.add_argument("--parallel", type=int, default=None,
                      help=f"zero: our games at once; their leaves share each forward pass (default {ZERO_DEFAULTS['parallel']})")
    zero.add_argument("--batch", type=int, default=None,
                      help=f"zero: leaves a game per round, under virtual loss (default {ZERO_DEFAULTS['batch']}); "
                           "a forward pass takes parallel x batch positions")
    zero.add_argument("--device", default=None, choices=("cpu", "cuda", "mps", "auto"),
                      help="zero: where our network runs (default cpu; cuda fails when there is no GPU); "
                           "alphago: where the networks run (default auto: the GPU when there is one)")
    zero.add_argument("--root", default=None, choices=("puct", "gumbel"), help="zero: the root's search (default puct)")
    zero.add_argument("--peer-moves", type=int, default=None,
                      help="zero: moves the peer plays (default: as many as ours; cap it for a GPU run with a big --parallel)")
    zero.add_argument("--precision", default=None, choices=("fp32", "bf16"),
                      help="zero: both sides' forward pass in float32 or under bfloat16 autocast (default fp32)")
    zero.add_argument("--gumbel-m", type=int, default=None,
                      help=f"zero: actions the Gumbel root considers (default {ZERO_DEFAULTS['gumbel_m']})")
    zero.add_argument("--game", default=None, choices=("go", "chess"),
                      help="zero: go (beside OpenSpiel's MCTSBot) or chess (beside Go with the same settings, "
                           "in the same run; no peer) (default go)")
    parser.add_argument("--model", metavar="DIR", default=None,
                        help="alphago: the model folder (`fuseki alphago train --out DIR`; default the shipped one)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    parser.add_argument("--out", metavar="FILE", help="write the result as JSON to FILE")
    parser.add_argument("--save", action="store_true",
                        help="write the result to benchmarks/results/NAME_SIZE.json in the checkout")


def _parse_peers(text: str | None, benchmark: str = "rules") -> tuple[str, ...]:
    known = BENCHMARK_PEERS[benchmark]
    if text is None:
        return known
    names = tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))
    unknown = [p for p in names if p not in known]
    if unknown:
        raise UserError(f"unknown peer {unknown[0]!r} for bench {benchmark}; known: {', '.join(known)}")
    return names


def results_dir() -> Path:
    """``benchmarks/results`` of the checkout this package runs from, else of the current directory."""
    import fuseki

    root = Path(fuseki.__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "benchmarks").is_dir():
        return root / "benchmarks" / "results"
    return Path("benchmarks") / "results"


def _command_line(args: argparse.Namespace, benchmark: str, peers: tuple[str, ...], jit: bool,
                  before_peers: list[str], after_jit: list[str]) -> str:
    """``fuseki bench BENCHMARK`` with the shared settings, ``before_peers``, the peers, ``--jit``,
    ``after_jit`` and the output flags, every setting spelled out."""
    parts = ["fuseki", "bench", benchmark, "--size", str(args.size), "--seconds", f"{args.seconds:g}",
             "--repeats", str(args.repeats), "--seed", str(args.seed), *before_peers]
    parts += ["--peers", ",".join(peers)] if peers else ["--no-peers"]
    parts.append("--jit" if jit else "--no-jit")
    parts += after_jit
    if args.json:
        parts.append("--json")
    if args.save:
        parts.append("--save")
    if args.out:
        parts += ["--out", args.out]
    return shlex.join(parts)


def canonical_command(args: argparse.Namespace, peers: tuple[str, ...], jit: bool, breakdown: bool) -> str:
    """The command line that repeats this run, every setting spelled out."""
    return _command_line(args, args.benchmark, peers, jit, [], ["--breakdown" if breakdown else "--no-breakdown"])


def canonical_command_mcts(args: argparse.Namespace, peers: tuple[str, ...], rounds: int, jit: bool) -> str:
    """The command line that repeats a ``bench mcts`` run, every setting spelled out."""
    return _command_line(args, "mcts", peers, jit, ["--rounds", str(rounds)], ["--jit-cold"] if args.jit_cold else [])


def _report(module: Any, result: dict[str, Any], command: str, args: argparse.Namespace) -> int:
    """Add the command line to ``result``, print the report, then write and print the JSON as asked."""
    result["command"] = command
    print(module.format_report(result))
    _write(result, args)
    return 0


def _write(result: dict[str, Any], args: argparse.Namespace, last_line: dict[str, Any] | None = None,
           name: str | None = None) -> None:
    """Write ``result`` where asked (``--save``: ``name``, default NAME_SIZE, under benchmarks/results);
    with ``--json`` print it (or ``last_line``, a summary) as the last line."""
    targets = []
    if args.save:
        targets.append(results_dir() / f"{name or f'{args.benchmark}_{args.size}'}.json")
    if args.out:
        targets.append(Path(args.out))
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"saved {path}")
    if args.json:
        print_json(result if last_line is None else last_line)


def _show(benchmark: str) -> Any:
    def show(message: str) -> None:
        print(f"fuseki bench {benchmark}: {message}", file=sys.stderr, flush=True)

    return show if sys.stderr.isatty() else None


def run_mcts(args: argparse.Namespace) -> int:
    if args.breakdown is not None:
        raise UserError("--breakdown applies to bench rules only")
    rounds = DEFAULT_ROUNDS if args.rounds is None else args.rounds
    if not 1 <= rounds <= MAX_ROUNDS:
        raise UserError(f"--rounds must be from 1 to {MAX_ROUNDS}, got {rounds}")
    peers = _parse_peers(args.peers, "mcts")
    jit = bool(args.save or args.out) if args.jit is None else args.jit

    from fuseki.bench import mcts as bench_mcts

    config = bench_mcts.Config(size=args.size, seconds=args.seconds, repeats=args.repeats, seed=args.seed,
                               rounds=rounds, peers=peers, jit=jit, jit_cold=args.jit_cold)
    return _report(bench_mcts, bench_mcts.run(config, _show("mcts")), canonical_command_mcts(args, peers, rounds, jit),
                   args)


def _zero_options(args: argparse.Namespace) -> dict[str, Any]:
    """``bench zero``'s options with their defaults filled in (checked)."""
    options = {name: getattr(args, name) if getattr(args, name) is not None else default for name, default in ZERO_DEFAULTS.items()}
    for name in ("simulations", "blocks", "channels", "moves", "parallel", "batch", "gumbel_m"):
        low = 0 if name == "blocks" else 1
        if options[name] < low or options[name] > 100_000:
            raise UserError(f"--{name.replace('_', '-')} must be from {low} to 100000, got {options[name]}")
    return options


def run_zero(args: argparse.Namespace) -> int:
    for flag, value in (("--breakdown", args.breakdown), ("--rounds", args.rounds), ("--jit", args.jit)):
        if value is not None:
            raise UserError(f"{flag} does not apply to bench zero")
    if args.jit_cold:
        raise UserError("--jit-cold does not apply to bench zero")
    options = _zero_options(args)
    game = args.game or "go"
    if game == "chess":
        if args.peers:
            raise UserError("bench zero --game chess has no peer: OpenSpiel's MCTSBot is measured on Go")
        if args.peer_moves is not None:
            raise UserError("--peer-moves does not apply to bench zero --game chess")
        peers: tuple[str, ...] = ()
    else:
        peers = _parse_peers(args.peers, "zero")

    from fuseki.bench import zero as bench_zero
    from fuseki.util.errors import FusekiError

    if args.peer_moves is not None and not 1 <= args.peer_moves <= 100_000:
        raise UserError(f"--peer-moves must be from 1 to 100000, got {args.peer_moves}")
    config = bench_zero.Config(size=args.size, seed=args.seed, peers=peers, peer_moves=args.peer_moves, game=game,
                               **options)
    parts = ["fuseki", "bench", "zero", *(["--game", "chess"] if game == "chess" else []), "--size", str(args.size),
             "--seed", str(args.seed)]
    for name in ZERO_DEFAULTS:
        parts += [f"--{name.replace('_', '-')}", str(options[name])]
    if args.peer_moves is not None:
        parts += ["--peer-moves", str(args.peer_moves)]
    if game == "go":
        parts += ["--peers", ",".join(peers)] if peers else ["--no-peers"]
    if args.json:
        parts.append("--json")
    if args.save:
        parts.append("--save")
    if args.out:
        parts += ["--out", args.out]
    try:
        result = bench_zero.run(config, _show("zero"))
    except FusekiError as e:
        raise UserError(str(e)) from None
    result["command"] = shlex.join(parts)
    print(bench_zero.format_report(result))
    # The last line is the four figures the issue asks for (chess: its two beside Go's); the file has everything.
    if game == "chess":
        summary = {"game": "chess", "moves_per_s": result["moves_per_s"], "evals_per_s": result["evals_per_s"],
                   "go": result["go"]}
        _write(result, args, summary, name=f"zero_chess_{args.size}")
    else:
        summary = {"size": result["size"], "moves_per_s": result["moves_per_s"], "evals_per_s": result["evals_per_s"],
                   "peers": result["peers"]}
        _write(result, args, summary)
    return 0


def run_alphago(args: argparse.Namespace) -> int:
    for flag, value in (("--rounds", args.rounds), ("--breakdown", args.breakdown), ("--jit", args.jit)):
        if value is not None:
            raise UserError(f"{flag} does not apply to bench alphago")
    if args.peers:
        raise UserError("bench alphago has no peers")
    from fuseki.bench import alphago as bench_alphago
    from fuseki.util.errors import FusekiError

    config = bench_alphago.Config(model=args.model, size=args.size, seconds=args.seconds, repeats=args.repeats,
                                  seed=args.seed, device=args.device or "auto")
    try:
        result = bench_alphago.run(config, _show("alphago"))
    except FusekiError:
        raise
    except ValueError as e:
        raise UserError(str(e)) from None
    parts = ["fuseki", "bench", "alphago", "--size", str(args.size), "--seconds", f"{args.seconds:g}",
             "--repeats", str(args.repeats), "--seed", str(args.seed), "--device", args.device or "auto"]
    if args.model:
        parts += ["--model", args.model]
    parts += [f for f, on in (("--json", args.json), ("--save", args.save)) if on]
    if args.out:
        parts += ["--out", args.out]
    return _report(bench_alphago, result, shlex.join(parts), args)


def run(args: argparse.Namespace) -> int:
    if args.benchmark not in BENCHMARKS:
        raise UserError(f"unknown benchmark {args.benchmark!r}; known: {', '.join(BENCHMARKS)}")
    if not MIN_SIZE <= args.size <= MAX_SIZE:
        raise UserError(f"--size must be from {MIN_SIZE} to {MAX_SIZE}, got {args.size}")
    if args.benchmark == "zero":
        return run_zero(args)
    used = [name for name in (*ZERO_DEFAULTS, "peer_moves", "game") if getattr(args, name) is not None]
    if args.benchmark == "alphago":
        used = [name for name in used if name != "device"]  # alphago has a --device of its own
    if used:
        raise UserError(f"--{used[0].replace('_', '-')} applies to bench zero only")
    if args.model is not None and args.benchmark != "alphago":
        raise UserError("--model applies to bench alphago only")
    if not 0 < args.seconds <= MAX_SECONDS:
        raise UserError(f"--seconds must be more than 0 and at most {MAX_SECONDS:g}, got {args.seconds:g}")
    if not 1 <= args.repeats <= MAX_REPEATS:
        raise UserError(f"--repeats must be from 1 to {MAX_REPEATS}, got {args.repeats}")
    if args.benchmark != "alphago" and args.model is not None:
        raise UserError("--model applies to bench alphago only")
    if args.benchmark == "mcts":
        return run_mcts(args)
    if args.benchmark == "alphago":
        return run_alphago(args)
    if args.rounds is not None or args.jit_cold:
        raise UserError(f"{'--rounds' if args.rounds is not None else '--jit-cold'} applies to bench mcts only")
    peers = _parse_peers(args.peers)
    writes = bool(args.save or args.out)
    jit = writes if args.jit is None else args.jit
    breakdown = writes if args.breakdown is None else args.breakdown

    from fuseki.bench import rules as bench_rules

    config = bench_rules.Config(size=args.size, seconds=args.seconds, repeats=args.repeats, seed=args.seed,
                                peers=peers, jit=jit, breakdown=breakdown)
    return _report(bench_rules, bench_rules.run(config, _show("rules")), canonical_command(args, peers, jit, breakdown),
                   args)
