"""Run a bot as a GTP engine on stdin/stdout, for GoGui, Sabaki, gtp2ogs or a match.

::

    fuseki gtp --bot random --seed 1

Without ``--bot`` it plays the bot measured strongest on each board size
(``fuseki.agents.by_size``: the MCTS engine at 5 s a move on 9x9, the shipped
policy networks on 19x19 and 13x13, the MCTS engine elsewhere), chosen when the
controller sets the size. A bot whose network plays one board size answers
``boardsize`` for any other with ``unacceptable size``.

Only GTP goes to standard output; anything else (warnings, tracebacks of a
failed command) goes to standard error. See ``docs/gtp.md``.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from fuseki.cli import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot",
        default=None,
        metavar="NAME",
        help="the agent that plays (default: the shipped 9x9 policy network, mcts where it is not installed; "
        "policy with --model)",
    )
    from fuseki.commands.play import add_model_argument

    add_model_argument(parser)
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random seed, for reproducible play")
    parser.add_argument(
        "--rules",
        default="chinese",
        metavar="NAME",
        help="rule set: ko, suicide and scoring; komi comes from the controller (default chinese)",
    )
    parser.add_argument("--name", default="fuseki", help="the name the engine reports (default fuseki)")
    from fuseki.commands.play import add_search_arguments

    add_search_arguments(parser)
    parser.add_argument(
        "--resign-below",
        type=float,
        default=0.1,
        metavar="P",
        help="resign when the playout win estimate falls below P (default 0.1)",
    )
    parser.add_argument("--never-resign", action="store_true", help="never resign")
    parser.add_argument(
        "--log",
        default=None,
        metavar="FILE",
        help="append one JSON line per generated move: the move and, for search bots, playouts, time, win rate",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an agent option, e.g. --set policy=light --set rave=false (repeatable; see docs/mcts.md)",
    )
    parser.add_argument(
        "--no-pass-back",
        action="store_true",
        help="do not pass after the opponent's pass even when passing wins",
    )
    add_dead_stone_arguments(parser, default="playouts", what="final_score and final_status_list")
    parser.add_argument(
        "--lag",
        type=float,
        default=1.0,
        metavar="S",
        help="under a clock, seconds kept back on every move for what the engine cannot measure: the "
        "controller's round trip, a network, a loaded machine stalling the process (default 1.0)",
    )


def add_dead_stone_arguments(parser: argparse.ArgumentParser, *, default: str, what: str, none: bool = False) -> None:
    """``--dead-stones METHOD`` and ``--dead-stones-model FILE``, shared by gtp, match and eval.

    ``none`` adds the choice ``none`` (every stone alive), which the match
    runner keeps as its default so that its counts stay as they were.
    """
    from fuseki.deadstones.scorer import METHODS

    choices = (("none",) if none else ()) + METHODS
    parser.add_argument(
        "--dead-stones",
        choices=choices,
        default=default,
        help=f"dead-stone estimate for {what}: playouts (Benson + playout ownership + seki rule) or network "
        f"(the thesis's block classifier)" + ("; none: every stone alive" if none else "") + f" (default {default})",
    )
    parser.add_argument(
        "--dead-stones-model",
        default=None,
        metavar="FILE",
        help="the classifier for --dead-stones network: a model file or name (default: the shipped one)",
    )


def dead_stone_choice(args: argparse.Namespace) -> tuple[str, str | None]:
    """(method, model) from the parsed flags, checked now: a bad model is a one-line :class:`UserError`.

    Loading the model here (it is cached per process) is what turns an
    unreadable file into an error at start-up instead of at the end of a game.
    """
    method: str = args.dead_stones
    model: str | None = args.dead_stones_model
    if model is not None and method != "network":
        raise UserError(f"--dead-stones-model applies to --dead-stones network only (got --dead-stones {method})")
    if method == "network":
        from fuseki.deadstones.scorer import final_status_estimator

        try:
            final_status_estimator(method, model=model)
        except (ValueError, OSError) as e:
            raise UserError(f"--dead-stones-model: {_first_line(e)}") from None
    return method, model


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def parse_settings(items: list[str]) -> dict[str, object]:
    """``["policy=light", "rave=false", "c=1.2"]`` -> typed agent options.

    Values are read as booleans (true/false/yes/no/on/off), integers, floats,
    ``none``, or else kept as text (:func:`fuseki.agents.base.parse_option`);
    the agent's factory checks names and ranges. A later item wins.
    """
    from fuseki.agents.base import parse_option

    out: dict[str, object] = {}
    for item in items:
        try:
            key, value = parse_option(item)
        except ValueError:
            raise UserError(f"--set expects KEY=VALUE, got {item!r}") from None
        out[key] = value
    return out


class MoveLog:
    """Wrap an agent and append one JSON line per move it chooses to a file.

    For search agents the line carries the effort behind the move (playouts,
    seconds, win rate), which a match's SGF files do not record; benchmarks
    read it to report playouts per move.
    """

    def __init__(self, agent: object, path: str) -> None:
        self.agent = agent
        self.path = path
        self.name = getattr(agent, "name", type(agent).__name__)
        self.self_terminating = getattr(agent, "self_terminating", False)
        try:
            open(path, "a", encoding="utf-8").close()
        except OSError as e:
            raise UserError(f"--log {path}: {e.strerror or e}") from None

    def select_move(self, state: object) -> object:
        import json

        move = self.agent.select_move(state)  # type: ignore[attr-defined]
        entry: dict[str, object] = {"move_number": state.move_number + 1, "move": move.gtp(state.size)}  # type: ignore[attr-defined]
        info = getattr(self.agent, "last_info", None)
        if info is not None:
            entry.update(playouts=info.playouts, seconds=round(info.seconds, 3), winrate=round(info.winrate, 4))
            entry.update(reused=info.reused_visits, nodes=info.tree_nodes)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        return move

    def __getattr__(self, name: str) -> object:  # analyze, reset, ... of the wrapped agent
        return getattr(self.agent, name)


def default_bot_on(size: int, args: argparse.Namespace) -> Any:
    """The table's bot for ``size`` (``fuseki.agents.by_size``) with this command line's seed, budget and resignation.

    ``--playouts``/``--seconds`` replace the default's budget; a bot with no
    search (the 19x19 policy network) has no budget to replace, which one line
    on stderr says rather than a GTP error on every ``genmove``.
    """
    from fuseki.agents import agent_options
    from fuseki.commands.play import budget_options, build_agent, default_bot

    bot_name, defaults = default_bot(size)
    accepted = agent_options(bot_name) or set()
    options = budget_options(defaults, args.playouts, args.seconds)
    for key in ("playouts", "seconds"):
        if key in options and key not in accepted:
            print(f"fuseki: the default bot on {size}x{size} ({bot_name}) does not search: --{key} does not apply",
                  file=sys.stderr)
            del options[key]
    if "resign_below" in accepted:
        options["resign_below"] = 0.0 if args.never_resign else args.resign_below
    return build_agent(bot_name, args.seed, **options)


def default_bots_search() -> bool:
    """Whether a bot of the default table searches on some size (then the engine warms the search kernels)."""
    from fuseki.agents.by_size import DEFAULT_BOTS, OTHER_SIZES

    return any(choice.bot in SEARCH_BOTS for choice in (*DEFAULT_BOTS.values(), OTHER_SIZES))


#: Registry agents that search with the Numba kernels (their first move compiles or loads them).
SEARCH_BOTS = frozenset({"mcts", "mcts-book", "alphago"})


def run(args: argparse.Namespace) -> int:
    from fuseki.agents.by_size import BySizeAgent
    from fuseki.commands.play import build_agent, model_options
    from fuseki.go.rules import PRESETS, Rules
    from fuseki.gtp.engine import GtpEngine

    if args.rules.lower() not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    if not args.name.strip() or any(not ch.isprintable() for ch in args.name):
        raise UserError("--name must be printable text on one line")
    if not 0.0 <= args.resign_below <= 1.0:
        raise UserError(f"--resign-below must be from 0 to 1, got {args.resign_below}")
    dead_stones, dead_stones_model = dead_stone_choice(args)
    from fuseki.agents.termination import Terminating

    # Termination (spec B5): pass back when the opponent passed and passing
    # does not lose; resign below a win estimate. Controllers such as KGS
    # and gtp2ogs expect an engine to end its games.
    from fuseki.agents import agent_options

    model = getattr(args, "model", None)
    options = parse_settings(args.set)
    bot: Any
    if args.bot is None and model is None:
        if options:
            raise UserError("--set needs --bot: without one the bot depends on the board size (docs/gtp.md)")
        # The controller sets the size later: one bot per size, each the table's (fuseki.agents.by_size).
        bot = BySizeAgent(lambda size: default_bot_on(size, args), size=19, searches=default_bots_search())
    else:
        bot_name = args.bot or "policy"
        if "resign_below" in (agent_options(bot_name) or ()) and "resign_below" not in options:
            # A search agent resigns on its own win rate; --never-resign means a threshold of 0.
            options["resign_below"] = 0.0 if args.never_resign else args.resign_below
        options.update(model_options(bot_name, model))
        # --set may give what a flag of its own gives (playouts=, seconds=, seed=); one place for each, not two.
        flags = {"playouts": args.playouts, "seconds": args.seconds, "seed": args.seed}
        for key, flag in flags.items():
            if key in options:
                if flag is not None:
                    raise UserError(f"--{key} and --set {key}=... both given; give it once")
                flags[key] = options.pop(key)
        seed = flags.pop("seed")
        bot = build_agent(bot_name, seed, **flags, **options)
    if args.log is not None:
        bot = MoveLog(bot, args.log)
    agent = Terminating(
        bot,
        resign_below=None if args.never_resign else args.resign_below,
        pass_when_ahead=not args.no_pass_back,
    )
    # Bytes in, decoded leniently; lines end only at LF (a lone CR is a control
    # character that GTP strips, not a line break that would add a reply).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="replace", newline="\n")
    from fuseki.search.timecontrol import TimeManager

    if not (0.0 <= args.lag <= 60.0):
        raise UserError(f"--lag must be from 0 to 60 seconds, got {args.lag}")
    engine = GtpEngine(
        agent,
        rules=Rules.preset(args.rules),
        name=args.name,
        stdin=stdin,
        stdout=stdout,
        dead_stones=dead_stones,
        dead_stones_model=dead_stones_model,
        time_manager=TimeManager(lag=args.lag),
    )
    engine.warm_up()  # before the first command: a clocked first move must not pay for compiling
    try:
        return engine.run()
    finally:
        stdout.flush()
