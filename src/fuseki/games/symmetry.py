"""Symmetries of a game as permutations of its action vector and its planes.

A position and its mirror image are equally good training examples, and a
search may average a network over both. Each :class:`Symmetry` is a pair of
permutations in the *gather* convention (``new[p] == old[perm[p]]``, the
convention :func:`numpy.take` and ``torch.gather`` use):

- ``squares`` permutes the ``H * W`` cells of the planes (every plane alike);
- ``actions`` permutes the ``num_actions`` entries of a policy vector (Go's
  pass, for example, stays where it is).

So ``sym.planes(planes(state)) == planes(image of state)`` and
``sym.policy(pi)`` is the policy of the image. An action index ``a`` of the
original position is action ``sym.action(a)`` in the image.

Every game lists its symmetries with the identity first; a game without any
(chess) lists only the identity.

>>> perms = dihedral_permutations(3)
>>> perms.shape
(8, 9)
>>> perms[0].tolist()  # the identity
[0, 1, 2, 3, 4, 5, 6, 7, 8]
>>> sym = board_symmetries(3)[1]  # rot90
>>> sym.planes(np.arange(9, dtype=np.float32).reshape(1, 3, 3))[0].tolist()
[[2.0, 5.0, 8.0], [1.0, 4.0, 7.0], [0.0, 3.0, 6.0]]
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = [
    "Symmetry",
    "board_symmetries",
    "dihedral_permutations",
    "identity_symmetry",
    "inverse_permutations",
    "mirror_permutation",
]

#: Names of the eight images of :func:`dihedral_permutations`, in order.
DIHEDRAL_NAMES = ("identity", "rot90", "rot180", "rot270", "transpose", "rot90+transpose", "rot180+transpose", "rot270+transpose")


def dihedral_permutations(size: int) -> np.ndarray:
    """``(8, size*size)`` int64: row ``s`` says which old point each new point of image ``s`` reads.

    Image ``s`` is ``rot90(board, s % 4)``, transposed when ``s >= 4``; row 0
    is the identity. ``new.flat[p] == old.flat[perms[s, p]]``.
    """
    grid = np.arange(size * size, dtype=np.int64).reshape(size, size)
    images = []
    for s in range(8):
        image = np.rot90(grid, s % 4)
        if s >= 4:
            image = image.T
        images.append(image.reshape(-1))
    return np.stack(images)


def inverse_permutations(perms: np.ndarray) -> np.ndarray:
    """Row-wise inverse of a ``(k, n)`` stack of permutations: where each old point goes.

    ``inverse[s, perms[s, p]] == p``. A single permutation ``(n,)`` works too.
    """
    perms = np.asarray(perms)
    if perms.ndim == 1:
        return inverse_permutations(perms[None, :])[0]
    inverse = np.empty_like(perms)
    rows = np.arange(perms.shape[0])[:, None]
    inverse[rows, perms] = np.arange(perms.shape[1])[None, :]
    return inverse


def mirror_permutation(height: int, width: int) -> np.ndarray:
    """The left-right mirror of an ``height`` × ``width`` grid (column ``c`` <-> ``width - 1 - c``)."""
    grid = np.arange(height * width, dtype=np.int64).reshape(height, width)
    return np.ascontiguousarray(grid[:, ::-1]).reshape(-1)


@dataclasses.dataclass(frozen=True, eq=False)
class Symmetry:
    """One symmetry: a name, a permutation of the plane cells and one of the actions (gather convention)."""

    name: str
    #: ``(H * W,)`` int64: new cell ``p`` of every plane reads old cell ``squares[p]``.
    squares: np.ndarray
    #: ``(num_actions,)`` int64: new policy entry ``a`` reads old entry ``actions[a]``.
    actions: np.ndarray

    def __post_init__(self) -> None:
        for what in ("squares", "actions"):
            perm = np.asarray(getattr(self, what), dtype=np.int64)
            if perm.ndim != 1 or not np.array_equal(np.sort(perm), np.arange(perm.size)):
                raise ValueError(f"symmetry {self.name!r}: {what} is not a permutation")
            perm.setflags(write=False)
            object.__setattr__(self, what, perm)
        object.__setattr__(self, "_action_image", inverse_permutations(self.actions))

    def planes(self, planes: np.ndarray) -> np.ndarray:
        """The image of ``(..., C, H, W)`` planes (a new array)."""
        shape = planes.shape
        if shape[-2] * shape[-1] != self.squares.size:
            raise ValueError(f"symmetry {self.name!r} is for {self.squares.size} cells, the planes have {shape[-2:]}")
        flat = planes.reshape(*shape[:-2], shape[-2] * shape[-1])
        return np.take(flat, self.squares, axis=-1).reshape(shape)

    def policy(self, vector: np.ndarray) -> np.ndarray:
        """The image of a policy (or mask, or visit) vector ``(..., num_actions)`` (a new array)."""
        if vector.shape[-1] != self.actions.size:
            raise ValueError(f"symmetry {self.name!r} is for {self.actions.size} actions, got {vector.shape[-1]}")
        return np.take(vector, self.actions, axis=-1)

    def action(self, index: int) -> int:
        """Where action ``index`` of the original position goes in the image."""
        return int(self._action_image[index])  # type: ignore[attr-defined]

    def inverse(self) -> "Symmetry":
        """The symmetry that undoes this one."""
        return Symmetry(f"inverse of {self.name}", inverse_permutations(self.squares), inverse_permutations(self.actions))

    def __repr__(self) -> str:
        return f"Symmetry({self.name!r}, cells={self.squares.size}, actions={self.actions.size})"


def identity_symmetry(cells: int, num_actions: int) -> Symmetry:
    """The symmetry that changes nothing (the only one chess has)."""
    return Symmetry("identity", np.arange(cells, dtype=np.int64), np.arange(num_actions, dtype=np.int64))


def board_symmetries(size: int, extra_actions: int = 0) -> tuple[Symmetry, ...]:
    """The eight dihedral symmetries of a ``size`` × ``size`` board whose actions are its points.

    Actions ``0 .. size*size - 1`` are the points (``row * size + col``);
    ``extra_actions`` more (Go's pass) follow and stay fixed.
    """
    perms = dihedral_permutations(size)
    n2 = size * size
    tail = np.arange(n2, n2 + extra_actions, dtype=np.int64)
    return tuple(Symmetry(DIHEDRAL_NAMES[s], perms[s], np.concatenate([perms[s], tail])) for s in range(8))
