"""The eight symmetries of a square board, applied to training batches.

A Go position and its rotations and reflections are equally good examples:
the rules do not care which way the board is turned. Training on a random
one of the eight images of every position (the AlphaGo papers do this) gives
a small corpus eight times the variety and teaches the network that the
corners are alike. Each symmetry is a permutation of the board's points, so a
batch is transformed with one ``gather`` per batch, each position by its own
symmetry, and the label (a point index) goes through the inverse map; a pass
label (index ``N*N``, encoders with a pass class) stays a pass.

>>> perms = dihedral_permutations(3)
>>> perms.shape
(8, 9)
>>> perms[0].tolist()  # the identity
[0, 1, 2, 3, 4, 5, 6, 7, 8]
"""

from __future__ import annotations

import torch

from fuseki.games.symmetry import dihedral_permutations, inverse_permutations

# The permutations themselves live in :mod:`fuseki.games.symmetry` (the games' action
# encoding needs them, and games/ sits below train/); they are re-exported here.
__all__ = ["dihedral_permutations", "inverse_permutations", "augment_batch"]


def augment_batch(
    x: torch.Tensor, y: torch.Tensor, perms: torch.Tensor, inverse: torch.Tensor, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each position of ``x`` ``(B, C, N, N)`` and its label ``y`` ``(B,)`` under a random symmetry.

    ``perms`` is :func:`dihedral_permutations` as a tensor on ``x``'s device
    and ``inverse`` its row-wise inverse (``inverse[s, perms[s, p]] == p``).
    ``generator`` (a CPU generator) draws the symmetries, so a seeded run
    draws the same ones again.
    """
    batch, planes, n, _ = x.shape
    points = n * n
    sym = torch.randint(0, 8, (batch,), generator=generator).to(x.device)
    index = perms[sym].unsqueeze(1).expand(batch, planes, points)
    x_new = torch.gather(x.reshape(batch, planes, points), 2, index).reshape(batch, planes, n, n)
    on_board = y < points
    y_new = y.clone()
    y_new[on_board] = inverse[sym[on_board], y[on_board]].to(y.dtype)
    return x_new, y_new
