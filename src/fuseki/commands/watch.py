"""Watch two bots play each other in the terminal, the board redrawn after each move.

::

    fuseki watch --size 9 --black random --white uniform --delay 0.2

On a terminal the screen is cleared before each drawing, so the board stays
in place; when the output goes to a file or a pipe every position is printed
one after another (no control codes in a log). ``--moves-cap`` stops games
that would go on for very long: the ``uniform`` bot fills its own eyes and
rarely lets a game end by itself.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import TYPE_CHECKING, TextIO

from fuseki.cli import UserError
from fuseki.commands.play import (
    add_game_arguments,
    add_model_argument,
    add_search_arguments,
    build_agent,
    check_board_size,
    check_sgf_path,
    describe_move,
    isatty,
    new_game,
    result_report,
    save_game,
    status_line,
)

if TYPE_CHECKING:
    from fuseki.go.state import GameState

#: Home the cursor and clear the screen (ANSI): redraw in place on a terminal.
CLEAR_SCREEN = "\x1b[H\x1b[2J"

#: Default move cap as a multiple of the board area. The book's random bots end
#: a game in about 1.4 x area moves (19x19: about 460), and practically always
#: within 2 x area; 4 x area stops only the games that would not end.
DEFAULT_CAP_FACTOR = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--black", default=None, metavar="NAME", help="the bot playing Black (default random; policy with --model)"
    )
    parser.add_argument(
        "--white", default=None, metavar="NAME", help="the bot playing White (default random; policy with --model)"
    )
    add_model_argument(parser, "--black/--white")
    parser.add_argument(
        "--delay", type=float, default=0.5, metavar="SECONDS", help="pause between moves (default 0.5; 0 for none)"
    )
    parser.add_argument(
        "--moves-cap",
        type=int,
        default=None,
        metavar="N",
        help=f"stop after N moves if the game has not ended (default {DEFAULT_CAP_FACTOR} x size x size)",
    )
    add_search_arguments(parser)
    add_game_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from fuseki.agents import agent_options
    from fuseki.go.state import Color

    if not math.isfinite(args.delay) or args.delay < 0:
        raise UserError(f"--delay must be 0 or a positive number of seconds, got {args.delay:g}")
    if args.moves_cap is not None and args.moves_cap < 1:
        raise UserError(f"--moves-cap must be at least 1, got {args.moves_cap}")
    check_sgf_path(args.sgf)
    state = new_game(args.size, args.rules, args.komi, args.handicap)
    cap = args.moves_cap if args.moves_cap is not None else DEFAULT_CAP_FACTOR * args.size * args.size
    # Two different seeds: the same bot on both sides with one seed would
    # mirror its own random choices.
    # --playouts/--seconds go to whichever of the two bots searches.
    limits: dict[str, object] = {"playouts": args.playouts, "seconds": args.seconds}
    # --model goes to each side that takes a model file (an unset side is then the policy bot).
    model = getattr(args, "model", None)
    default = "policy" if model is not None else "random"
    black_name, white_name = args.black or default, args.white or default
    if model is not None:
        options = [agent_options(name) for name in (black_name, white_name)]
        if all(accepted is not None and "model" not in accepted for accepted in options):
            raise UserError(f"--model: neither {black_name!r} nor {white_name!r} takes a model file (use policy)")
        limits["model"] = model
    black = build_agent(black_name, None if args.seed is None else args.seed, lenient=True, **limits)
    white = build_agent(white_name, None if args.seed is None else args.seed + 1, lenient=True, **limits)
    check_board_size(black, args.size)
    check_board_size(white, args.size)
    bots = {Color.BLACK: black, Color.WHITE: white}
    names = {Color.BLACK: black.name, Color.WHITE: white.name}

    out = sys.stdout
    tty = isatty(out)
    n = args.size
    title = f"{black.name} (Black) vs {white.name} (White) on {n}x{n}, {args.rules} rules, komi {state.rules.komi:g}"
    _draw(out, tty, title, "Start.", state)
    played = 0
    try:
        while not state.is_over() and played < cap:
            if args.delay:
                time.sleep(args.delay)
            state = state.play(bots[state.next_player].select_move(state))
            played += 1
            _draw(out, tty, title, describe_move(state, names), state)
    finally:  # Ctrl-C keeps what was played
        stopped = not state.is_over()
        if args.sgf is not None and played:
            players = {color: f"fuseki {name}" for color, name in names.items()}
            save_game(args.sgf, state, players, f"stopped after {played} moves" if stopped else None)
    print(file=out)
    if stopped:
        print(f"Stopped after {played} moves (--moves-cap {cap}).", file=out)
    print(result_report(state, names, args.rules), file=out)
    if args.sgf is not None and played:
        print(f"Saved the game to {args.sgf}.", file=out)
    return 0


def _draw(out: TextIO, tty: bool, title: str, headline: str, state: GameState) -> None:
    """One frame: title, the last move, the board, captures."""
    frame = f"{title}\n{headline}\n{state.to_ascii()}\n{status_line(state)}"
    if tty:
        out.write(CLEAR_SCREEN + frame + "\n")
    else:
        out.write(frame + "\n\n")
    out.flush()
