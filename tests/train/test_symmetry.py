"""The board's eight symmetries on training batches (fuseki.train.symmetry)."""

from __future__ import annotations

import numpy as np
import torch

from fuseki.train.symmetry import augment_batch, dihedral_permutations, inverse_permutations


def test_the_eight_images_are_the_rotations_and_reflections():
    size = 5
    grid = np.arange(size * size).reshape(size, size)
    perms = dihedral_permutations(size)
    images = {tuple(grid.reshape(-1)[perm]) for perm in perms}
    expected = set()
    for k in range(4):
        for board in (np.rot90(grid, k), np.rot90(grid, k).T):
            expected.add(tuple(board.reshape(-1)))
    assert images == expected and len(images) == 8
    assert perms[0].tolist() == list(range(size * size))


def test_inverse_undoes_each_permutation():
    perms = dihedral_permutations(4)
    inverse = inverse_permutations(perms)
    for perm, inv in zip(perms, inverse):
        assert perm[inv].tolist() == list(range(16)) and inv[perm].tolist() == list(range(16))


def test_a_label_follows_its_stone_and_a_pass_stays_a_pass():
    size = 9
    table = dihedral_permutations(size)
    perms, inverse = torch.from_numpy(table), torch.from_numpy(inverse_permutations(table))
    batch = 64
    x = torch.zeros(batch, 2, size, size)
    labels = torch.randint(0, size * size, (batch,))
    labels[::7] = size * size  # pass, as the zero encoder encodes it
    for i, move in enumerate(labels.tolist()):
        if move < size * size:
            x[i, 1].view(-1)[move] = 1.0  # plane 1 marks the point that was played
        x[i, 0, 0, 1] = 1.0  # an asymmetric stone, so that every image differs
    gen = torch.Generator().manual_seed(3)
    x2, y2 = augment_batch(x, labels.clone(), perms, inverse, gen)
    assert torch.equal(y2[::7], labels[::7])
    for i in range(batch):
        if labels[i] < size * size:
            assert x2[i, 1].view(-1)[y2[i]] == 1.0 and x2[i, 1].sum() == 1.0
        assert x2[i, 0].sum() == 1.0
    moved = {tuple(torch.nonzero(x2[i, 0]).flatten().tolist()) for i in range(batch)}
    assert len(moved) == 8  # 64 draws reach all eight images of the corner-side stone
    again = augment_batch(x, labels.clone(), perms, inverse, torch.Generator().manual_seed(3))
    assert torch.equal(again[0], x2) and torch.equal(again[1], y2)
