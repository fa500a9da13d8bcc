"""The :class:`Agent` protocol and the registry that builds agents by name.

Frontends (``fuseki play``, ``fuseki watch``, GTP, the web UI) know only this
module: they ask :func:`make_agent` for an agent by the name a user typed and
call ``select_move``. That keeps every frontend working unchanged when a new
kind of agent (MCTS, a policy network, ...) is registered (:data:`AGENTS`, a
lazy :class:`~fuseki.util.registry.Registry`; the built-in agents are listed
in :mod:`fuseki.agents`).

>>> {"random", "mcts", "policy"} <= set(available_agents())  # listed without importing any of them
True
>>> bot = make_agent("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fuseki.util.errors import InputError
from fuseki.util.registry import Registry

if TYPE_CHECKING:  # the rules engine pulls in Numba; type checkers need only the names
    from fuseki.go.state import GameState, Move


@runtime_checkable
class Agent(Protocol):
    """Something that chooses moves: the book's ``Agent`` (``select_move``).

    ``name`` is the registry name or another short label that frontends show
    (and write into SGF player fields).

    An agent may also define ``analyze(state) -> dict[str, Any]`` to explain
    its choice (visit counts, win rates, policy); it is optional because a
    random bot has nothing to say, so frontends test for it with
    ``hasattr(agent, "analyze")`` rather than requiring it here.
    """

    name: str

    def select_move(self, state: GameState) -> Move:
        """The move to play in ``state`` (a legal move, a pass or a resignation).

        Agents raise ``ValueError`` when asked to move in a finished game: there
        is no sensible answer, and silently passing would hide a frontend bug.
        """
        ...


AgentFactory = Callable[..., Agent]

#: Every agent by name. The built-in agents are registered in :mod:`fuseki.agents`
#: as ``"module:attr"`` strings, imported only when one is built.
AGENTS = Registry("agent")


def register_agent(name: str, factory: AgentFactory | str, help: str, *, replace: bool = False) -> None:
    """Make ``make_agent(name, **options)`` call ``factory(**options)``.

    ``factory`` is the factory itself or, better, its ``"module:attr"``
    string, which is imported only when the agent is built, so that listing
    the agents stays cheap. ``help`` is one line for listings (``fuseki play
    --help``, error messages). Registering a taken name is an error unless
    ``replace=True``: two modules silently fighting over one name would make
    ``--bot NAME`` mean different things depending on import order.
    """
    AGENTS.register(name, factory, help, replace=replace)


def available_agents() -> dict[str, str]:
    """Registered agent names and their one-line help, sorted by name (imports no agent)."""
    return AGENTS.available()


def agent_options(name: str) -> set[str] | None:
    """The option names that agent ``name``'s factory accepts (None: unknown name or any option)."""
    if name not in AGENTS:
        return None
    return AGENTS.options(name)


def make_agent(name: str, **options: Any) -> Agent:
    """Build the agent registered as ``name``, passing ``options`` to its factory.

    An unknown name or an option the factory does not take raises
    :class:`~fuseki.util.registry.RegistryError` (a ``ValueError`` and a
    :class:`~fuseki.util.errors.FusekiError`) naming what is accepted, so that
    a command line can print it as one line instead of a ``TypeError``
    traceback from deep inside.
    """
    return AGENTS.build(name, **options)


def parse_option(item: str) -> tuple[str, object]:
    """One agent option typed on a command line: ``"resign-below=none"`` -> ``("resign_below", None)``.

    The key's dashes become underscores; the value is read as a boolean
    (true/false/yes/no/on/off), ``none``, an integer, a float, or else kept as
    text; the agent's factory checks names and ranges. ``fuseki gtp --set``
    and the agent specs of ``fuseki eval`` (``mcts:playouts=200``) both read
    options this way. Raises ``ValueError`` when ``item`` is not
    ``KEY=VALUE`` with a Python name as the key (callers say what they expected).

    >>> parse_option("c=1.2"), parse_option("rave=off"), parse_option("policy=Light")
    (('c', 1.2), ('rave', False), ('policy', 'Light'))
    """
    key, sep, text = item.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise InputError(f"expected KEY=VALUE, got {item!r}")
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return key, True
    if low in ("false", "no", "off"):
        return key, False
    if low == "none":
        return key, None
    for convert in (int, float):
        try:
            return key, convert(low)
        except ValueError:
            pass
    return key, text.strip()


def board_size_problem(name: str, trained: int | Collection[int] | None, size: int) -> str:
    """``"NAME plays 9x9 only, not 13x13"``, or ``""`` when the bot can play ``size``.

    ``trained`` is the board size a network bot was trained for, or the sizes
    of a bot that holds one network per size (``None``: any size). A network
    fails on any other board, so the terminal, GTP and the web refuse such a
    board up front, in these words.

    >>> board_size_problem("policy", 9, 13)
    'policy plays 9x9 only, not 13x13'
    >>> board_size_problem("policy", (9, 19), 13)
    'policy plays 9x9 and 19x19 only, not 13x13'
    >>> board_size_problem("mcts", None, 13), board_size_problem("policy", (9, 19), 19)
    ('', '')
    """
    if trained is None:
        return ""
    sizes = sorted({int(trained)} if isinstance(trained, int) else {int(t) for t in trained})
    if size in sizes:
        return ""
    names = [f"{s}x{s}" for s in sizes]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{name} plays {listed} only, not {size}x{size}"


def agent_board_sizes(agent: object) -> tuple[int, ...] | None:
    """The board sizes ``agent`` can play, or ``None`` for any size.

    A network bot says so by ``board_size`` (its one size); a bot that holds
    one network per size by ``board_sizes``. Wrappers (the GTP engine's
    termination, a move log) pass both through, so one check sees through
    them.

    >>> class Net:
    ...     board_size = 9
    >>> agent_board_sizes(Net()), agent_board_sizes(object())
    ((9,), None)
    """
    sizes = getattr(agent, "board_sizes", None)
    if sizes:
        return tuple(sorted(int(s) for s in sizes))
    one = getattr(agent, "board_size", None)
    return None if one is None else (int(one),)
