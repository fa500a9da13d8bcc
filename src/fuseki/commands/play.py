"""Play a bot in the terminal: you type moves, the bot answers.

::

    fuseki play --size 9 --bot random --color black

Without ``--bot`` the opponent is the bot measured strongest on the board's
size (:func:`default_bot`: the MCTS engine at 5 s a move on 9x9, the shipped
policy networks on 19x19 and 13x13, the MCTS engine elsewhere).

Type a point in GTP coordinates (``D4`` or ``d4``; columns skip the letter I),
or ``pass``, ``undo`` (takes back your last move and the bot's reply),
``resign``, ``help`` or ``quit``. A mistyped or illegal move is explained in
one line and asked again; end of input ends the game cleanly.

The game ends after two passes in a row or a resignation and is counted by the
chosen rules. For now every stone left on the board counts as alive: remove
dead groups by capturing them before you pass.

The game setup helpers here (:func:`new_game`, :func:`result_report`,
:func:`save_game`) are shared with ``fuseki watch``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from fuseki.cli import UserError

if TYPE_CHECKING:  # the engine imports Numba; commands import it inside run()
    from fuseki.agents import Agent
    from fuseki.go.state import Color, GameState

#: The rule sets the help text offers; any preset name of ``Rules.preset`` works.
RULE_SETS = ("chinese", "japanese", "tromp-taylor", "book")

#: Komi in handicap games unless ``--komi`` says otherwise: White already got
#: the first move's worth back in stones, so only the half point that prevents
#: draws is left (the usual convention on servers and in GTP tools).
HANDICAP_KOMI = 0.5

DEAD_STONE_NOTE = (
    "Note: every stone on the board was counted as alive (no dead-stone removal yet), "
    "so a dead group that was not captured still counts for its owner."
)

COMMAND_HELP = """\
Commands:
  D4, d4     play on that point (GTP coordinates: columns A-Z without I, rows from the bottom)
  pass       pass; two passes in a row end the game
  undo       take back your last move and the bot's reply
  resign     give up the game
  help       show this list
  quit       stop without finishing the game (also: exit)"""


# ---- options shared with `fuseki watch` --------------------------------


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags that set up the game: ``--size --komi --rules --handicap --seed --sgf``."""
    parser.add_argument("--size", type=int, default=9, metavar="N", help="board size, 2 to 25 (default 9)")
    parser.add_argument(
        "--komi",
        type=float,
        default=None,
        metavar="K",
        help=f"points given to White, a multiple of 0.5 (default: the rule set's; {HANDICAP_KOMI} with handicap)",
    )
    parser.add_argument(
        "--rules",
        default="chinese",
        type=str.lower,
        metavar="NAME",
        help=f"rule set: {', '.join(RULE_SETS)} (default chinese)",
    )
    parser.add_argument(
        "--handicap",
        type=int,
        default=0,
        metavar="N",
        help="fixed handicap stones for Black (2 to 9 on odd boards from 9x9, 2 to 4 on 7x7 and even boards)",
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random seed, for a reproducible game")
    parser.add_argument(
        "--sgf", default=None, metavar="FILE", help="save the game as SGF when it ends (or is stopped)"
    )


def new_game(size: int, rules_name: str, komi: float | None, handicap: int) -> GameState:
    """The starting position from validated flag values.

    Every check names its flag, because the message is all the user sees
    (the CLI prints a ``UserError`` as one line).
    """
    from fuseki.go.handicap import max_fixed_handicap
    from fuseki.go.rules import PRESETS, Rules
    from fuseki.go.state import GameState

    if not 2 <= size <= 25:
        raise UserError(f"--size must be from 2 to 25, got {size}")
    if rules_name not in PRESETS:
        raise UserError(f"--rules: unknown rule set {rules_name!r}; known: {', '.join(sorted(PRESETS))}")
    rules = Rules.preset(rules_name)
    if handicap:
        limit = max_fixed_handicap(size)
        if limit == 0:
            raise UserError(f"--handicap: no handicap stones can be placed on {size}x{size} (7x7 or larger needed)")
        if not 2 <= handicap <= limit:
            raise UserError(f"--handicap must be 0 or from 2 to {limit} on {size}x{size}, got {handicap}")
    if komi is None:
        komi = HANDICAP_KOMI if handicap else rules.komi
    if not math.isfinite(komi) or round(komi * 2) != komi * 2 or abs(komi) > 1000:
        raise UserError(f"--komi must be a multiple of 0.5 (such as 6.5 or 7), got {komi:g}")
    return GameState.new(size, rules, komi=komi, handicap=handicap)


def check_sgf_path(path: str | None) -> None:
    """Fail before the game, not after it, when the SGF file cannot be written there."""
    if path is None:
        return
    if os.path.isdir(path):
        raise UserError(f"--sgf {path}: is a directory, not a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UserError(f"--sgf {path}: the directory {parent} does not exist")


def build_agent(name: str, seed: int | None, *, lenient: bool = False, **limits: object) -> Agent:
    """``make_agent`` with the seed and the search limits passed only when given.

    Agents that have no randomness or no search need not accept ``seed``,
    ``playouts`` or ``seconds``, so an option is left out unless the user
    set it; setting one that the agent does not take is a clear error, unless
    ``lenient`` (``fuseki watch``: a limit meant for one of two bots).
    """
    from fuseki.agents import agent_options, make_agent

    options = {} if seed is None else {"seed": seed}
    options.update({k: v for k, v in limits.items() if v is not None})
    accepted = agent_options(name) if lenient else None
    if accepted is not None:
        options = {k: v for k, v in options.items() if k in accepted or k == "seed"}
    try:
        return make_agent(name, **options)
    except ValueError as e:
        raise UserError(str(e)) from None


def add_model_argument(parser: argparse.ArgumentParser, bot_flag: str = "--bot") -> None:
    """``--model FILE``: an agent file (or a model name) for the bot that takes one (``policy``)."""
    parser.add_argument(
        "--model",
        default=None,
        metavar="FILE",
        help=f"an agent file (a path, or a model name) for the policy bot; {bot_flag} then defaults to policy",
    )


def model_options(bot: str, model: str | None) -> dict[str, object]:
    """``{"model": model}`` for a bot that takes a model file, ``{}`` without ``--model``.

    ``--model`` with a bot that takes no model is a clear error rather than
    a file silently ignored.
    """
    if model is None:
        return {}
    from fuseki.agents import agent_options

    accepted = agent_options(bot)
    if accepted is not None and "model" not in accepted:
        raise UserError(f"--model: agent {bot!r} takes no model file (use --bot policy, or leave --bot out)")
    return {"model": model}


def default_bot(size: int) -> tuple[str, dict[str, object]]:
    """The bot and its options to play on ``size`` when neither ``--bot`` nor ``--model`` is given.

    The table :data:`~fuseki.agents.by_size.DEFAULT_BOTS` names the bot
    measured strongest on each size (the MCTS engine at 5 s a move on 9x9,
    the shipped policy networks on 19x19 and 13x13, the MCTS engine elsewhere).
    A shipped network is trained apart from the code and may be missing or
    unreadable; the MCTS engine, which plays any size, then plays instead,
    announced in one line on stderr so that a user knows why.
    """
    from fuseki.agents.by_size import resolve_default

    chosen = resolve_default(size)
    if chosen.fallback is not None:
        print(f"fuseki: {chosen.fallback}; playing {chosen.bot} on {size}x{size}", file=sys.stderr)
    options = dict(chosen.options)
    if chosen.model_path is not None:
        options["model"] = str(chosen.model_path)
    return chosen.bot, options


def budget_options(options: dict[str, object], playouts: int | None, seconds: float | None) -> dict[str, object]:
    """A default bot's options with the user's ``--playouts``/``--seconds``: a budget given replaces the default's.

    >>> budget_options({"seconds": 5.0}, 1000, None)
    {'playouts': 1000}
    >>> budget_options({"seconds": 5.0}, None, None)
    {'seconds': 5.0}
    """
    if playouts is None and seconds is None:
        return dict(options)
    out = {k: v for k, v in options.items() if k not in ("playouts", "seconds")}
    out.update({k: v for k, v in (("playouts", playouts), ("seconds", seconds)) if v is not None})
    return out


def ends_its_games(bot: Agent) -> Agent:
    """A policy network that passes back when the game is over.

    A network trained on human games has no pass move (human games end by
    resignation or agreement), so it only passes when no other move is left:
    after the player's pass it would play on into its own territory for a
    hundred moves on 19x19. Wrapped like the web's bots (``settled_only``),
    it passes back when the player passed, the board is settled and it is
    not behind, and it never resigns (its win estimate is random playouts).
    """
    from fuseki.agents.termination import Terminating

    return Terminating(bot, resign_below=None, settled_only=True)  # type: ignore[return-value]


def check_board_size(agent: Agent, size: int) -> None:
    """A bot whose networks were trained for some board sizes (``agent_board_sizes``) cannot play another."""
    from fuseki.agents.base import agent_board_sizes, board_size_problem

    sizes = agent_board_sizes(agent)
    problem = board_size_problem(agent.name, sizes, size)
    if problem:
        assert sizes is not None
        choices = " or ".join(f"--size {s}" for s in sizes)
        raise UserError(f"--size {size}: {problem} (its model's board); use {choices}")


def player_label(color: Color, names: dict[Color, str]) -> str:
    """``"Black (random)"``: the colour, then who plays it."""
    return f"{color.name.capitalize()} ({names[color]})"


def status_line(state: GameState) -> str:
    """Captures, komi and rules: what the board drawing does not show."""
    from fuseki.go.state import Color

    return (
        f"Captures: Black {state.captures(Color.BLACK)}, White {state.captures(Color.WHITE)}."
        f"  Komi {state.rules.komi:g}."
    )


def describe_move(state: GameState, names: dict[Color, str]) -> str:
    """``"Move 12: White (random) plays D4."`` for the move that led to ``state``."""
    move = state.move_played()
    who = player_label(state.parent.next_player, names)  # type: ignore[union-attr]
    if move.is_resign:
        return f"{who} resigns."
    if move.is_pass:
        return f"Move {state.move_number}: {who} passes."
    return f"Move {state.move_number}: {who} plays {move.gtp(state.size)}."


def result_report(state: GameState, names: dict[Color, str], rules_name: str) -> str:
    """The end-of-game text: why it ended, the count, the result, the caveat."""
    from fuseki.go.rules import Scoring
    from fuseki.go.state import Color

    lines = []
    if state.resigned is not None:
        loser = state.resigned
        lines.append(f"Game over: {player_label(loser, names)} resigned.")
        lines.append(f"Result: {state.result()} ({loser.other.name.capitalize()} wins by resignation)")
        return "\n".join(lines)
    score = state.score()
    if state.is_over():
        lines.append("Game over: both players passed.")
    else:
        lines.append("The game was not finished; counting the board as it stands.")
    how = "area: stones and surrounded points" if score.scoring is Scoring.AREA else "territory and prisoners"
    lines.append(f"Score by {rules_name} rules ({how}), komi {state.rules.komi:g}:")
    lines.append(f"  {player_label(Color.BLACK, names)} {score.black:g}, {player_label(Color.WHITE, names)} {score.white:g}")
    winner = score.winner
    verdict = "a draw" if winner is None else f"{winner.name.capitalize()} wins by {abs(score.margin):g}"
    label = "Result" if state.is_over() else "Result if it ended now"
    lines.append(f"{label}: {score.result} ({verdict})")
    lines.append(DEAD_STONE_NOTE)
    return "\n".join(lines)


def save_game(path: str, state: GameState, players: dict[Color, str], comment: str | None = None) -> None:
    """Write the game to ``path`` as SGF (atomically, via ``fuseki.go.sgf``).

    ``players`` gives the ``PB``/``PW`` names. An unfinished game is saved without a result, so that no reader mistakes
    it for a finished one; ``comment`` goes on its last move to say why. The
    ``RU`` property is left to ``fuseki.go.sgf``, which writes the standard
    name of the rule set (``Chinese``, ``Japanese``...) rather than our flag.
    """
    import datetime

    from fuseki.go.sgf import game_to_sgf, save_sgf
    from fuseki.go.state import Color

    moves = len(state.moves())
    comments = {moves: comment} if comment and moves else None
    data = game_to_sgf(
        state,
        black=players[Color.BLACK],
        white=players[Color.WHITE],
        result=state.result() if state.is_over() else None,
        comments=comments,
        date=datetime.date.today().isoformat(),
    )
    save_sgf(path, data)


# ---- the command -------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot",
        default=None,
        metavar="NAME",
        help="the opponent: policy (a network; without --model the shipped 9x9 one), mcts, "
        "random (the book's bot, never fills its own eyes), uniform, ... "
        "(default: the bot measured strongest on the board's size, fuseki/agents/by_size.py; policy with --model)",
    )
    add_model_argument(parser)
    parser.add_argument(
        "--color",
        default="black",
        type=str.lower,
        choices=("black", "white"),
        help="the colour you play (default black; with handicap Black has the stones and White moves first)",
    )
    add_search_arguments(parser)
    add_game_arguments(parser)


def positive_float(text: str) -> float:
    """An argparse ``type`` for a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    """``--playouts`` and ``--seconds``: the search limits of bots that search (mcts)."""
    from fuseki.cli import int_at_least

    parser.add_argument(
        "--playouts", type=int_at_least(1), default=None, metavar="N", help="search bots: simulations per move"
    )
    parser.add_argument(
        "--seconds", type=positive_float, default=None, metavar="S", help="search bots: thinking time per move"
    )


def run(args: argparse.Namespace) -> int:
    check_sgf_path(args.sgf)
    state = new_game(args.size, args.rules, args.komi, args.handicap)
    model = getattr(args, "model", None)
    if args.bot is None and model is None:
        bot_name, defaults = default_bot(args.size)
        bot = build_agent(bot_name, args.seed, **budget_options(defaults, args.playouts, args.seconds))
    else:
        bot_name = args.bot or "policy"
        extra = model_options(bot_name, model)
        bot = build_agent(bot_name, args.seed, playouts=args.playouts, seconds=args.seconds, **extra)
    check_board_size(bot, args.size)
    if bot_name == "policy":
        bot = ends_its_games(bot)
    session = TerminalGame(state, bot, human=args.color, rules_name=args.rules)
    try:
        session.play()
    finally:  # Ctrl-C or a crash mid-game still keeps what was played
        if args.sgf is not None and session.state.parent is not None:  # any move, resignation included
            comment = None if session.state.is_over() else "game stopped before the end"
            players = {session.human: "Human", session.human.other: f"fuseki {bot.name}"}
            save_game(args.sgf, session.state, players, comment)
            print(f"Saved the game to {args.sgf}.", file=session.out)
    return 0


class TerminalGame:
    """One human-vs-bot game on a text terminal.

    The input and output streams are parameters so that tests (and other
    frontends) can drive a game without a terminal; by default it reads with
    :func:`input` and writes to ``sys.stdout``.
    """

    def __init__(
        self,
        state: GameState,
        bot: Agent,
        *,
        human: str = "black",
        rules_name: str = "",
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        from fuseki.go.state import Color

        self.state = state
        self.bot = bot
        self.human = Color.parse(human)
        self.rules_name = rules_name or "custom"
        self.names = {self.human: "you", self.human.other: bot.name}
        self.out = out if out is not None else sys.stdout
        self._read = read if read is not None else input
        # Echo typed lines when input is not a terminal, so that a transcript
        # of a piped game shows the moves next to the prompts.
        self._echo = read is None and not isatty(sys.stdin)
        #: States in which the human moved, newest last: ``undo`` goes back to one.
        self._human_turns: list[GameState] = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def play(self) -> None:
        """Play until the game ends, the user quits or the input runs out."""
        n = self.state.size
        self.say(
            f"You play {self.human.name.capitalize()} ({'X' if self.human.value == 1 else 'O'}) "
            f"against {self.bot.name} on {n}x{n}, {self.rules_name} rules, komi {self.state.rules.komi:g}."
        )
        self.say("Type a point such as D4, or pass, undo, resign, help, quit.")
        if self.state.handicap:
            self.say(f"Black has {self.state.handicap} handicap stones; White moves first.")
        show_board = True
        while not self.state.is_over():
            if self.state.next_player != self.human:
                self.state = self.state.play(self.bot.select_move(self.state))
                self.say()
                self.say(describe_move(self.state, self.names))
                if self.state.last_move is not None and self.state.last_move.is_pass and not self.state.is_over():
                    self.say("(Pass too to end the game.)")
                show_board = True
                continue
            if show_board:
                self.say()
                self.say(self.state.to_ascii())
                self.say(status_line(self.state))
                show_board = False
            try:
                line = self._read(f"{self.human.name.capitalize()} to play> ")
            except EOFError:
                self.say()
                self.say("End of input: the game was stopped before the end.")
                return
            if self._echo:
                self.say(line)
            outcome = self.handle(line)
            if outcome == "quit":
                self.say("Game stopped before the end.")
                return
            show_board = outcome == "moved"
        self.say()
        if self.state.last_move is not None and not self.state.last_move.is_resign:
            self.say(self.state.to_ascii())
        self.say(result_report(self.state, self.names, self.rules_name))

    def handle(self, line: str) -> str:
        """Act on one typed line; return ``"moved"``, ``"quit"`` or ``"again"``."""
        from fuseki.go.coords import CoordinateError, from_gtp
        from fuseki.go.state import Move

        text = line.strip()
        word = text.lower()
        if not text:
            return "again"
        if word in ("help", "h", "?"):
            self.say(COMMAND_HELP)
            return "again"
        if word in ("quit", "exit", "q"):
            return "quit"
        if word == "undo":
            if not self._human_turns:
                self.say("Nothing to undo: you have not moved yet.")
                return "again"
            self.state = self._human_turns.pop()
            self.say("Took back your last move and the bot's reply.")
            return "moved"
        if word == "resign":
            move = Move.resign()
        elif word == "pass":
            move = Move.pass_turn()
        else:
            try:
                point = from_gtp(text, self.state.size)
            except CoordinateError:
                self.say(self._bad_point(text))
                return "again"
            assert point is not None  # "pass" was handled above
            move = Move.play(point)
        reason = self.state.why_illegal(move)
        if reason is not None:
            self.say(_illegal_message(move.gtp(self.state.size), reason))
            return "again"
        self._human_turns.append(self.state)
        self.state = self.state.play(move)
        return "moved"

    def _bad_point(self, text: str) -> str:
        """Why ``text`` is not a point here, in words a player understands."""
        from fuseki.go.coords import GTP_COLUMNS

        n = self.state.size
        cols = GTP_COLUMNS[:n]
        where = f"columns {cols[0]}-{cols[-1]}, rows 1-{n}"
        t = text.strip().upper()
        if len(t) >= 2 and t[1:].isdigit() and t[0].isalpha():
            if t[0] == "I":
                return f"{text!r}: Go coordinates skip the letter I ({where})."
            return f"{text!r} is off the {n}x{n} board ({where})."
        return f"{text!r} is not a move or a command: type a point such as D4, or pass, undo, resign, help, quit."


def _illegal_message(vertex: str, reason: str) -> str:
    """One line per :class:`IllegalMoveError` reason."""
    messages = {
        "occupied": f"{vertex} is already occupied.",
        "suicide": f"{vertex} would be suicide: the stone would have no liberties.",
        "ko": f"{vertex} retakes the ko at once; play elsewhere first.",
        "superko": f"{vertex} would repeat an earlier position (superko).",
        "off board": f"{vertex} is off the board.",
        "game over": "The game is over.",
    }
    return messages.get(reason, f"{vertex} is illegal: {reason}.")


def isatty(stream: object) -> bool:
    """``stream.isatty()``, False for streams that lack it (test doubles) or are closed."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # closed or replaced streams
        return False
