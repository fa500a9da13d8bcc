"""Repeat self-play, training and gated evaluation (book ch. 12): ``fuseki rl-loop``.

::

    fuseki rl-loop --method ac|pg|q --agent START_FILE --out DIR [--rounds R] [--games N]
        [--eval-games M] [--workers W] [--alpha 0.05] [--keep-latest] [--window K] [--seed S]
        [--lr F] [--clipnorm F] [--batch-size B] [--epochs E] [--device auto|cpu|cuda|mps]
        [--temperature T] [--eval-temperature T] [--max-moves M] [--komi K] [--rules NAME]
        [--dead-playouts P] [--json] [--quiet] [--progress MODE]

Each round the champion (at first START_FILE) plays N games against itself
(DIR/round-NNN/selfplay), a candidate is trained from it on that experience
(DIR/round-NNN/candidate.safetensors), the candidate plays the champion M
games with colours alternating (DIR/round-NNN/eval), and it becomes the
champion only when it is significantly better: one-sided binomial p < alpha
and a win rate above 50 % (``--keep-latest``: always). DIR/loop.json holds
the state; rerunning the same command after a kill resumes at the step it
reached, and a larger ``--rounds`` continues a finished loop. After each round
DIR/ratings.png is redrawn and a table goes to stderr. See docs/rl.md.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from typing import Any

from fuseki.cli import (
    UserError,
    add_progress_argument,
    float_type,
    int_at_least,
    komi,
    positive_float,
    probability,
    progress_mode,
)


_probability = probability


_alpha = float_type(lambda v: math.isfinite(v) and 0 < v < 1, "the significance level must be between 0 and 1")


_positive_float = positive_float


_nonnegative_float = float_type(lambda v: math.isfinite(v) and v >= 0, "must be a number of 0 or more")


_komi = komi


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", required=True, choices=("ac", "pg", "q"),
                        help="the learner: ac (actor-critic, ch. 12), pg (policy gradient, ch. 10), q (Q-learning, ch. 11)")
    parser.add_argument("--agent", required=True, metavar="FILE",
                        help="the starting agent file (kind ac, policy or q to match --method; "
                        "`fuseki train METHOD --init` writes an untrained one)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the loop's folder (loop.json, round-NNN/, ratings.png)")
    parser.add_argument("--rounds", type=int_at_least(1), default=1,
                        help="rounds in all, counting finished ones; raise it to continue a loop (default 1)")
    parser.add_argument("--games", type=int_at_least(1), default=5000, help="self-play games per round (default 5000, ch. 12)")
    parser.add_argument("--eval-games", type=int_at_least(1), default=100,
                        help="games of the candidate against the champion per round (default 100, ch. 12)")
    parser.add_argument("--workers", type=int_at_least(1), default=1, help="processes for self-play and evaluation (default 1)")
    parser.add_argument("--alpha", type=_alpha, default=0.05,
                        help="promote a candidate when the one-sided binomial p-value is below this (default 0.05)")
    parser.add_argument("--keep-latest", action="store_true",
                        help="always promote the candidate (AlphaZero's way; the evaluation is still played and recorded)")
    parser.add_argument("--window", type=int_at_least(1), default=1,
                        help="train on the self-play of the latest K rounds (default 1: the new games only, as the book)")
    parser.add_argument("--seed", type=int, default=0, help="every round's games and data order derive from it (default 0)")
    learner = parser.add_argument_group("the learner (defaults: the method's book settings, docs/rl.md)")
    learner.add_argument("--lr", type=_positive_float, default=None, help="learning rate")
    learner.add_argument("--clipnorm", type=_nonnegative_float, default=None, help="gradient norm limit, 0 for none")
    learner.add_argument("--batch-size", type=int_at_least(1), default=None, help="batch size")
    learner.add_argument("--epochs", type=int_at_least(1), default=None, help="passes over the experience")
    learner.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    games = parser.add_argument_group("the games")
    games.add_argument("--temperature", type=_probability, default=None,
                       help="self-play's chance of a random move (default 0 for ac and pg, 0.5 for q)")
    games.add_argument("--eval-temperature", type=_probability, default=None,
                       help="the evaluation's chance of a random move (default 0 for ac and pg, 0.05 for q: "
                       "a greedy Q agent would repeat the same two games)")
    games.add_argument("--max-moves", type=int_at_least(1), default=None,
                       help="stop a game here and score it as it stands (default 3 x the board's area)")
    games.add_argument("--komi", type=_komi, default=None, help="default: the rule set's (7.5)")
    games.add_argument("--rules", default="chinese", type=str.lower, help="rule set (default chinese)")
    games.add_argument("--dead-playouts", type=int_at_least(1), default=200,
                       help="playouts of the evaluation's dead-stone judgement (default 200)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="end with the whole state as one JSON object (last line)")
    add_progress_argument(parser)


def _settings(args: argparse.Namespace) -> Any:
    from fuseki.go.rules import PRESETS
    from fuseki.train.rl_loop import LoopSettings

    if args.rules not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    return LoopSettings(
        method=args.method,
        agent=args.agent,
        games=args.games,
        eval_games=args.eval_games,
        alpha=args.alpha,
        keep_latest=args.keep_latest,
        window=args.window,
        seed=args.seed,
        lr=args.lr,
        clipnorm=args.clipnorm,
        batch_size=args.batch_size,
        epochs=args.epochs,
        temperature=args.temperature,
        eval_temperature=args.eval_temperature,
        max_moves=args.max_moves,
        komi=args.komi,
        rules=args.rules,
        dead_playouts=args.dead_playouts,
    )


def run(args: argparse.Namespace) -> int:
    from fuseki.train.rl_loop import format_table, run_loop
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    settings = _settings(args)
    command = shlex.join(["fuseki", "rl-loop", *sys.argv[2:]]) if sys.argv[1:2] == ["rl-loop"] else None
    try:
        with open_renderer(progress_mode(args)) as show:
            state = run_loop(settings, args.out, args.rounds, workers=args.workers, device=args.device, progress=show,
                             command=command)
    except FloatingPointError as e:  # the loss diverged: the same settings would diverge again
        raise UserError(f"training diverged: {e}; the loop's settings are fixed, so use a new --out") from None
    except (RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    print(format_table(state))
    done = [r for r in state["rounds"] if r["step"] == "done"]
    if done:
        print(f"ratings plot: {args.out}/ratings.png")
    if args.json:
        print_json(state, sort_keys=True)
    return 0
