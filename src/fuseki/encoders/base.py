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

The built-in encoders are registered here by ``"module:attr"`` (imported
when one is built); frontends and the data pipeline build them with
:func:`get_encoder` by the name stored in a manifest or an agent file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from fuseki.util.errors import FusekiError
from fuseki.util.registry import Registry

if TYPE_CHECKING:
    from fuseki.go.coords import Point
    from fuseki.go.state import GameState

__all__ = ["ENCODERS", "Encoder", "EncoderError", "available_encoders", "get_encoder", "register_encoder"]


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

    def encode(self, state: GameState) -> np.ndarray:
        """The planes of ``state`` from the point of view of the player to move, ``uint8``, shape :attr:`shape`."""
        ...

    def encode_point(self, point: Point) -> int:
        """``Point(row, col)`` -> class index ``row * size + col``."""
        ...

    def decode_point_index(self, index: int) -> Point:
        """Class index -> ``Point``; raises ``ValueError`` for pass or out of range."""
        ...


EncoderFactory = Callable[[int], Encoder]

class EncoderError(FusekiError, ValueError):
    """An encoder asked for something it cannot do (a board size off 2..25)."""


#: Every encoder by name, as ``"module:attr"`` targets imported when one is built.
ENCODERS = Registry("encoder")


def register_encoder(name: str, factory: EncoderFactory | str, help: str) -> None:
    """Make ``get_encoder(name, size)`` call ``factory(size)`` (a ``"module:attr"`` string or the factory). Names are unique."""
    ENCODERS.register(name, factory, help)


def available_encoders() -> dict[str, str]:
    """Registered encoder names and one-line help, sorted by name (imports no encoder)."""
    return ENCODERS.available()


def get_encoder(name: str, size: int = 19) -> Encoder:
    """Build the encoder registered as ``name`` for a ``size`` × ``size`` board.

    Unknown names raise :class:`~fuseki.util.registry.RegistryError` (a
    ``ValueError``) listing the known ones; a size off 2..25 raises
    :class:`EncoderError`.
    """
    ENCODERS.entry(name)  # an unknown name first: it is the likelier mistake
    if not isinstance(size, int) or not 2 <= size <= 25:
        raise EncoderError(f"board size must be from 2 to 25, got {size!r}")
    return ENCODERS.build(name, size)


register_encoder(
    "oneplane",
    "fuseki.encoders.oneplane:OnePlaneEncoder",
    "book ch. 6: one plane, 1 own stone, 2 opponent stone (the book's -1)",
)
register_encoder(
    "sevenplane",
    "fuseki.encoders.sevenplane:SevenPlaneEncoder",
    "book ch. 7: own/opponent stones with 1, 2, 3+ liberties, ko",
)
register_encoder(
    "simple",
    "fuseki.encoders.simple:SimpleEncoder",
    "book ch. 7: black/white stones with 1..4+ liberties, side to move, ko (11 planes)",
)
register_encoder(
    "alphago",
    "fuseki.encoders.alphago:AlphaGoEncoder",
    "book ch. 13: AlphaGo's 48 planes (liberties, captures, self-atari, ladders, ...)",
)
register_encoder(
    "alphago49",
    "fuseki.encoders.alphago:alphago49_encoder",
    "book ch. 13: AlphaGo's 48 planes plus the player-colour plane of the value network",
)
register_encoder(
    "zero",
    "fuseki.encoders.zero:ZeroEncoder",
    "book ch. 14: own/opponent stones with 1..4+ liberties, komi side, ko; pass is a class",
)
