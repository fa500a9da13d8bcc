"""The book's networks and the residual net: shapes at any size, the book's parameter counts, options."""

from __future__ import annotations

import doctest
import importlib

import pytest
import torch

from fuseki.nets import available_networks, build_network
from fuseki.nets.book import BOOK_CONV_LAYERS, parameter_count
from fuseki.nets.residual import ResidualNet, dual_residual_network

torch.set_num_threads(1)  # the machine is shared; these nets are tiny

NAMES = ("fc", "cnn", "small", "medium", "large", "residual")


def test_every_network_is_registered_with_help():
    nets = available_networks()
    for name in NAMES:
        assert name in nets and nets[name]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("planes,size,moves", [(1, 5, 25), (7, 9, 81), (11, 19, 361), (17, 9, 82)])
def test_logits_have_one_entry_per_move(name, planes, size, moves):
    torch.manual_seed(0)
    net = build_network(name, in_planes=planes, size=size, num_moves=moves)
    net.eval()
    with torch.no_grad():
        out = net(torch.rand(3, planes, size, size))
    assert out.shape == (3, moves) and out.dtype == torch.float32
    assert torch.isfinite(out).all()


def keras_conv(in_ch: int, filters: int, kernel: int) -> int:
    return filters * (in_ch * kernel * kernel + 1)


def keras_dense(inputs: int, units: int) -> int:
    return units * (inputs + 1)


def test_parameter_counts_match_the_books_model_summaries():
    # listing 6.14 prints 623,081 and listing 6.26 prints 456,545 (9×9, one plane, 81 moves)
    assert parameter_count(build_network("fc", in_planes=1, size=9, num_moves=81)) == 623_081
    assert parameter_count(build_network("cnn", in_planes=1, size=9, num_moves=81)) == 456_545


@pytest.mark.parametrize("name", ["small", "medium", "large"])
@pytest.mark.parametrize("planes,size", [(1, 19), (7, 19), (11, 9)])
def test_book_cnns_have_the_layer_sizes_of_dlgo(name, planes, size):
    conv, hidden = BOOK_CONV_LAYERS[name]
    expected, channels = 0, planes
    for filters, kernel in conv:
        expected += keras_conv(channels, filters, kernel)
        channels = filters
    moves = size * size
    expected += keras_dense(channels * size * size, hidden) + keras_dense(hidden, moves)
    assert parameter_count(build_network(name, in_planes=planes, size=size, num_moves=moves)) == expected
    if (name, planes, size) == ("small", 1, 19):
        assert expected == 6_192_425  # worked by hand from small.py


def test_book_layer_lists_are_dlgos():
    assert BOOK_CONV_LAYERS["small"] == (((48, 7), (32, 5), (32, 5), (32, 5)), 512)
    assert BOOK_CONV_LAYERS["medium"] == (((64, 5), (64, 5), (64, 3), (64, 3), (64, 3)), 512)
    assert BOOK_CONV_LAYERS["large"] == (((64, 7), (64, 5), (64, 5), (48, 5), (48, 5), (32, 5), (32, 5)), 1024)


def test_zero_padding_keeps_the_board_size_in_every_conv():
    net = build_network("large", in_planes=2, size=7, num_moves=49)
    x = torch.rand(1, 2, 7, 7)
    for layer in net.layers:
        x = layer(x)
        if isinstance(layer, torch.nn.Conv2d):
            assert x.shape[-2:] == (7, 7)


def test_keras_init_zeroes_biases_and_torch_init_does_not():
    keras = build_network("small", in_planes=1, size=5, num_moves=25)
    torch_init = build_network("small", in_planes=1, size=5, num_moves=25, init="torch")
    assert all(float(m.bias.detach().abs().sum()) == 0 for m in keras.modules() if isinstance(m, torch.nn.Conv2d))
    assert any(float(m.bias.detach().abs().sum()) > 0 for m in torch_init.modules() if isinstance(m, torch.nn.Conv2d))


def test_options_change_the_network():
    fc = build_network("fc", in_planes=1, size=9, num_moves=81, hidden=[64, 32], activation="relu", dropout=0.1)
    assert parameter_count(fc) == keras_dense(81, 64) + keras_dense(64, 32) + keras_dense(32, 81)
    assert any(isinstance(m, torch.nn.ReLU) for m in fc.modules())
    small = build_network("small", in_planes=1, size=9, num_moves=81, hidden=100, dropout=0.5)
    assert any(isinstance(m, torch.nn.Dropout) for m in small.modules())
    res = build_network("residual", in_planes=3, size=9, num_moves=82, blocks=2, channels=16)
    assert len(res.tower) == 2 and res.stem.conv.out_channels == 16 and res.value is None


@pytest.mark.parametrize(
    "name,options",
    [
        ("small", {"blocks": 3}),
        ("fc", {"activation": "swish"}),
        ("fc", {"hidden": []}),
        ("cnn", {"dropout": 1.5}),
        ("medium", {"init": "he"}),
        ("residual", {"channels": 0}),
        ("nonesuch", {}),
    ],
)
def test_bad_names_and_options_are_value_errors(name, options):
    with pytest.raises(ValueError):
        build_network(name, in_planes=1, size=9, num_moves=81, **options)


def test_residual_value_head_for_the_zero_network():
    torch.manual_seed(0)
    net = dual_residual_network(in_planes=4, size=5, num_moves=26, blocks=1, channels=8)
    assert isinstance(net, ResidualNet)
    net.eval()
    with torch.no_grad():
        logits, value = net(torch.rand(6, 4, 5, 5))
    assert logits.shape == (6, 26) and value.shape == (6,)
    assert float(value.abs().max()) <= 1.0
    policy_only = build_network("residual", in_planes=4, size=5, num_moves=26, blocks=1, channels=8)
    assert policy_only.body(torch.rand(2, 4, 5, 5)).shape == (2, 8, 5, 5)


@pytest.mark.parametrize("name", NAMES)
def test_one_step_of_training_changes_every_parameter_tensor(name):
    torch.manual_seed(1)
    options = {"fc": {"hidden": [16]}, "cnn": {"filters": 4, "hidden": 16, "dropout": 0.0}}.get(name, {})
    if name in ("small", "medium", "large"):
        options = {"hidden": 16}
    if name == "residual":
        options = {"blocks": 1, "channels": 4}
    net = build_network(name, in_planes=2, size=5, num_moves=25, **options)
    before = {k: v.clone() for k, v in net.state_dict().items() if v.dtype.is_floating_point}
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    loss = torch.nn.functional.cross_entropy(net(torch.rand(8, 2, 5, 5)), torch.randint(0, 25, (8,)))
    loss.backward()
    opt.step()
    after = net.state_dict()
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    weights = [k for k, _ in net.named_parameters()]
    assert set(weights) <= set(changed)


@pytest.mark.parametrize("module", ["fuseki.nets.book", "fuseki.nets.residual", "fuseki.train.supervised"])
def test_doctests(module):
    failures, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
