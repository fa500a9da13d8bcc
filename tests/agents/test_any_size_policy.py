"""Policy networks that play every board size: the residual net's convolutional policy head.

A network none of whose weights depends on the board size (a 1×1 conv to one
logit a point instead of a dense layer over the board) is read by the same
encoder built for each size; the agent file says so by rebuilding the network
at two sizes (``AgentFileInfo.any_size``), and the policy bot, the default
bot's check and the web's model check then accept other sizes. A dense head
still ties a network to its size, with the same clear refusal as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents.agent_file import read_agent_info, save_agent  # noqa: E402
from fuseki.agents.base import agent_board_sizes  # noqa: E402
from fuseki.agents.deep_learning import ShippedPolicyAgent, load_prediction_agent  # noqa: E402
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.go.coords import from_gtp  # noqa: E402
from fuseki.go.state import GameState, Move  # noqa: E402
from fuseki.nets.registry import build_network  # noqa: E402
from fuseki.util.errors import InputError  # noqa: E402

ENCODER = "sevenplane"


def policy_file(folder: Path, head: str, size: int = 9, name: str | None = None) -> Path:
    """A small residual policy on ``size`` with the given head, random weights (seeded)."""
    torch.manual_seed(7)
    enc = get_encoder(ENCODER, size)
    options = {"blocks": 1, "channels": 8, "policy_head": head}
    net = build_network("residual", in_planes=enc.num_planes, size=size, num_moves=enc.num_moves, **options)
    path = folder / f"{name or head}.safetensors"
    save_agent(path, net, encoder=enc, network="residual", network_options=options, metadata={"data": "none"})
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("any-size")
    return {head: policy_file(folder, head) for head in ("conv", "dense")}


def test_the_conv_head_has_no_weight_that_depends_on_the_size() -> None:
    shapes = []
    for size in (9, 19):
        enc = get_encoder(ENCODER, size)
        net = build_network(
            "residual", in_planes=enc.num_planes, size=size, num_moves=enc.num_moves, blocks=1, channels=8, policy_head="conv"
        )
        shapes.append({k: tuple(v.shape) for k, v in net.state_dict().items()})
    assert shapes[0] == shapes[1]
    with pytest.raises(InputError, match="one logit a point: 81 moves on 9x9, not 82"):
        build_network("residual", in_planes=7, size=9, num_moves=82, policy_head="conv")
    with pytest.raises(InputError, match="policy_head must be one of dense, conv"):
        build_network("residual", in_planes=7, size=9, num_moves=81, policy_head="global")


def test_the_agent_file_says_which_networks_play_any_size(files: dict[str, Path]) -> None:
    conv, dense = read_agent_info(files["conv"]), read_agent_info(files["dense"])
    assert conv.any_size and conv.plays(13) and conv.plays(19) and conv.plays(9)
    assert not dense.any_size and dense.plays(9) and not dense.plays(13)
    assert conv.make_encoder(13).size == 13 and conv.make_encoder().size == 9


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_a_conv_policy_plays_every_size_with_its_one_set_of_weights(files: dict[str, Path], size: int) -> None:
    agent = load_prediction_agent(files["conv"], mode="argmax")
    assert agent.board_size is None and agent_board_sizes(agent) is None and agent.plays(size)
    state = GameState.new(size)
    for _ in range(6):
        move = agent.select_move(state)
        assert state.is_legal(move)
        state = state.play(move)
    probs = agent.predict([state, GameState.new(size)])
    assert probs.shape == (2, size * size) and abs(probs.sum(axis=1) - 1).max() < 1e-5
    assert agent.analyze(state)["top"]


def test_the_same_weights_give_the_same_local_judgement_on_each_size(files: dict[str, Path]) -> None:
    # A stone in the corner sees the same neighbourhood on 9x9 and 13x13: the logits there must agree
    # (the receptive field of one block and the stem, 5x5, stays inside the corner).
    agent = load_prediction_agent(files["conv"])
    logits = []
    for size in (9, 13):
        state = GameState.new(size)
        state = state.play(Move.play(from_gtp("B2", size)))
        row = agent.logits([state])[0].reshape(size, size)
        logits.append(row[size - 3 :, :3])  # the lower left 3x3 corner
    assert torch.allclose(torch.from_numpy(logits[0]), torch.from_numpy(logits[1]), atol=1e-5)


def test_a_dense_policy_still_refuses_another_size(files: dict[str, Path]) -> None:
    agent = load_prediction_agent(files["dense"])
    assert agent.board_size == 9 and agent_board_sizes(agent) == (9,) and not agent.plays(13)
    with pytest.raises(InputError, match="plays 9x9 only .* not 13x13"):
        agent.select_move(GameState.new(13))


def test_a_shipped_any_size_network_can_stand_for_another_size(files: dict[str, Path]) -> None:
    bot = ShippedPolicyAgent({13: files["conv"], 9: files["dense"]}, mode="argmax")
    assert bot.board_sizes == (9, 13)
    assert GameState.new(13).is_legal(bot.select_move(GameState.new(13)))
    wrong = ShippedPolicyAgent({13: files["dense"]})
    with pytest.raises(ValueError, match="the shipped policy for 13x13 was trained on 9x9"):
        wrong.select_move(GameState.new(13))


def test_the_default_bot_and_the_web_accept_an_any_size_network(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import fuseki.agents.by_size as by_size
    import fuseki.util.models as models
    from fuseki.web.models import SettingsError, _check_policy_model

    for head in ("conv", "dense"):
        (tmp_path / f"{head}.safetensors").write_bytes(files[head].read_bytes())
    monkeypatch.setattr(models, "models_dirs", lambda: [tmp_path])
    monkeypatch.setitem(by_size.DEFAULT_BOTS, 13, by_size.DefaultBot("policy", {"model": "conv"}, "a test"))
    chosen = by_size.resolve_default(13)
    assert (chosen.bot, chosen.fallback, chosen.model_path) == ("policy", None, tmp_path / "conv.safetensors")
    monkeypatch.setitem(by_size.DEFAULT_BOTS, 13, by_size.DefaultBot("policy", {"model": "dense"}, "a test"))
    chosen = by_size.resolve_default(13)
    assert chosen.bot == "mcts" and chosen.fallback == "the shipped policy network dense was trained on 9x9"
    _check_policy_model({"model": "conv"}, 13)  # accepted
    with pytest.raises(SettingsError, match="plays 9x9 only, not 13x13"):
        _check_policy_model({"model": "dense"}, 13)
