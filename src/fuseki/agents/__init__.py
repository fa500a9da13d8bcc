"""Agents: what chooses moves, built by name.

Frontends use only :func:`make_agent` and the :class:`Agent` protocol, so a new
kind of agent becomes available everywhere (``fuseki play --bot NAME``,
``fuseki watch``, GTP) by registering itself here with :func:`register_agent`.

Built in:

- ``random``: the book's bot (``dlgo.agent.naive.RandomBot``), a random legal
  move that never fills one of its own eyes;
- ``uniform``: uniform over all legal points, passing only when none is left.
"""

from fuseki.agents.base import Agent, AgentFactory, agent_options, available_agents, make_agent, register_agent
from fuseki.agents.random_bots import RandomBot, UniformRandomBot

__all__ = [
    "Agent",
    "AgentFactory",
    "agent_options",
    "RandomBot",
    "UniformRandomBot",
    "available_agents",
    "make_agent",
    "register_agent",
]

register_agent("random", RandomBot, "the book's random bot: random legal moves, never fills its own eyes")
register_agent("uniform", UniformRandomBot, "uniform over legal points, passes only when none is left")
from fuseki.agents import search_agents as _search_agents  # noqa: E402,F401  registers alphabeta, uct-python
from fuseki.agents.mcts_agent import make_mcts, make_mcts_book  # noqa: E402

register_agent(
    "mcts",
    make_mcts,
    "Monte Carlo tree search: heavy playouts, priors, RAVE, tree reuse (options playouts, seconds, policy_model)",
)
register_agent("mcts-book", make_mcts_book, "the book's MCTS: UCT with c = 1.5 and random no-own-eye playouts")
from fuseki.agents import deep_learning as _deep_learning  # noqa: E402,F401  registers policy
from fuseki.agents import rl_agents as _rl_agents  # noqa: E402,F401  registers rl
