"""What every encoder shares: the point and move codes, the size check, legal points.

>>> from fuseki.encoders import get_encoder
>>> enc = get_encoder("zero", 9)
>>> enc.encode_point(Point(1, 2)), enc.decode_point_index(11)
(11, Point(row=1, col=2))
>>> enc.encode_move(Move.pass_turn()), enc.num_moves
(81, 82)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from fuseki.go import kernels as K
from fuseki.go.coords import Point, check_size
from fuseki.go.state import Move

if TYPE_CHECKING:
    from fuseki.go.state import GameState


class PlaneEncoder:
    """Base of the encoders: a board size, planes, and ``row * size + col`` move codes."""

    #: Registry name.
    name: ClassVar[str] = ""
    #: One short name per plane, in order (see :attr:`plane_names`).
    _plane_names: ClassVar[tuple[str, ...]] = ()
    #: True where pass is a move class (``num_moves = size * size + 1``).
    includes_pass: ClassVar[bool] = False

    def __init__(self, size: int = 19) -> None:
        self.size = check_size(size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size})"

    # ---- shape ---------------------------------------------------------

    @property
    def plane_names(self) -> tuple[str, ...]:
        """A short name for each plane, e.g. ``"own, 1 liberty"``."""
        return self._plane_names

    @property
    def num_planes(self) -> int:
        return len(self.plane_names)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.num_planes, self.size, self.size)

    @property
    def num_points(self) -> int:
        return self.size * self.size

    @property
    def num_moves(self) -> int:
        return self.size * self.size + (1 if self.includes_pass else 0)

    # ---- points and moves ----------------------------------------------

    def encode_point(self, point: Point | tuple[int, int]) -> int:
        """``Point(row, col)`` -> ``row * size + col``; ``ValueError`` off the board."""
        r, c = point
        if not (0 <= r < self.size and 0 <= c < self.size):
            raise ValueError(f"{tuple(point)} is off the {self.size}x{self.size} board")
        return r * self.size + c

    def decode_point_index(self, index: int) -> Point:
        """``row * size + col`` -> ``Point``; ``ValueError`` for pass or out of range."""
        i = int(index)
        if not 0 <= i < self.size * self.size:
            what = "pass, not a point" if i == self.size * self.size else "out of range"
            raise ValueError(f"index {index} is {what} on a {self.size}x{self.size} board")
        return Point(i // self.size, i % self.size)

    def encode_move(self, move: Move) -> int:
        """The book's ``encode_move`` (ch. 14): a point's index, or ``size * size`` for pass.

        Pass is accepted only where it is a class (:attr:`includes_pass`);
        resignation never is.
        """
        if move.is_play:
            return self.encode_point(move.point)  # type: ignore[arg-type]
        if move.is_pass and self.includes_pass:
            return self.size * self.size
        raise ValueError(f"{self.name} encoder cannot encode the move {move}")

    def decode_move_index(self, index: int) -> Move:
        """The book's ``decode_move_index``: the inverse of :meth:`encode_move`."""
        if self.includes_pass and int(index) == self.size * self.size:
            return Move.pass_turn()
        return Move.play(self.decode_point_index(index))

    # ---- encoding --------------------------------------------------------

    def encode(self, state: "GameState") -> np.ndarray:
        raise NotImplementedError

    def _check(self, state: "GameState") -> None:
        if state.size != self.size:
            raise ValueError(f"{self.name} encoder is for {self.size}x{self.size}, the position is {state.size}x{state.size}")


def legal_points(state: "GameState") -> np.ndarray:
    """The player to move's legal points (no pass), ``int32``; superko applied.

    A finished game has no legal moves; there the simple-ko rule of the board
    is used, so that the planes still describe the position.
    """
    if state.is_over():
        pts = K.legal_points(state.buffer)
    else:
        pts = state.legal_points()
    return np.ascontiguousarray(pts[:-1], dtype=np.int32)
