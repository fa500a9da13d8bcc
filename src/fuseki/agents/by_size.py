"""The default bot of each board size, and one agent that plays each size's own.

Which bot is strongest depends on the board: on 9x9 the MCTS engine at 5 s a
move wins 98 of 100 games against GNU Go level 10 where the shipped 9x9
policy network wins 7; on 19x19 that engine is far weaker and the policy
network trained on strong amateurs' games is the one measured to beat GNU
Go. :data:`DEFAULT_BOTS` says which bot plays each size when the user names
none, with the measurement behind each choice, so that ``fuseki play`` and
``fuseki gtp`` choose the same way and the table, not scattered code, is
what a new measurement changes.

A GTP engine learns the size only from the controller's ``boardsize``, after
it has started, so :class:`BySizeAgent` holds one bot per size, built the
first time that size is played. The engine tells it the board of each new
game (``use_board_size``) before it asks for a move, so that its clock and
analysis see the bot that will play (the MCTS engine's search limits on
9x9, none for a network).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fuseki.agents.base import Agent
    from fuseki.go.state import GameState, Move

__all__ = [
    "DEFAULT_BOTS",
    "OTHER_SIZES",
    "BySizeAgent",
    "DefaultBot",
    "ResolvedDefault",
    "default_bot_for",
    "resolve_default",
]


@dataclass(frozen=True)
class DefaultBot:
    """A registry agent with its options, and the measurement that makes it a size's default."""

    bot: str
    options: Mapping[str, Any] = field(default_factory=dict)
    evidence: str = ""


#: The bot each board size plays when none is named: the strongest measured on that size at a budget
#: that answers in a few seconds (issue 21). A shipped model named here may be missing from a checkout:
#: the commands then fall back to :data:`OTHER_SIZES` and say why.
DEFAULT_BOTS: dict[int, DefaultBot] = {
    9: DefaultBot(
        "mcts",
        {"seconds": 5.0},
        "98 of 100 games against GNU Go level 10 at 5 s a move "
        "(benchmarks/results/policy_vs_gnugo_9x9/mcts-5s-level10.json); the shipped policy-9x9 won 7 of 100 "
        "against the same opponent (docs/training.md)",
    ),
    13: DefaultBot(
        "policy",
        {"model": "policy-any", "mode": "argmax"},
        "the network of strong amateurs' 19x19 moves with a head of one logit a point, which plays every board, "
        "never trained on 13x13, taking its most probable move, won 27 of 50 games against GNU Go level 10 "
        "(benchmarks/results/strength_vs_gnugo_13/), and 25 of 50 as players get it, with the termination rules "
        "(benchmarks/results/default_vs_gnugo_13/); no other bot has been measured against GNU Go on 13x13",
    ),
    19: DefaultBot(
        "policy",
        {"model": "policy-19x19", "mode": "argmax"},
        "the network of strong amateurs' moves (46 % of them in held-out games), with no search, taking its most "
        "probable move, won 33 of 50 games against GNU Go level 10 and 42 of 50 against level 1 "
        "(benchmarks/results/strength_vs_gnugo_19/), and 39 of 50 against level 10 as players get it, with the "
        "termination rules (benchmarks/results/default_vs_gnugo_19/); the MCTS engine alone lost both games tried "
        "against GNU Go level 10 on 19x19 (issue 21)",
    ),
}

#: Every other size: the MCTS engine, which plays any board, at its own default budget.
OTHER_SIZES = DefaultBot("mcts", {}, "the one engine here that plays every board size")


def default_bot_for(size: int) -> DefaultBot:
    """The table's bot for ``size`` (:data:`OTHER_SIZES` where the table has none)."""
    return DEFAULT_BOTS.get(size, OTHER_SIZES)


@dataclass(frozen=True)
class ResolvedDefault:
    """The bot that will really play on a size when none is named, and why it is not the table's if it is not.

    ``options`` name a shipped model by its name (what a web game records);
    ``model_path`` is the file behind it (what a command line loads).
    ``fallback`` says, in words a user reads, why the table's choice could
    not play (``None`` when it plays).
    """

    bot: str
    options: dict[str, Any]
    model_path: Path | None = None
    fallback: str | None = None


def resolve_default(size: int) -> ResolvedDefault:
    """The table's bot for ``size``, checked: its shipped network installed, readable and able to play ``size``.

    A shipped network is trained apart from the code and may be missing from
    a checkout or unreadable; the MCTS engine, which plays every size, then
    plays instead. The caller decides how to tell the user (``fuseki play``
    and ``gtp`` print one line on stderr, the web game records the bot it
    got): one check here, so the commands cannot disagree about which bot
    a size gets.
    """
    from fuseki.agents.agent_file import AgentFileError, available_models, read_agent_info

    choice = default_bot_for(size)
    model = choice.options.get("model")
    if model is None:
        return ResolvedDefault(choice.bot, dict(choice.options))
    path = available_models().get(str(model))
    if path is None:
        reason = f"the shipped policy network {model} is not installed"
    else:
        try:
            info = read_agent_info(path)
        except AgentFileError as e:
            reason = f"the shipped policy network cannot be read ({e})"
        else:
            if info.plays(size):
                return ResolvedDefault(choice.bot, dict(choice.options), model_path=path)
            reason = f"the shipped policy network {model} was trained on {info.board_size}x{info.board_size}"
    return ResolvedDefault(OTHER_SIZES.bot, dict(OTHER_SIZES.options), fallback=reason)


class BySizeAgent:
    """One bot per board size behind one agent (``fuseki gtp`` without ``--bot``).

    ``build(size)`` makes the bot for a size; it is called once per size, the
    first time a move is wanted there (building loads a network or sets up
    a search, and a controller may never play most sizes). The wrapped bot
    of the current size is :attr:`agent`, so wrappers and the GTP engine that
    look for a search inside a bot (``search_limits``) find it.
    """

    def __init__(
        self, build: Callable[[int], Agent], *, size: int = 19, name: str = "default", searches: bool = True
    ) -> None:
        self._build = build
        self._agents: dict[int, Agent] = {}
        self.size = int(size)
        self.name = name
        #: Whether some size's bot searches: the GTP engine then compiles the search kernels at start-up, before
        #: it knows the size (a first move under a clock must not pay for them).
        self.searches = bool(searches)

    def use_board_size(self, size: int) -> None:
        """A new game on ``size`` (the GTP engine calls this on ``boardsize``, ``clear_board`` and loads)."""
        self.size = int(size)

    @property
    def agent(self) -> Agent:
        """The bot of the current size (built on first use)."""
        bot = self._agents.get(self.size)
        if bot is None:
            bot = self._agents[self.size] = self._build(self.size)
        return bot

    def select_move(self, state: GameState) -> Move:
        self.use_board_size(state.size)
        return self.agent.select_move(state)

    def built(self) -> dict[int, str]:
        """The bots built so far, by size: their registry names (for logs and tests)."""
        return {size: getattr(bot, "name", type(bot).__name__) for size, bot in sorted(self._agents.items())}

    def __repr__(self) -> str:
        return f"BySizeAgent(size={self.size}, built={self.built()})"
