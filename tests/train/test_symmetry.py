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


def one_stone_buffer(size: int, point: int, with_pass: bool = False):
    """One decision: a stone on ``point`` in plane 0, the action ``point``, a one-hot pi on it."""
    from fuseki.data.experience import ExperienceBuffer

    states = np.zeros((2, 2, size, size), np.uint8)
    states[0, 0].flat[point] = 1
    states[1, 1].flat[point] = 1
    pi = np.zeros((2, size * size + 1), np.float32)
    pi[0, point] = 1.0
    pi[1, size * size] = 0.25  # a pass-heavy row
    pi[1, point] = 0.75
    actions = [point, size * size if with_pass else point]
    return ExperienceBuffer(states, actions, [1.0, -1.0], [0.5, 0.0], encoder="oneplane", board_size=size,
                            metadata={"games": 1}, pi=pi)


def test_augmented_pi_follows_its_stone_and_sums_to_one():
    from fuseki.train.symmetry import augment_experience

    size, point = 5, 1  # off every axis of symmetry: its eight images are distinct points
    buf = one_stone_buffer(size, point, with_pass=True)
    out = augment_experience(buf)
    assert len(out) == 16 and out.pi is not None and out.metadata["symmetries"] == list(range(8))
    assert np.allclose(out.pi.sum(axis=1), 1.0)
    images = set()
    for s in range(8):
        first, second = 2 * s, 2 * s + 1
        stone = int(np.flatnonzero(out.states[first, 0])[0])
        images.add(stone)
        assert out.pi[first].argmax() == stone and out.pi[first, stone] == 1.0  # one-hot moves with the stone
        assert out.actions[first] == stone  # and so does the action
        assert int(np.flatnonzero(out.states[second, 1])[0]) == int(np.flatnonzero(out.pi[second, :-1])[0])
        assert out.pi[second, -1] == 0.25 and out.actions[second] == size * size  # pass stays pass
        assert (out.rewards[first], out.rewards[second], out.advantages[first]) == (1.0, -1.0, 0.5)
    assert len(images) == 8
    # Symmetry 0 is the identity; the games count is unchanged.
    assert np.array_equal(out.pi[:2], buf.pi) and np.array_equal(out.states[:2], buf.states) and out.games == 1


def test_augment_experience_without_pi_and_bad_symmetries():
    from fuseki.data.experience import ExperienceError
    from fuseki.train.symmetry import augment_experience

    buf = one_stone_buffer(4, 6)
    buf.pi = None
    out = augment_experience(buf, [0, 5])
    assert out.pi is None and len(out) == 4
    try:
        augment_experience(buf, [8])
    except ExperienceError as e:
        assert "from 0 to 7" in str(e)
    else:
        raise AssertionError("symmetry 8 accepted")


def test_batch_augmentation_moves_pi_with_the_planes_and_draws_as_before():
    from fuseki.train.symmetry import augment_batch_with_pi

    size, batch = 5, 64
    points = size * size
    perms = torch.from_numpy(dihedral_permutations(size))
    inverse = torch.from_numpy(inverse_permutations(dihedral_permutations(size)))
    gen = torch.Generator().manual_seed(3)
    y = torch.randint(0, points + 1, (batch,), generator=gen)
    x = torch.zeros(batch, 1, size, size)
    pi = torch.zeros(batch, points + 1)
    for i, label in enumerate(y.tolist()):
        if label < points:
            x[i, 0].view(-1)[label] = 1.0
        pi[i, label] = 1.0
    x1, y1 = augment_batch(x, y, perms, inverse, torch.Generator().manual_seed(9))
    x2, y2, pi2 = augment_batch_with_pi(x, y, pi, perms, inverse, torch.Generator().manual_seed(9))
    assert torch.equal(x1, x2) and torch.equal(y1, y2)  # the same symmetries as augment_batch
    assert torch.allclose(pi2.sum(dim=1), torch.ones(batch))
    assert torch.equal(pi2.argmax(dim=1), y2)  # the one-hot pi lands where the label (and the stone) went
    on_board = y2 < points
    assert torch.equal(x2.reshape(batch, -1)[on_board].argmax(dim=1), y2[on_board])
