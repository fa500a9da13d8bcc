"""The ``Encoder`` interface and the registry of encoders by name (spec D1).

An encoder turns a Go position into the feature planes a network reads, and
moves into class indices and back. The book's ``dlgo.encoders`` has the same
shape (``name``, ``encode``, ``encode_point``, ``decode_point_index``,
``num_points``, ``shape``); ours differs in three ways that matter:

- features are ``uint8`` (0/1 planes, or small counts), not float64: a
  position of the 48-plane AlphaGo encoder on 19×19 takes 17 KB, not 139 KB,
  and shards stay small enough to memory-map (the book's pipeline took 3-4 GB
  per 1,000 games);
- every encoder works at any board size (``size`` is a constructor argument);
- ``encode`` reads a :class:`fuseki.go.GameState` (immutable, with the rules,
  ko and history), so planes that need the history or the ko rule have them.

Points are encoded as ``row * size + col`` (row 0 is the top row, as
everywhere in :mod:`fuseki.go.coords`); ``size * size`` is pass for the
encoders whose ``num_moves`` includes it (``zero``).

Encoders register themselves with :func:`register_encoder`; frontends and the
data pipeline build them with :func:`get_encoder` by the name stored in a
manifest or an agent file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from fuseki.go.coords import Point
    from fuseki.go.state import GameState

__all__ = ["Encoder", "register_encoder", "get_encoder", "available_encoders"]


@runtime_checkable
class Encoder(Protocol):
    """Position -> feature planes; point <-> class index."""

    #: Registry name (``oneplane``, ``sevenplane``, ``simple``, ``alphago``, ``zero``).
    name: str
    #: Board size this encoder was built for.
    size: int

    @property
    def num_planes(self) -> int:
        """Number of feature planes."""
        ...

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(num_planes, size, size)``."""
        ...

    @property
    def num_points(self) -> int:
        """``size * size``."""
        ...

    @property
    def num_moves(self) -> int:
        """Number of move classes: ``num_points``, plus one where pass is a class."""
        ...

    def encode(self, state: "GameState") -> np.ndarray:
        """The planes of ``state`` from the point of view of the player to move, ``uint8``, shape :attr:`shape`."""
        ...

    def encode_point(self, point: "Point") -> int:
        """``Point(row, col)`` -> class index ``row * size + col``."""
        ...

    def decode_point_index(self, index: int) -> "Point":
        """Class index -> ``Point``; raises ``ValueError`` for pass or out of range."""
        ...


EncoderFactory = Callable[[int], Encoder]

_REGISTRY: dict[str, tuple[EncoderFactory, str]] = {}


def register_encoder(name: str, factory: EncoderFactory, help: str) -> None:
    """Make ``get_encoder(name, size)`` call ``factory(size)``. Names are unique."""
    if name in _REGISTRY:
        raise ValueError(f"an encoder named {name!r} is already registered")
    _REGISTRY[name] = (factory, help)


def available_encoders() -> dict[str, str]:
    """Registered encoder names and one-line help, sorted by name."""
    return {name: _REGISTRY[name][1] for name in sorted(_REGISTRY)}


def get_encoder(name: str, size: int = 19) -> Encoder:
    """Build the encoder registered as ``name`` for a ``size`` × ``size`` board.

    Unknown names raise ``ValueError`` listing the known ones.
    """
    entry = _REGISTRY.get(name)
    if entry is None:
        known = ", ".join(sorted(_REGISTRY)) or "(none registered)"
        raise ValueError(f"unknown encoder {name!r}; known encoders: {known}")
    if not isinstance(size, int) or not 2 <= size <= 25:
        raise ValueError(f"board size must be from 2 to 25, got {size!r}")
    return entry[0](size)
