"""The registry of network architectures by name.

``build_network(name, in_planes=..., size=..., num_moves=..., **options)``
returns a ``torch.nn.Module`` that maps a float tensor of shape
``(batch, in_planes, size, size)`` to move logits of shape
``(batch, num_moves)`` (policy networks) — the contract every trainer and
agent relies on. Architectures register a factory with the same keyword
arguments; options that an architecture does not take are an error, so a
stored agent file cannot silently rebuild a different network.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["register_network", "build_network", "available_networks"]

NetworkFactory = Callable[..., Any]

_REGISTRY: dict[str, tuple[NetworkFactory, str]] = {}


def register_network(name: str, factory: NetworkFactory, help: str) -> None:
    """Make ``build_network(name, ...)`` call ``factory(in_planes=, size=, num_moves=, **options)``."""
    if name in _REGISTRY:
        raise ValueError(f"a network named {name!r} is already registered")
    _REGISTRY[name] = (factory, help)


def available_networks() -> dict[str, str]:
    """Registered architecture names and one-line help, sorted by name."""
    _load_builtin()
    return {name: _REGISTRY[name][1] for name in sorted(_REGISTRY)}


def build_network(name: str, *, in_planes: int, size: int, num_moves: int, **options: Any) -> Any:
    """Build architecture ``name``; unknown names or options raise ``ValueError`` naming what is accepted."""
    _load_builtin()
    entry = _REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown network {name!r}; known networks: {', '.join(sorted(_REGISTRY)) or '(none)'}")
    factory = entry[0]
    try:
        inspect.signature(factory).bind(in_planes=in_planes, size=size, num_moves=num_moves, **options)
    except TypeError as e:
        raise ValueError(f"network {name!r} cannot be built with {sorted(options)}: {e}") from None
    return factory(in_planes=in_planes, size=size, num_moves=num_moves, **options)


_LOADED = False


def _load_builtin() -> None:
    """Import the built-in architectures (and torch) on first use."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for module in ("fuseki.nets.book", "fuseki.nets.residual", "fuseki.nets.rl"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name not in (module,):  # a real missing dependency (torch), not a module not written yet
                raise
