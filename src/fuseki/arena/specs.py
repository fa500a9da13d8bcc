"""Agent specs: one line of text that names an agent for ``fuseki eval`` and the RL loop.

A spec is a registered agent with options (``random``,
``mcts:playouts=200,resign_below=none``), an agent file or model name
(``bots/ac_v2.safetensors``), or an outside GTP engine
(``gtp:gnugo --mode gtp --level 1``). :func:`parse_agent_spec` reads it
(one-line ``ValueError`` when it names nothing), :func:`build_agent` makes a
fresh, seeded in-process agent from it, and :func:`check_spec` fails early for
an agent that cannot play.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fuseki.agents import agent_options, available_agents, make_agent
from fuseki.agents.agent_file import available_models
from fuseki.agents.base import agent_board_sizes, board_size_problem, parse_option
from fuseki.agents.rl_agents import load_rl_agent
from fuseki.engines.programs import program_exists, resolve_command
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.agents.base import Agent

__all__ = ["AgentSpec", "build_agent", "check_spec", "parse_agent_spec"]


def _parse_options(text: str, spec: str) -> tuple[tuple[str, object], ...]:
    """``"playouts=200,resign_below=none"`` -> ``(("playouts", 200), ("resign_below", None))``."""
    out: dict[str, object] = {}
    for item in text.split(","):
        try:
            key, value = parse_option(item)
        except ValueError:
            raise InputError(
                f"agent spec {spec!r}: options must be KEY=VALUE separated by commas, got {item!r}"
            ) from None
        if key in out:
            raise InputError(f"agent spec {spec!r}: option {key!r} is given twice")
        out[key] = value
    return tuple(out.items())


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """What an agent spec names: a registered agent, an agent file or a GTP engine.

    ``kind`` is ``"registry"`` (``target`` is the agent name), ``"file"``
    (``target`` is the path or model name) or ``"gtp"`` (``target`` is the
    command line). ``options`` go to the agent's factory (not for ``gtp``).
    ``text`` is the spec as given, which is also the agent's label in tables
    and SGF files.
    """

    text: str
    kind: str
    target: str
    options: tuple[tuple[str, object], ...] = ()

    @property
    def label(self) -> str:
        return self.text

    @property
    def in_process(self) -> bool:
        return self.kind != "gtp"


def _is_agent_file(text: str) -> bool:
    """Whether ``text`` names an existing agent file (a path) or a model in the models folders."""
    if not text.strip():
        return False
    if os.path.isfile(os.path.expanduser(text)):
        return True
    if os.sep in text or (os.altsep is not None and os.altsep in text):
        return False

    return text in available_models() or text.removesuffix(".safetensors") in available_models()


def parse_agent_spec(text: str) -> AgentSpec:
    """Read an agent spec. Raises ``ValueError`` with a one-line message when it names nothing.

    - ``gtp:COMMAND``: an outside GTP engine, e.g. ``gtp:gnugo --mode gtp --level 1``;
    - ``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``: a registered agent
      (``random``, ``mcts:playouts=200``); values are read as booleans,
      ``none``, numbers or text. A registered name wins over a file of the
      same name;
    - ``PATH`` or ``PATH:KEY=VALUE,...``: an agent file (or a model name in
      the models folders), with options for its agent (``temperature=0.5``);
    - ``file:PATH``: an agent file, when a path could be mistaken for the above.

    >>> parse_agent_spec("mcts:playouts=50,rave=false").options
    (('playouts', 50), ('rave', False))
    >>> parse_agent_spec("gtp:gnugo --mode gtp").target
    'gnugo --mode gtp'
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError("an agent spec must not be empty")
    text = text.strip()
    if text.startswith("gtp:"):
        command = text[4:].strip()
        if not command:
            raise InputError(f"agent spec {text!r}: gtp: needs an engine command line, e.g. 'gtp:gnugo --mode gtp'")
        resolve_command(command)  # ValueError for unbalanced quotes
        return AgentSpec(text, "gtp", command)
    if text.startswith("file:"):
        path, options = text[5:], ()
        head, sep, tail = path.rpartition(":")
        if sep and "=" in tail and _is_agent_file(head):
            path, options = head, _parse_options(tail, text)
        if not _is_agent_file(path):
            raise InputError(f"agent spec {text!r}: no agent file {path!r}")
        return AgentSpec(text, "file", path, options)
    # A registered name wins over a file of that name in the current folder
    # (``./random`` or ``file:random`` reaches the file).
    head, sep, tail = text.partition(":")
    agents = available_agents()
    if head in agents:
        options = _parse_options(tail, text) if sep else ()
        return AgentSpec(text, "registry", head, options)
    if _is_agent_file(text):
        return AgentSpec(text, "file", text)
    fhead, fsep, ftail = text.rpartition(":")
    if fsep and "=" in ftail and _is_agent_file(fhead):
        return AgentSpec(text, "file", fhead, _parse_options(ftail, text))
    raise InputError(
        f"agent spec {text!r} names no registered agent ({', '.join(agents)}), no agent file, "
        "and is not gtp:COMMAND"
    )


def _accepts(func: Callable[..., Any], name: str) -> bool:
    """Whether ``func`` takes a keyword argument ``name`` (or any keyword)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == name and p.kind is not p.POSITIONAL_ONLY) for p in params)


def build_agent(spec: AgentSpec, seed: int | None) -> Agent:
    """The in-process agent of ``spec``, seeded with ``seed`` when its factory takes one.

    Raises ``ValueError`` (one line) for options the agent does not take.
    """
    options = dict(spec.options)
    if spec.kind == "registry":
        accepted = agent_options(spec.target)
        if seed is not None and "seed" not in options and (accepted is None or "seed" in accepted):
            options["seed"] = seed
        return make_agent(spec.target, **options)
    if spec.kind == "file":
        loader = load_rl_agent
        if seed is not None and "seed" not in options and _accepts(loader, "seed"):
            options["seed"] = seed
        try:
            return loader(spec.target, **options)
        except TypeError as e:
            raise InputError(f"agent spec {spec.text!r}: bad options for an agent file ({e})") from None
    raise InputError(f"agent spec {spec.text!r} is a GTP engine, not an in-process agent")


def check_spec(spec: AgentSpec, size: int) -> None:
    """Fail early, with one line, for an agent that cannot play: build it once, or find its program.

    Also rejects an agent whose network plays another board size.
    """
    if spec.kind == "gtp":
        argv = resolve_command(spec.target)
        if not program_exists(argv):
            raise InputError(f"agent spec {spec.text!r}: program {argv[0]!r} not found")
        return
    agent = build_agent(spec, 0)

    problem = board_size_problem(f"agent spec {spec.text!r}", agent_board_sizes(agent), size)
    if problem:
        raise InputError(problem)
