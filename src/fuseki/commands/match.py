"""Play a match between two GTP engines, with SGF files, forfeits and a win rate.

``fuseki match "gnugo --mode gtp --level 1" "python -m fuseki gtp --bot random"
--size 9 --games 10 --sgf-dir games/`` plays 10 games with alternating colours
(A is Black in games 1, 3, ...), writes ``games/game_0001.sgf`` ... and prints
one line per game on stderr. It ends with A's wins, B's wins, draws and A's win
rate with a Wilson 95 % interval (a draw counts half a win). An engine that
crashes, hangs or answers nonsense loses that game by forfeit and is restarted.
Running the same command again resumes from the SGF folder. See docs/match.md.
"""

from __future__ import annotations

import argparse

from fuseki.cli import UserError, add_clock_argument, add_progress_argument, int_at_least, progress_mode, seconds


_seconds = seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "engine_a",
        metavar="CMD_A",
        help='engine A as one command line, e.g. "gnugo --mode gtp"; {seed} in it is replaced by a '
        "seed of its own for each game (the engine is then restarted each game)",
    )
    parser.add_argument(
        "engine_b", metavar="CMD_B", help="engine B as one command line"
    )
    parser.add_argument(
        "--games", type=int_at_least(0), default=2, help="number of games (default 2)"
    )
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument(
        "--workers",
        type=int_at_least(1),
        default=1,
        help="games played at a time, each with its own engines and referee (default 1); give each a core "
        "when a budget is in seconds. With {seed} in both commands the games do not depend on it",
    )
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--handicap",
        type=int_at_least(0),
        default=0,
        help="fixed handicap stones for Black, sent to both engines (default 0)",
    )
    parser.add_argument(
        "--move-time",
        type=_seconds,
        default=10.0,
        help="seconds an engine may think per move before it forfeits (default 10)",
    )
    add_clock_argument(parser)
    parser.add_argument(
        "--time-control",
        default=None,
        metavar="SPEC",
        help="a real clock, kept as a server keeps it: 'M B S' (GTP time_settings; '0 5 1' is 5 s a move), "
        "'absolute M', 'canadian M B S' or 'byoyomi M P N'; time_left goes to the engine before each move, "
        "and a move that ends after the flag fell loses on time (B+T/W+T). --move-time is then unused",
    )
    parser.add_argument(
        "--max-moves",
        type=int_at_least(0),
        default=None,
        help="stop a game after this many moves and score it (default 3 x area)",
    )
    parser.add_argument(
        "--rules",
        default="chinese",
        help="rule preset our legality check uses (default chinese)",
    )
    parser.add_argument(
        "--referee",
        default="gnugo --mode gtp",
        metavar="CMD",
        help="engine whose final_score scores finished games (default GNU Go, with --chinese-rules "
        "under area scoring); 'none': our own area count (dead stones by --dead-stones)",
    )
    from fuseki.commands.gtp import add_dead_stone_arguments

    add_dead_stone_arguments(
        parser, default="none", none=True, what="our own count (--referee none, or when the referee fails)"
    )
    parser.add_argument(
        "--sgf-dir",
        metavar="DIR",
        default=None,
        help="write one SGF per game here; resume from it",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="recorded with the match settings; the root of the per-game seeds that fill {seed} "
        "in an engine's command (default 0)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="end with one line of JSON holding the result",
    )
    add_progress_argument(parser)


def run(args: argparse.Namespace) -> int:
    from fuseki.arena.match import Match, MatchSettings
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    from fuseki.commands.gtp import dead_stone_choice

    dead_stone_choice(args)  # a bad --dead-stones-model: one line, before any engine starts
    referee = None if args.referee.strip().lower() in ("none", "") else args.referee
    try:
        time_control = None
        if args.time_control is not None:
            from fuseki.arena.clock import format_time_control, parse_time_control

            time_control = format_time_control(parse_time_control(args.time_control))
        settings = MatchSettings(
            engine_a=args.engine_a,
            engine_b=args.engine_b,
            size=args.size,
            komi=args.komi,
            handicap=args.handicap,
            move_time=args.move_time,
            max_moves=args.max_moves,
            rules=args.rules.lower(),
            referee=referee,
            seed=args.seed,
            dead_stones=args.dead_stones,
            dead_stones_model=args.dead_stones_model,
            clock=args.clock,
            time_control=time_control,
        )
        match = Match(settings, args.sgf_dir)
        match.check()
        match.prepare_dir()  # another match's folder, or one in use: one line, before any engine starts
    except (ValueError, FileNotFoundError, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    try:
        with open_renderer(progress_mode(args)) as show:
            match.progress = show or (lambda event: None)
            summary = match.run(args.games, workers=args.workers)
    except (RunMismatch, RunFolderBusy) as e:  # a run that started on the folder since prepare_dir
        raise UserError(str(e)) from None
    print(summary.describe())
    if args.json:
        print_json(summary.to_dict())
    return 0
