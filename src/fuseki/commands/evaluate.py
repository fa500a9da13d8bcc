"""Play two agents against each other: win rate, binomial p-value and Elo difference (book ch. 10).

``fuseki eval mcts:playouts=200 random --size 9 --games 100 --workers 2
--sgf-dir evals/mcts-random`` plays 100 games with colours alternating (A is
Black in games 1, 3, ...), one line per game on stderr, and ends with A's
record, its score with a Wilson 95 % interval, the exact two-sided binomial
test against 50 % and the Elo difference with its interval. Agents are
registered names with options (``mcts:playouts=200``), agent files or model
names, or ``gtp:COMMAND`` for outside engines (``gtp:gnugo --mode gtp --level
1``). Running the same command again resumes from the SGF folder.

``fuseki eval --round-robin A B C --games 20`` plays every pair and fits
Bradley-Terry ratings on the Elo scale: a table, and a PNG plot
(``--plot``). See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING

from fuseki.cli import UserError, add_clock_argument, add_progress_argument, int_at_least, progress_mode, seconds

if TYPE_CHECKING:
    from fuseki.arena.outcome import EvalSummary
    from fuseki.util.progress import ProgressCallback


_seconds = seconds


def _prior(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be 0 or a positive number of games, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agents",
        metavar="AGENT",
        nargs="+",
        help="two agents (A and B; more with --round-robin): NAME[:KEY=VALUE,...] of a registered agent "
        "(random, mcts:playouts=200), an agent file or model name, or gtp:COMMAND (gtp:gnugo --mode gtp --level 1)",
    )
    parser.add_argument(
        "--round-robin",
        action="store_true",
        help="every pair of the agents plays --games games; fit Bradley-Terry ratings, print a table, plot it",
    )
    parser.add_argument(
        "--games", type=int_at_least(1), default=20, help="games (per pair with --round-robin; default 20)"
    )
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--rules", default="chinese", type=str.lower, help="rule preset (default chinese)")
    parser.add_argument(
        "--workers", type=int_at_least(1), default=1, help="worker processes for the games (default 1)"
    )
    parser.add_argument(
        "--sgf-dir", metavar="DIR", default=None, help="write one SGF per game and eval.json here; resume from it"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of every in-process agent and of the scoring (default 0)"
    )
    parser.add_argument(
        "--max-moves",
        type=int_at_least(1),
        default=None,
        help="stop a game after this many moves and score it as it stands (default 3 x area)",
    )
    parser.add_argument(
        "--move-time",
        type=_seconds,
        default=10.0,
        help="seconds a gtp: engine may think per move before it forfeits (default 10)",
    )
    add_clock_argument(parser, "each gtp: engine")
    parser.add_argument(
        "--referee",
        default="ours",
        metavar="CMD",
        help="who scores finished games: 'ours' (default: area count after removing the stones our playouts "
        "judge dead) or a GTP command whose final_score decides, e.g. 'gnugo --mode gtp'",
    )
    parser.add_argument(
        "--dead-playouts",
        type=int_at_least(1),
        default=200,
        help="playouts of our dead-stone judgement with --dead-stones playouts (default 200)",
    )
    from fuseki.commands.gtp import add_dead_stone_arguments

    add_dead_stone_arguments(
        parser, default="playouts", what="our own count (--referee ours, or when the referee fails)"
    )
    parser.add_argument(
        "--terminate",
        action="store_true",
        help="let in-process agents pass back when ahead and resign hopeless games (the B5 wrapper)",
    )
    rr = parser.add_argument_group("round robin")
    rr.add_argument(
        "--plot",
        metavar="FILE.png",
        default=None,
        help="where the ratings plot goes (default DIR/ratings.png with --sgf-dir, else ratings.png)",
    )
    rr.add_argument(
        "--intervals",
        choices=("fisher", "bootstrap"),
        default="fisher",
        help="95 %% intervals from the Fisher information (default) or a bootstrap",
    )
    rr.add_argument(
        "--anchor",
        default=None,
        metavar="AGENT",
        help="the agent rated 0 (default the first; 'mean': the mean is 0)",
    )
    rr.add_argument(
        "--prior",
        type=_prior,
        default=1.0,
        help="virtual draws added to each pair so that 0 %% and 100 %% records stay finite (default 1)",
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON holding the result")
    add_progress_argument(parser)


def _settings_options(args: argparse.Namespace) -> dict[str, object]:
    referee = args.referee.strip()
    return {
        "size": args.size,
        "komi": args.komi,
        "rules": args.rules,
        "max_moves": args.max_moves,
        "seed": args.seed,
        "referee": None if referee.lower() in ("ours", "none", "") else referee,
        "dead_playouts": args.dead_playouts,
        "dead_stones": args.dead_stones,
        "dead_stones_model": args.dead_stones_model,
        "terminate": args.terminate,
        "move_time": args.move_time,
        "clock": args.clock,
    }


def _check(args: argparse.Namespace) -> dict[str, object]:
    """Every check that can fail before a game is played, as one-line user errors."""
    from fuseki.go.rules import PRESETS
    from fuseki.engines.programs import program_exists, resolve_command
    from fuseki.arena.eval_settings import EvalSettings
    from fuseki.arena.specs import check_spec, parse_agent_spec

    args.agents = [a.strip() for a in args.agents]
    if args.round_robin:
        if len(args.agents) < 2:
            raise UserError(f"--round-robin needs at least two agents, got {len(args.agents)}")
    elif len(args.agents) != 2:
        raise UserError(
            f"eval takes exactly two agents (A and B), got {len(args.agents)}; use --round-robin for more"
        )
    if args.rules not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    if not 2 <= args.size <= 25:
        raise UserError(f"--size must be from 2 to 25, got {args.size}")
    if args.sgf_dir is not None and os.path.exists(args.sgf_dir) and not os.path.isdir(args.sgf_dir):
        raise UserError(f"--sgf-dir {args.sgf_dir}: exists and is not a directory")
    # The model is read here, once, so that a bad file is an error before any game is played.
    from fuseki.commands.gtp import dead_stone_choice

    dead_stone_choice(args)
    options = _settings_options(args)
    try:
        EvalSettings(agent_a=args.agents[0], agent_b=args.agents[1], **options)  # type: ignore[arg-type]
    except ValueError as e:
        raise UserError(str(e)) from None
    if options["referee"] is not None:
        argv = resolve_command(str(options["referee"]))
        if not program_exists(argv):
            raise UserError(f"--referee: program {argv[0]!r} not found (use --referee ours for our own count)")
    for text in args.agents:
        try:
            check_spec(parse_agent_spec(text), args.size)
        except ValueError as e:
            raise UserError(str(e)) from None
    if args.round_robin and len({a.strip() for a in args.agents}) != len(args.agents):
        raise UserError("--round-robin: an agent is given twice; give each agent once")
    if args.anchor not in (None, "mean") and args.anchor not in args.agents:
        raise UserError(f"--anchor {args.anchor!r} is not one of the agents (or 'mean')")
    return options


def run(args: argparse.Namespace) -> int:
    from fuseki.arena.eval_settings import EvalSettings
    from fuseki.arena.evaluate import evaluate
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    options = _check(args)
    if args.round_robin:
        with open_renderer(progress_mode(args)) as show:
            return _run_round_robin(args, options, show)
    settings = EvalSettings(agent_a=args.agents[0], agent_b=args.agents[1], **options)  # type: ignore[arg-type]
    try:
        with open_renderer(progress_mode(args)) as show:
            summary = evaluate(settings, args.games, sgf_dir=args.sgf_dir, workers=args.workers, progress=show)
    except (RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    print(summary.describe())
    if args.sgf_dir is not None:
        print(f"games in {args.sgf_dir}")
    if args.json:
        print_json(summary.to_dict())
    return 0


def _elo_text(summary: EvalSummary) -> str:
    """``+191``, or ``<= -512`` when a 0 % or 100 % score had to be clipped."""
    elo = summary.elo or 0.0
    mark = ("<= " if elo < 0 else ">= ") if summary.elo_clipped else ""
    return f"{mark}{elo:+.0f}"


def _run_round_robin(
    args: argparse.Namespace, options: dict[str, object], progress: ProgressCallback | None
) -> int:
    from fuseki.arena.evaluate import round_robin
    from fuseki.util.atomic import write_json_atomic
    from fuseki.util.progress import print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch
    from fuseki.arena.ratings import fit_ratings, plot_ratings

    plot = args.plot or (os.path.join(args.sgf_dir, "ratings.png") if args.sgf_dir else "ratings.png")
    parent = os.path.dirname(os.path.abspath(plot))
    if args.sgf_dir is None and not os.path.isdir(parent):
        raise UserError(f"--plot {plot}: the directory {parent} does not exist")
    try:
        summaries = round_robin(
            args.agents,
            args.games,
            sgf_dir=args.sgf_dir,
            workers=args.workers,
            progress=progress,
            **options,
        )
    except (RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    anchor = None if args.anchor == "mean" else (args.anchor or args.agents[0])
    ratings = fit_ratings(
        [s.as_result() for s in summaries],
        names=args.agents,
        anchor=anchor,
        prior=args.prior,
        intervals=args.intervals,
        seed=args.seed,
    )
    for s in summaries:
        m = s.match
        print(
            f"{m.engine_a} vs {m.engine_b}: {m.a_wins}-{m.b_wins}"
            + (f"-{m.draws}" if m.draws else "")
            + f" (p = {s.p_value:.3g}, Elo {_elo_text(s)})"
        )
    print()
    print(ratings.table())
    os.makedirs(os.path.dirname(os.path.abspath(plot)), exist_ok=True)
    plot_ratings(ratings, plot, title=f"{args.size}x{args.size}, {args.games} games per pair")
    print(f"plot: {plot}")
    result = {"pairs": [s.to_dict() for s in summaries], "ratings": ratings.to_dict(), "plot": plot}
    if args.sgf_dir is not None:
        write_json_atomic(os.path.join(args.sgf_dir, "ratings.json"), result)
    if args.json:
        print_json(result)
    return 0
