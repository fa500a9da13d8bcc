"""The thesis's sigmoid MLPs: shapes, initialisation, input scaling."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
import torch

from fuseki.deadstones.mlp import DTYPE, THESIS_SHAPES, DeadStoneMLP, feature_set_for, parse_shape, shape_text


@pytest.mark.parametrize(
    ("text", "sizes", "params"),
    [
        ("33-2-1", (33, 2, 1), 33 * 2 + 2 + 2 + 1),
        ("33-12-1", (33, 12, 1), 33 * 12 + 12 + 12 + 1),
        ("33-16-8-4-1", (33, 16, 8, 4, 1), 33 * 16 + 16 + 16 * 8 + 8 + 8 * 4 + 4 + 4 + 1),
        ("33-32-1", (33, 32, 1), 33 * 32 + 32 + 32 + 1),
        ("89-32-1", (89, 32, 1), 89 * 32 + 32 + 32 + 1),
    ],
)
def test_thesis_shapes(text: str, sizes: tuple[int, ...], params: int) -> None:
    assert text in THESIS_SHAPES
    assert parse_shape(text) == sizes
    net = DeadStoneMLP(text, seed=0)
    assert net.shape_text == text == shape_text(sizes)
    assert net.num_parameters() == params
    assert len(net.layers) == len(sizes) - 1
    assert all(p.dtype == DTYPE == torch.float64 for p in net.parameters())


@pytest.mark.parametrize("bad", ["33", "", "33-x-1", "33--1", "33-0-1", "33-32-2", "-1-1", "33 32 1"])
def test_bad_shapes_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="network shape"):
        parse_shape(bad)


def test_shape_from_a_sequence() -> None:
    assert parse_shape([33, np.int64(32), 1]) == (33, 32, 1)
    with pytest.raises(ValueError):
        parse_shape([33, 2.5, 1])  # type: ignore[list-item]


def test_feature_sets() -> None:
    assert DeadStoneMLP("33-2-1").feature_set == "A"
    assert DeadStoneMLP("89-32-1").feature_set == "B"
    assert DeadStoneMLP("40-8-1").feature_set is None
    assert feature_set_for(89) == "B"


def test_output_is_a_probability_per_row() -> None:
    net = DeadStoneMLP("33-16-8-4-1", seed=2)
    x = torch.randn(7, 33, dtype=torch.float64) * 100
    p = net(x)
    assert p.shape == (7,)
    assert torch.all((p > 0) & (p < 1))


def test_initialisation_is_seeded_and_bounded() -> None:
    a, b, c = DeadStoneMLP("33-32-1", seed=4), DeadStoneMLP("33-32-1", seed=4), DeadStoneMLP("33-32-1", seed=5)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert not torch.equal(a.layers[0].weight, c.layers[0].weight)
    for layer in a.layers:
        bound = 1 / math.sqrt(layer.in_features)
        assert layer.weight.abs().max() <= bound and layer.bias.abs().max() <= bound
        assert layer.weight.abs().max() > 0.5 * bound  # spread over the range, not all tiny


def test_min_max_scaling() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)) * [1.0, 100.0, 0.0] + [0.0, 5.0, 7.0]
    net = DeadStoneMLP("3-2-1", seed=0)
    net.fit_scaling(x)
    scaled = (torch.tensor(x) - net.input_low) * net.input_scale
    assert scaled[:, :2].min(dim=0).values.tolist() == pytest.approx([0.0, 0.0])
    assert scaled[:, :2].max(dim=0).values.tolist() == pytest.approx([1.0, 1.0])
    assert scaled[:, 2].abs().max() == 0  # a constant column maps to 0
    with pytest.raises(ValueError, match="fit_scaling"):
        net.fit_scaling(np.zeros((4, 5)))
    # The scaling is part of the state (saved with the weights).
    assert {"input_low", "input_scale"} <= set(net.state_dict())


@pytest.mark.parametrize(
    "name", ["rprop", "mlp", "dataset", "model", "training", "experiment"], ids=lambda n: f"fuseki.deadstones.{n}"
)
def test_doctests(name: str) -> None:
    module = importlib.import_module(f"fuseki.deadstones.{name}")
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
