"""The eight symmetries of a square board, applied to training batches.

A Go position and its rotations and reflections are equally good examples:
the rules do not care which way the board is turned. Training on a random
one of the eight images of every position (the AlphaGo papers do this) gives
a small corpus eight times the variety and teaches the network that the
corners are alike. Each symmetry is a permutation of the board's points, so a
batch is transformed with one ``gather`` per batch, each position by its own
symmetry, and the label (a point index) goes through the inverse map; a pass
label (index ``N*N``, encoders with a pass class) stays a pass.

A search's visit distribution ``pi`` (one probability per point, pass last)
is moved like the planes: the probability of an old point goes where that
point goes, and the pass probability stays. So a one-hot ``pi`` on a point
follows the stone played there, and every image still sums to 1. This works
for training batches (:func:`augment_batch_with_pi`) and for whole experience
buffers (:func:`augment_experience`: every decision under each symmetry).

>>> perms = dihedral_permutations(3)
>>> perms.shape
(8, 9)
>>> perms[0].tolist()  # the identity
[0, 1, 2, 3, 4, 5, 6, 7, 8]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from fuseki.data.experience import ExperienceBuffer, ExperienceError

__all__ = [
    "augment_batch",
    "augment_batch_with_pi",
    "augment_experience",
    "dihedral_permutations",
    "inverse_permutations",
    "permute_pi",
]


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


def augment_batch(
    x: torch.Tensor, y: torch.Tensor, perms: torch.Tensor, inverse: torch.Tensor, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each position of ``x`` ``(B, C, N, N)`` and its label ``y`` ``(B,)`` under a random symmetry.

    ``perms`` is :func:`dihedral_permutations` as a tensor on ``x``'s device
    and ``inverse`` its row-wise inverse (``inverse[s, perms[s, p]] == p``).
    ``generator`` (a CPU generator) draws the symmetries, so a seeded run
    draws the same ones again.
    """
    x_new, y_new, _ = _augment(x, y, None, perms, inverse, generator)
    return x_new, y_new


def augment_batch_with_pi(
    x: torch.Tensor,
    y: torch.Tensor,
    pi: torch.Tensor,
    perms: torch.Tensor,
    inverse: torch.Tensor,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`augment_batch` that also moves each position's visit distribution ``pi`` ``(B, N*N + 1)``.

    Each position's planes, label and ``pi`` go through the same symmetry;
    the symmetries drawn are the ones :func:`augment_batch` draws from the
    same generator state.
    """
    x_new, y_new, pi_new = _augment(x, y, pi, perms, inverse, generator)
    assert pi_new is not None
    return x_new, y_new, pi_new


def _augment(
    x: torch.Tensor,
    y: torch.Tensor,
    pi: torch.Tensor | None,
    perms: torch.Tensor,
    inverse: torch.Tensor,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    batch, planes, n, _ = x.shape
    points = n * n
    sym = torch.randint(0, 8, (batch,), generator=generator).to(x.device)
    index = perms[sym].unsqueeze(1).expand(batch, planes, points)
    x_new = torch.gather(x.reshape(batch, planes, points), 2, index).reshape(batch, planes, n, n)
    on_board = y < points
    y_new = y.clone()
    y_new[on_board] = inverse[sym[on_board], y[on_board]].to(y.dtype)
    pi_new = None
    if pi is not None:
        if pi.shape != (batch, points + 1):
            raise ValueError(f"pi must have shape ({batch}, {points + 1}) (pass last), got {tuple(pi.shape)}")
        pi_new = torch.cat([torch.gather(pi[:, :points], 1, perms[sym]), pi[:, points:]], dim=1)
    return x_new, y_new, pi_new


def permute_pi(pi: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Visit distributions ``[..., N*N + 1]`` under one symmetry (a row of :func:`dihedral_permutations`).

    ``new[..., p] == old[..., perm[p]]`` for the points; pass (the last entry) stays.
    """
    points = len(perm)
    if pi.shape[-1] != points + 1:
        raise ValueError(f"pi has {pi.shape[-1]} entries per row, the board {points} points and a pass")
    return np.concatenate([pi[..., :points][..., perm], pi[..., points:]], axis=-1)


def augment_experience(buffer: ExperienceBuffer, symmetries: Sequence[int] = range(8)) -> ExperienceBuffer:
    """Every decision of ``buffer`` under each of ``symmetries`` (0 is the identity), image by image.

    The result holds ``len(symmetries)`` blocks of ``len(buffer)`` decisions,
    in the order of ``symmetries``: planes and ``pi`` permuted, actions moved
    to their image (pass stays pass), rewards and advantages copied. Its
    metadata records the symmetries; ``games`` is unchanged, since no game
    was added.
    """
    symmetries = list(symmetries)
    if not symmetries or any(s not in range(8) for s in symmetries):
        raise ExperienceError(f"symmetries must be numbers from 0 to 7 (at least one), got {symmetries}")
    n = buffer.board_size
    points = n * n
    perms = dihedral_permutations(n)
    inverse = inverse_permutations(perms)
    count, planes = len(buffer), buffer.states.shape[1]
    flat = buffer.states.reshape(count, planes, points)
    states, actions, pis = [], [], []
    for s in symmetries:
        states.append(flat[:, :, perms[s]].reshape(count, planes, n, n))
        on_board = buffer.actions < points
        actions.append(np.where(on_board, inverse[s][np.minimum(buffer.actions, points - 1)], buffer.actions))
        if buffer.pi is not None:
            pis.append(permute_pi(buffer.pi, perms[s]))
    k = len(symmetries)
    return ExperienceBuffer(
        np.concatenate(states) if count else buffer.states,
        np.concatenate(actions),
        np.tile(buffer.rewards, k),
        np.tile(buffer.advantages, k),
        encoder=buffer.encoder,
        board_size=n,
        metadata={**buffer.metadata, "symmetries": symmetries},
        pi=None if buffer.pi is None else np.concatenate(pis),
    )


def inverse_permutations(perms: np.ndarray) -> np.ndarray:
    """Row-wise inverse of :func:`dihedral_permutations`: where each old point goes."""
    inverse = np.empty_like(perms)
    rows = np.arange(perms.shape[0])[:, None]
    inverse[rows, perms] = np.arange(perms.shape[1])[None, :]
    return inverse
