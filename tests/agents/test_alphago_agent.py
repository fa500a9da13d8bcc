"""The shipped 9x9 AlphaGo model: `--bot alphago` plays it without --model; a missing part is a clear error."""

from __future__ import annotations

import pytest

from fuseki.agents import make_agent
from fuseki.go import GameState
from fuseki.util.errors import InputError


def test_the_shipped_model_plays_a_legal_move():
    bot = make_agent("alphago", playouts=40, seed=1, device="cpu")
    s = GameState.new(9, komi=7.5).play(40)
    move = bot.select_move(s)
    assert s.is_legal(move) and bot.last_info.simulations == 40
    assert bot.board_size == 9


def test_a_part_the_model_lacks_is_named():
    with pytest.raises(InputError, match="no rl policy file"):
        make_agent("alphago", priors="rl", device="cpu")
    with pytest.raises(InputError, match="no AlphaGo model folder"):
        make_agent("alphago", model="no-such-model", device="cpu")


def test_the_shipped_networks_evaluate_at_full_speed_with_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader zeroed the SL policy's subnormal weights (15 % of them), and a batch goes in channels-last.

    Neither changes an answer beyond float rounding: the priors and values of
    a batch of 16 equal those of the contiguous layout.
    """
    import numpy as np
    import torch

    import fuseki.nets.batcher as batcher
    from fuseki.agents.alphago_agent import load_alphago_model

    model = load_alphago_model("alphago-9x9", device="cpu")
    tiny = torch.finfo(torch.float32).tiny
    for net in (model.policy, model.value):
        assert not any(((p != 0) & (p.abs() < tiny)).any() for p in net.parameters())
    planes = (np.random.default_rng(3).random((16, 49, 9, 9)) < 0.3).astype(np.float32)
    priors, values = model.evaluate(planes, True, True)
    monkeypatch.setattr(batcher, "CHANNELS_LAST_MIN_BATCH", 10**9)  # the rule now says: never
    plain_priors, plain_values = model.evaluate(planes, True, True)
    assert priors.shape == (16, 81) and values.shape == (16,)
    np.testing.assert_allclose(priors, plain_priors, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(values, plain_values, rtol=1e-4, atol=1e-6)
