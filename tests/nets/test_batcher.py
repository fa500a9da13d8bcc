"""Batched inference: one forward pass for many positions gives what one pass each gives."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest
import torch

import fuseki.nets.batcher
from fuseki.games import TicTacToe
from fuseki.games.base import Game
from fuseki.games.go import GoGame
from fuseki.nets import available_networks, build_network
from fuseki.nets.batcher import Batcher, masked_softmax

torch.set_num_threads(1)  # the machine is shared; these nets are tiny


def random_batch(game: Game, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Planes and legal masks of ``count`` positions from random games (none finished)."""
    rng = random.Random(seed)
    planes, masks = [], []
    state = game.initial_state()
    while len(planes) < count:
        if state.is_over() or (hasattr(state, "go") and state.go.move_number > 40):
            state = game.initial_state()
        planes.append(game.planes(state))
        masks.append(game.legal_mask(state))
        moves = state.legal_moves()
        state = state.play(moves[rng.randrange(len(moves))])
    return np.stack(planes), np.stack(masks)


def random_dual(game: Game, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    c, size, _ = game.planes_shape
    net = build_network("residual-dual", in_planes=c, size=size, num_moves=game.num_actions, blocks=2, channels=8)
    for module in net.modules():  # random batch-norm statistics: a batch mix-up would show
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return net


@pytest.mark.parametrize("game", [TicTacToe(), GoGame(size=9)], ids=["tictactoe", "go9"])
def test_batched_equals_one_by_one(game: Game) -> None:
    planes, masks = random_batch(game, 32, seed=1)
    batcher = Batcher(random_dual(game, 0), device="cpu")
    priors, values = batcher(planes, masks)
    assert batcher.passes == 1 and batcher.positions == 32
    assert priors.shape == masks.shape and values.shape == (32,)
    assert np.all(priors[~masks] == 0.0)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(np.abs(values) <= 1.0)
    for i in range(32):
        p, v = batcher(planes[i : i + 1], masks[i : i + 1])
        np.testing.assert_allclose(p[0], priors[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v[0], values[i], rtol=1e-5, atol=1e-6)
    # Chunks of max_batch give the same answers too.
    chunked = Batcher(batcher.network, device="cpu", max_batch=5)
    p, v = chunked(planes, masks)
    assert chunked.passes == 7
    np.testing.assert_allclose(p, priors, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, values, rtol=1e-5, atol=1e-6)


def test_the_network_is_in_eval_mode_and_the_softmax_is_over_the_legal_actions() -> None:
    game = TicTacToe()
    net = random_dual(game, 1).train()
    batcher = Batcher(net, device="cpu")
    assert not batcher.network.training
    planes, masks = random_batch(game, 4, seed=2)
    logits, _ = net(torch.from_numpy(planes))
    expected = torch.softmax(logits.masked_fill(~torch.from_numpy(masks), float("-inf")), dim=-1).detach().numpy()
    np.testing.assert_allclose(batcher(planes, masks)[0], expected, rtol=1e-5, atol=1e-7)


def test_masked_softmax_of_an_empty_mask_is_zero() -> None:
    out = masked_softmax(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[False, False], [True, False]]))
    assert out.tolist() == [[0.0, 0.0], [1.0, 0.0]]


def test_errors() -> None:
    game = TicTacToe()
    policy_only = build_network("residual", in_planes=2, size=3, num_moves=9, blocks=1, channels=4)
    planes, masks = random_batch(game, 2, seed=0)
    with pytest.raises(ValueError, match="policy-only"):
        Batcher(policy_only, device="cpu")(planes, masks)
    with pytest.raises(ValueError, match="expected planes"):
        Batcher(random_dual(game, 0), device="cpu")(planes[0], masks)
    with pytest.raises(ValueError, match="actions"):
        Batcher(random_dual(game, 0), device="cpu")(planes, np.ones((2, 10), dtype=bool))
    with pytest.raises(ValueError):
        Batcher(policy_only, max_batch=0)


def test_device_is_picked_automatically() -> None:
    batcher = Batcher(random_dual(TicTacToe(), 0))
    assert batcher.device.type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_residual_dual_is_registered() -> None:
    assert "residual-dual" in available_networks()
    net = build_network("residual-dual", in_planes=17, size=9, num_moves=82, blocks=1, channels=8)
    logits, value = net(torch.zeros(2, 17, 9, 9))
    assert logits.shape == (2, 82) and value.shape == (2,)


def test_doctests() -> None:
    failures, tried = doctest.testmod(fuseki.nets.batcher)
    assert tried > 0 and failures == 0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (none in CI; run on a GPU machine)")
@pytest.mark.parametrize("game", [TicTacToe(), GoGame(size=9)], ids=["tictactoe", "go9"])
def test_cuda_matches_the_cpu(game: Game) -> None:
    planes, masks = random_batch(game, 64, seed=3)
    net = random_dual(game, 4)
    cpu_priors, cpu_values = Batcher(net, device="cpu")(planes, masks)
    gpu = Batcher(net, device="cuda")
    assert next(gpu.network.parameters()).device.type == "cuda"
    priors, values = gpu(planes, masks)
    assert np.all(priors[~masks] == 0.0)
    # cuDNN may compute convolutions in TF32, so agreement is to about 1e-3, not to the last bit.
    np.testing.assert_allclose(priors, cpu_priors, atol=2e-3)
    np.testing.assert_allclose(values, cpu_values, atol=2e-3)


@pytest.mark.parametrize("design", ["residual", "conv", "mlp"])
def test_channels_last_layout_gives_the_same_answers_and_leaves_the_weights_alone(design: str) -> None:
    from fuseki.agents.zero_agent import build_zero_network
    from fuseki.games import make_game

    game = make_game("hexapawn") if design == "mlp" else GoGame(size=9)
    torch.manual_seed(3)
    net = build_zero_network(game, 2, 16, 16, network=design)
    planes, masks = random_batch(game, 24, seed=4)
    plain = Batcher(net, device="cpu", channels_last=False)
    nhwc = Batcher(net, device="cpu", channels_last=True)
    x = torch.from_numpy(planes)
    assert nhwc.use_channels_last(x) and not plain.use_channels_last(x)
    p0, v0 = plain(planes, masks)
    p1, v1 = nhwc(planes, masks)
    np.testing.assert_allclose(p1, p0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v1, v0, rtol=1e-5, atol=1e-6)
    assert all(t.is_contiguous() for t in net.parameters())  # a network in training keeps its layout


def test_channels_last_rule_cpu_fp32_batches_of_four_or_more() -> None:
    game = GoGame(size=9)
    net = random_dual(game, 2)
    auto = Batcher(net, device="cpu")
    c, h, w = game.planes_shape
    big = torch.zeros(fuseki.nets.batcher.CHANNELS_LAST_MIN_BATCH, c, h, w)
    assert auto.use_channels_last(big)
    assert not auto.use_channels_last(big[:1])  # one position: the contiguous pass is faster
    assert not auto.use_channels_last(torch.zeros(4, c * h * w))  # flat planes have no layout
    assert not Batcher(net, device="cpu", precision="bf16").use_channels_last(big)  # measured in fp32 only


def test_bf16_gives_float32_answers_close_to_fp32() -> None:
    """The bfloat16 forward pass (an option for self-play) keeps the contract: float32 out, 0 off the mask, rows summing to 1."""
    game = GoGame(size=9)
    planes, masks = random_batch(game, 16, seed=2)
    net = random_dual(game, 1)
    exact, v_exact = Batcher(net, device="cpu")(planes, masks)
    priors, values = Batcher(net, device="cpu", precision="bf16")(planes, masks)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert np.all(priors[~masks] == 0.0)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(priors, exact, atol=0.02)
    np.testing.assert_allclose(values, v_exact, atol=0.05)
    with pytest.raises(ValueError, match="precision"):
        Batcher(net, device="cpu", precision="fp8")


@pytest.mark.parametrize("native", [True, False])
def test_auto_precision_is_bf16_only_where_the_hardware_has_it(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto`` follows the machine: bf16 with bfloat16 hardware, fp32 without (where emulated bf16 is slower)."""
    monkeypatch.setattr(fuseki.nets.batcher, "native_bf16", lambda device: native)
    cpu = torch.device("cpu")
    assert fuseki.nets.batcher.resolve_precision("auto", cpu) == ("bf16" if native else "fp32")
    # an explicit format is kept whatever the hardware: the user's choice, not ours
    assert fuseki.nets.batcher.resolve_precision("bf16", cpu) == "bf16"
    assert fuseki.nets.batcher.resolve_precision("fp32", cpu) == "fp32"
    net = random_dual(TicTacToe(), 1)
    assert Batcher(net, device="cpu", precision="auto").precision == ("bf16" if native else "fp32")
    with pytest.raises(ValueError, match="auto, fp32, bf16"):
        fuseki.nets.batcher.resolve_precision("fp16", cpu)


def test_native_bf16_reads_the_cpu_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU answer comes from torch's feature probes; a torch without them means no bf16 hardware, not an error."""
    cpu = torch.device("cpu")
    for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        monkeypatch.delattr(torch.cpu, name, raising=False)
    assert fuseki.nets.batcher.native_bf16(cpu) is False
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True, raising=False)
    assert fuseki.nets.batcher.native_bf16(cpu) is True
    assert fuseki.nets.batcher.native_bf16(torch.device("meta")) is False
