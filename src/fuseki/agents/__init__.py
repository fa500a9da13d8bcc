"""Agents: what chooses moves, built by name.

Frontends use only :func:`make_agent` and the :class:`Agent` protocol, so a new
kind of agent becomes available everywhere (``fuseki play --bot NAME``,
``fuseki watch``, GTP, the web UI, ``fuseki eval``) by registering itself with
:func:`register_agent`. The built-in agents are registered below as
``"module:attr"`` strings (see :mod:`fuseki.util.registry`): importing this
package imports none of them, so listing the agents loads neither the Numba
kernels of the Go engine nor torch.

Built in (``fuseki play --help`` lists them with their options):

- ``random``: the book's bot (``dlgo.agent.naive.RandomBot``), a random legal
  move that never fills one of its own eyes;
- ``uniform``: uniform over all legal points, passing only when none is left;
- ``alphabeta``, ``uct-python``: the book's generic searches on the Go adapter;
- ``mcts``, ``mcts-book``: the Numba Monte Carlo tree search, ours and the book's;
- ``policy``: a policy network from an agent file (the book's DeepLearningAgent);
- ``rl``: a reinforcement-learning agent file (policy, Q or actor-critic);
- ``zero``: PUCT with a Zero network trained by ``fuseki zero train go``;
- ``alphago``: AlphaGo's search (PUCT with SL priors, value network and rollouts) with a model folder.
"""

from __future__ import annotations

from typing import Any

from fuseki.agents.base import (
    AGENTS,
    Agent,
    AgentFactory,
    agent_options,
    available_agents,
    make_agent,
    register_agent,
)

__all__ = [
    "AGENTS",
    "Agent",
    "AgentFactory",
    "RandomBot",
    "UniformRandomBot",
    "agent_options",
    "available_agents",
    "make_agent",
    "register_agent",
]

register_agent(
    "random",
    "fuseki.agents.random_bots:RandomBot",
    "the book's random bot: random legal moves, never fills its own eyes",
)
register_agent(
    "uniform",
    "fuseki.agents.random_bots:UniformRandomBot",
    "uniform over legal points, passes only when none is left",
)
register_agent(
    "alphabeta",
    "fuseki.agents.search_agents:AlphaBetaAgent",
    "the book's alpha-beta bot: depth-limited search on the stone-count difference (depth, seed)",
)
register_agent(
    "uct-python",
    "fuseki.agents.search_agents:UCTPythonAgent",
    "generic pure-Python UCT with random-bot rollouts (playouts, seconds, seed)",
)
register_agent(
    "mcts",
    "fuseki.agents.mcts_agent:make_mcts",
    "Monte Carlo tree search: heavy playouts, priors, RAVE, tree reuse (options playouts, seconds, policy_model)",
)
register_agent(
    "mcts-book",
    "fuseki.agents.mcts_agent:make_mcts_book",
    "the book's MCTS: UCT with c = 1.5 and random no-own-eye playouts",
)
register_agent(
    "policy",
    "fuseki.agents.deep_learning:make_policy_agent",
    "the book's DeepLearningAgent: a policy network from an agent file "
    "(--model FILE, default the shipped network of the board's size: policy-9x9, policy-19x19; "
    "options temperature, mode)",
)
register_agent(
    "rl",
    "fuseki.agents.rl_agents:make_rl_agent",
    "a reinforcement-learning agent file of kind policy, q or ac (--model FILE; options epsilon, seed)",
)
register_agent(
    "zero",
    "fuseki.agents.zero_agent:make_zero_agent",
    "AlphaZero: PUCT with a network of `fuseki zero train go` "
    "(--model FILE; options simulations or seconds, c_puct, seed, temperature_moves)",
)


register_agent(
    "alphago",
    "fuseki.agents.alphago_agent:make_alphago",
    "AlphaGo: PUCT with SL-policy priors, leaf value lam*v + (1-lam)*rollout (--model DIR of `fuseki alphago train`; "
    "options playouts, seconds, lam, c_puct, rollout, priors)",
)


def __getattr__(name: str) -> Any:
    """``from fuseki.agents import RandomBot`` still works, imported on first use.

    Imported here for start-up time: the random bots need the Go engine (Numba),
    which listing the agents must not load.
    """
    if name in ("RandomBot", "UniformRandomBot"):
        from fuseki.agents import random_bots

        return getattr(random_bots, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
