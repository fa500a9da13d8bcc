"""The RPROP family (thesis §1.4.2-1.4.4): step-size rules by hand, backtracking, SARPROP's noise, torch parity."""

from __future__ import annotations

import copy

import pytest
import torch

from fuseki.deadstones.mlp import DeadStoneMLP
from fuseki.deadstones.rprop import (
    ALGORITHMS,
    DELTA_MAX,
    DELTA_MIN,
    IRpropPlus,
    RpropPlus,
    Sarprop,
    algorithm_label,
    make_optimizer,
)


pytestmark = pytest.mark.usefixtures("one_thread")


def _param(values: list[float]) -> torch.nn.Parameter:
    return torch.nn.Parameter(torch.tensor(values, dtype=torch.float64))


def _step(opt: torch.optim.Optimizer, p: torch.Tensor, grad: list[float], error: float | None = None) -> list[float]:
    p.grad = torch.tensor(grad, dtype=torch.float64)
    opt.step(error=error)  # type: ignore[call-arg]
    return p.detach().tolist()


def _delta(opt: torch.optim.Optimizer, p: torch.Tensor) -> list[float]:
    return opt.state[p]["delta"].tolist()


def _separable() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(64, 4, generator=g, dtype=torch.float64)
    y = (x[:, 0] - 0.5 * x[:, 1] > 0).to(torch.float64)
    return x, y


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_algorithm_lowers_the_loss(name: str) -> None:
    x, y = _separable()
    net = DeadStoneMLP("4-3-1", seed=0)
    net.fit_scaling(x)
    opt = make_optimizer(name, net.parameters(), seed=0)

    def closure() -> float:
        opt.zero_grad()
        mse = ((net(x) - y) ** 2).mean()
        mse.backward()
        return float(mse.detach().sqrt())

    first = closure()
    errors = [float(opt.step(closure)) for _ in range(150)]  # type: ignore[arg-type]
    assert min(errors) < 0.5 * first
    assert errors[-1] < first


def test_xor_is_learned_by_irprop_plus() -> None:
    x = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=torch.float64)
    y = torch.tensor([0, 1, 1, 0], dtype=torch.float64)
    net = DeadStoneMLP("2-4-1", seed=1)
    opt = IRpropPlus(net.parameters())

    def closure() -> float:
        opt.zero_grad()
        mse = ((net(x) - y) ** 2).mean()
        mse.backward()
        return float(mse.detach().sqrt())

    for _ in range(400):
        opt.step(closure)
    with torch.no_grad():
        assert ((net(x) > 0.5).to(torch.float64) == y).all()


def test_rprop_plus_step_rule_by_hand() -> None:
    p = _param([0.0, 0.0, 0.0, 0.0])
    opt = RpropPlus([p], delta0=0.1)
    # First epoch: no previous gradient -> move by -sign(g)*Δ0, Δ unchanged; a zero gradient does not move.
    assert _step(opt, p, [1.0, -1.0, 2.0, 0.0]) == pytest.approx([-0.1, 0.1, -0.1, 0.0])
    assert _delta(opt, p) == pytest.approx([0.1, 0.1, 0.1, 0.1])
    # Same sign -> Δ·η+ = 0.12 and a step; flipped sign -> Δ·η- = 0.05 and the last step undone;
    # previous gradient zero -> plain step with Δ.
    assert _step(opt, p, [3.0, -0.5, -1.0, 1.0]) == pytest.approx([-0.22, 0.22, 0.0, -0.1])
    assert _delta(opt, p) == pytest.approx([0.12, 0.12, 0.05, 0.1])
    # After a flip the stored gradient is 0: the next epoch steps with the shrunk Δ, whatever the sign.
    assert opt.state[p]["prev_grad"].tolist()[2] == 0.0
    # Element 3 flips now (its last step, -0.1, is undone and Δ halves).
    assert _step(opt, p, [1.0, -1.0, 5.0, -1.0]) == pytest.approx([-0.364, 0.364, -0.05, 0.0])
    assert _delta(opt, p) == pytest.approx([0.144, 0.144, 0.05, 0.05])


def test_step_sizes_are_capped_by_delta_min_and_delta_max() -> None:
    big = _param([0.0])
    opt = RpropPlus([big], delta0=45.0)
    _step(opt, big, [1.0])
    _step(opt, big, [1.0])
    assert _delta(opt, big) == [DELTA_MAX]  # 45·1.2 = 54 -> 50
    assert big.item() == pytest.approx(-95.0)
    small = _param([0.0])
    opt = RpropPlus([small], delta0=1.5e-6)
    _step(opt, small, [1.0])
    _step(opt, small, [-1.0])
    assert _delta(opt, small) == [DELTA_MIN]  # 1.5e-6·0.5 = 7.5e-7 -> 1e-6
    assert small.item() == pytest.approx(0.0)  # the first step was undone


@pytest.mark.parametrize(("second_error", "reverted"), [(2.0, True), (1.0, False), (0.5, False)])
def test_irprop_plus_backtracks_only_when_the_error_rose(second_error: float, reverted: bool) -> None:
    p = _param([0.0, 0.0])
    opt = IRpropPlus([p], delta0=0.1)
    _step(opt, p, [1.0, 1.0], error=1.0)
    after = _step(opt, p, [-1.0, 1.0], error=second_error)
    # The flipped weight is reset to 0 when E(t) > E(t-1), else it stays; the other keeps stepping.
    assert after == pytest.approx([0.0 if reverted else -0.1, -0.22])
    assert _delta(opt, p) == pytest.approx([0.05, 0.12])


def test_error_driven_methods_need_the_error() -> None:
    p = _param([0.0])
    p.grad = torch.ones(1, dtype=torch.float64)
    for opt in (IRpropPlus([p]), Sarprop([p])):
        with pytest.raises(ValueError, match="needs the epoch's error"):
            opt.step()
    with pytest.raises(ValueError, match="finite"):
        IRpropPlus([p]).step(error=float("nan"))
    RpropPlus([p]).step()  # plain RPROP does not use it


def test_sarprop_noise_matches_a_hand_computation() -> None:
    seed, t, k3, error = 7, 0.01, 3.0, 0.5
    p = _param([0.0, 0.0, 0.0])
    opt = Sarprop([p], temperature=t, seed=seed, delta0=0.01)
    _step(opt, p, [1.0, 1.0, -1.0], error=error)  # epoch 0: plain steps of 0.01
    before = p.detach().clone()
    after = _step(opt, p, [-1.0, 1.0, 1.0], error=error)  # epoch 1: elements 0 and 2 flip
    r = torch.rand(3, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    # Δ_prev = 0.01 < k2·E² = 0.025, so Δ = Δ_prev·η- + k3·E·r·2^(-T·epoch) (formula 2), epoch = 1 passed.
    expected = [0.01 * 0.5 + k3 * error * float(r[i]) * 2 ** (-t * 1) for i in range(3)]
    delta = _delta(opt, p)
    assert delta[0] == pytest.approx(expected[0])
    assert delta[2] == pytest.approx(expected[2])
    assert delta[1] == pytest.approx(0.012)  # same sign: Δ·η+
    # No backtracking: the flipped weights stay where they were.
    assert after[0] == before[0].item() and after[2] == before[2].item()
    assert after[1] == pytest.approx(before[1].item() - 0.012)


def test_sarprop_without_noise_when_the_step_is_large() -> None:
    p = _param([0.0])
    opt = Sarprop([p], delta0=0.1)  # 0.1 >= k2·E² = 0.025: plain shrink, no noise drawn
    _step(opt, p, [1.0], error=0.5)
    state = opt.generator.get_state().clone()
    _step(opt, p, [-1.0], error=0.5)
    assert _delta(opt, p) == pytest.approx([0.05])
    assert torch.equal(opt.generator.get_state(), state)


def test_sarprop_k1_term_as_printed() -> None:
    # g' = g - k1·w·2^(-T·epoch): with w = 1, g = 0.005 and k1 = 0.01 the sign flips, so w grows.
    p = _param([1.0])
    opt = Sarprop([p], k1=0.01, temperature=0.01, delta0=0.1)
    assert _step(opt, p, [0.005], error=0.1) == pytest.approx([1.1])
    p2 = _param([1.0])
    assert _step(Sarprop([p2], delta0=0.1), p2, [0.005], error=0.1) == pytest.approx([0.9])


def test_sarprop_without_noise_equals_torch_rprop_step_by_step() -> None:
    """torch.optim.Rprop is iRPROP-: our SARPROP with k2 = 0 is the same algorithm."""
    x, y = _separable()
    ours_net = DeadStoneMLP("4-3-1", seed=5)
    ours_net.fit_scaling(x)
    torch_net = copy.deepcopy(ours_net)
    ours = Sarprop(ours_net.parameters(), k2=0.0, delta0=0.1)
    ref = torch.optim.Rprop(torch_net.parameters(), lr=0.1, etas=(0.5, 1.2), step_sizes=(DELTA_MIN, DELTA_MAX))

    def closure_for(net: DeadStoneMLP, opt: torch.optim.Optimizer):  # type: ignore[no-untyped-def]
        def closure() -> float:
            opt.zero_grad()
            mse = ((net(x) - y) ** 2).mean()
            mse.backward()
            return float(mse.detach().sqrt())

        return closure

    for _ in range(40):
        ours.step(closure_for(ours_net, ours))
        ref.step(closure_for(torch_net, ref))
        for a, b in zip(ours_net.parameters(), torch_net.parameters(), strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-15)


def test_sarprop_state_dict_carries_the_noise_generator() -> None:
    def run(resume_at: int | None) -> list[float]:
        p = _param([0.0] * 5)
        opt = Sarprop([p], delta0=0.01, seed=3)
        grads = [[1.0] * 5, [-1.0] * 5, [1.0] * 5, [-1.0] * 5, [1.0] * 5, [-1.0] * 5]
        for i, g in enumerate(grads):
            if i == resume_at:
                saved, values = copy.deepcopy(opt.state_dict()), p.detach().clone()
                p = torch.nn.Parameter(values)
                opt = Sarprop([p], delta0=0.01, seed=999)
                opt.load_state_dict(saved)
            _step(opt, p, g, error=0.5)
        return p.detach().tolist()

    assert run(None) == run(3)


def test_make_optimizer_and_labels() -> None:
    p = [torch.nn.Parameter(torch.zeros(2))]
    assert isinstance(make_optimizer("rprop", p), RpropPlus)
    assert isinstance(make_optimizer("irprop+", p), IRpropPlus)
    opt = make_optimizer("sarprop-0.02", p)
    assert isinstance(opt, Sarprop) and opt.param_groups[0]["temperature"] == 0.02
    assert algorithm_label("sarprop-0.01") == "SARPROP (T=0.010)"
    with pytest.raises(ValueError, match="unknown algorithm"):
        make_optimizer("adam", p)
    with pytest.raises(ValueError, match="delta0"):
        RpropPlus(p, delta0=100.0)
