"""One lazy registry: things built by a name a user types (agents, encoders, networks, games).

A registry maps a name to a *target*, a ``"module:attr"`` string naming the
factory (a class or a function), plus one line of help and optional extra
fields (a network's ``outputs``). The target is imported only when something
is built, so listing the names (``fuseki play --help``, an error message)
costs nothing: ``import fuseki.agents`` neither imports torch nor loads the
Numba kernels of the Go engine.

:meth:`Registry.build` checks the options against the factory's signature
before calling it, so a mistyped option is a one-line :class:`RegistryError`
naming the accepted ones instead of a ``TypeError`` from deep inside.

>>> reg = Registry("shape")
>>> reg.register("fraction", "fractions:Fraction", "an exact fraction")
>>> reg.available()
{'fraction': 'an exact fraction'}
>>> reg.build("fraction", numerator=3, denominator=4)
Fraction(3, 4)
>>> reg.build("circle")
Traceback (most recent call last):
...
fuseki.util.registry.RegistryError: unknown shape 'circle'; known shapes: fraction
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Any

from fuseki.util.errors import FusekiError

__all__ = ["Entry", "Registry", "RegistryError"]

#: ``package.module:attr`` (the attribute may be dotted, ``module:Class.method``).
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class RegistryError(FusekiError, ValueError):
    """An unknown name or options its factory does not take (a ``ValueError`` too, as before the registry)."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One registered name: where its factory lives, its help line and its extra fields."""

    name: str
    #: ``"module:attr"``, or the factory itself for things registered at run time (tests, plug-ins).
    target: str | Callable[..., Any]
    help: str
    fields: Mapping[str, Any]


class Registry:
    """Names -> factories, imported on first use. ``kind`` names the things in messages ("agent").

    ``fields`` declares the extra fields an entry may carry and, for each, the
    values allowed (``None``: any value); :meth:`register` refuses others, so
    a typo in a field cannot pass unnoticed.
    """

    def __init__(self, kind: str, *, plural: str | None = None, fields: Mapping[str, Collection[Any] | None] = {}):
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self._fields = dict(fields)
        self._entries: dict[str, Entry] = {}
        self._resolved: dict[str, Callable[..., Any]] = {}

    # ---- registering -------------------------------------------------------

    def register(
        self, name: str, target: str | Callable[..., Any], help: str, *, replace: bool = False, **fields: Any
    ) -> None:
        """Make ``build(name, **options)`` call the factory at ``target`` with ``options``.

        Registering a taken name is an error unless ``replace=True``: two
        modules fighting over one name would make a name mean different things
        depending on import order. These are programming errors, so they are
        plain ``ValueError``/``TypeError``, not user errors.
        """
        if not isinstance(name, str) or not name or any(ch.isspace() for ch in name):
            raise ValueError(f"{self.kind} name must be a non-empty word without spaces, got {name!r}")
        if isinstance(target, str):
            if not _TARGET.match(target):
                raise ValueError(f"the target of {self.kind} {name!r} must look like 'package.module:attr', got {target!r}")
        elif not callable(target):
            raise TypeError(
                f"the factory for {self.kind} {name!r} must be callable or a 'module:attr' string, "
                f"got {type(target).__name__}"
            )
        if name in self._entries and not replace:
            raise ValueError(f"{self.kind} {name!r} is already registered (pass replace=True to override it)")
        for field, value in fields.items():
            if field not in self._fields:
                known = ", ".join(sorted(self._fields)) or "none"
                raise ValueError(f"{self.kind} {name!r}: unknown field {field!r} (fields: {known})")
            allowed = self._fields[field]
            if allowed is not None and value not in allowed:
                raise ValueError(f"{self.kind} {name!r}: {field} must be one of {', '.join(map(str, allowed))}, got {value!r}")
        missing = sorted(set(self._fields) - set(fields))
        if missing:
            raise ValueError(f"{self.kind} {name!r} needs the field(s) {', '.join(missing)}")
        self._entries[name] = Entry(name, target, help, MappingProxyType(dict(fields)))
        self._resolved.pop(name, None)

    def copy(self) -> Registry:
        """An independent registry with the same entries (a test registers into it without leaking)."""
        other = Registry(self.kind, plural=self.plural, fields=self._fields)
        other._entries = dict(self._entries)
        other._resolved = dict(self._resolved)
        return other

    # ---- looking up without importing ----------------------------------------

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._entries)

    def available(self) -> dict[str, str]:
        """Registered names and their one-line help, sorted by name."""
        return {name: self._entries[name].help for name in sorted(self._entries)}

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def entry(self, name: str) -> Entry:
        """The entry of ``name``; an unknown name raises :class:`RegistryError` listing the known ones."""
        entry = self._entries.get(name)
        if entry is None:
            known = ", ".join(sorted(self._entries)) or "(none registered)"
            raise RegistryError(f"unknown {self.kind} {name!r}; known {self.plural}: {known}")
        return entry

    # ---- importing and building ----------------------------------------------

    def get(self, name: str) -> Callable[..., Any]:
        """The factory of ``name``, importing its module on first use."""
        entry = self.entry(name)
        factory = self._resolved.get(name)
        if factory is not None:
            return factory
        if isinstance(entry.target, str):
            module_name, _, attr = entry.target.partition(":")
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                try:
                    obj = getattr(obj, part)
                except AttributeError:  # a wrong target is a bug in the registration, not the user's fault
                    raise ImportError(
                        f"{self.kind} {name!r} is registered as {entry.target!r}, but {module_name} has no {attr}"
                    ) from None
            if not callable(obj):
                raise TypeError(f"{self.kind} {name!r}: {entry.target} is not callable")
            factory = obj
        else:
            factory = entry.target
        self._resolved[name] = factory
        return factory

    def options(self, name: str) -> set[str] | None:
        """The option names ``name``'s factory accepts by keyword; ``None`` if it takes any (``**options``)."""
        signature = _signature(self.get(name))
        if signature is None or any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
            return None
        return {p.name for p in signature.parameters.values() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}

    def build(self, name: str, /, *args: Any, **options: Any) -> Any:
        """Call ``name``'s factory with ``args`` and ``options``, checked against its signature first.

        Options the factory does not take raise :class:`RegistryError`
        naming the ones it accepts. Errors the factory itself raises (a value
        out of range) pass through unchanged.
        """
        factory = self.get(name)
        signature = _signature(factory)
        if signature is not None:
            try:
                signature.bind(*args, **options)
            except TypeError:
                accepted = [
                    p.name
                    for p in signature.parameters.values()
                    if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                unknown = sorted(set(options) - set(accepted))
                given = ", ".join(unknown or sorted(options)) or "no options"
                raise RegistryError(
                    f"{self.kind} {name!r} cannot be built with {given}; "
                    f"it accepts: {', '.join(accepted) or 'no options'}"
                ) from None
        return factory(*args, **options)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, names={self.names()})"


def _signature(factory: Callable[..., Any]) -> inspect.Signature | None:
    """``inspect.signature(factory)``, or ``None`` for the few callables without one (some builtins)."""
    try:
        return inspect.signature(factory)
    except (TypeError, ValueError):
        return None
