"""Actor-critic: the weighted loss, a step that updates both heads, the ac agent file, the command."""

from __future__ import annotations

import json

import pytest
import torch
from rl_fixtures import ACTIONS, encoded, experience

from fuseki.agents.agent_file import read_agent_info
from fuseki.cli import main
from fuseki.go.state import GameState
from fuseki.nets.registry import build_network
from fuseki.train.actor_critic import AC_BOOK, _loss, actor_critic_loss, train_actor_critic
from fuseki.train.policy_gradient import RLTrainConfig, policy_gradient_loss, sgd_train
from fuseki.agents.rl_agents import ACAgent, load_rl_agent

torch.set_num_threads(1)

OPTIONS = {"layers": [[4, 3]], "board_hidden": 16, "policy_hidden": 16, "value_hidden": 16}


def heads(model):
    with torch.no_grad():
        logits, values = model(encoded())
    lp = torch.log_softmax(logits, 1)
    return [float(lp[i, a]) for i, a in enumerate(ACTIONS)], values.tolist()


def test_the_loss_weights_the_policy_by_1_and_the_value_by_half():
    logits, values = torch.randn(3, 5), torch.tensor([0.2, -0.4, 0.9])
    actions, rewards, adv = torch.tensor([0, 2, 4]), torch.tensor([1.0, -1.0, 1.0]), torch.tensor([0.8, -0.6, 0.1])
    total, policy, value = actor_critic_loss(logits, values, actions, rewards, adv)
    assert float(policy) == pytest.approx(float(policy_gradient_loss(logits, actions, adv)))
    assert float(value) == pytest.approx(float(((values - rewards) ** 2).mean()))
    assert float(total) == pytest.approx(float(policy) + 0.5 * float(value))


def test_a_step_updates_both_heads_towards_their_targets(tmp_path):
    torch.manual_seed(2)
    model = build_network("ac", in_planes=1, size=5, num_moves=25, **OPTIONS)
    buf = experience(tmp_path / "e.npz", values=(0.25, -0.5))  # advantages 0.75 and -0.5
    policy_before = [p.detach().clone() for p in model.policy.parameters()]
    value_before = [p.detach().clone() for p in model.value.parameters()]
    (lp0, v0) = heads(model)
    sgd_train(model, buf, _loss, lr=0.2, clipnorm=None, batch_size=2, epochs=2)
    (lp1, v1) = heads(model)
    assert any(not torch.equal(a, b) for a, b in zip(policy_before, model.policy.parameters()))
    assert any(not torch.equal(a, b) for a, b in zip(value_before, model.value.parameters()))
    assert lp1[0] > lp0[0] and lp1[1] < lp0[1]  # positive advantage: more likely; negative: less
    assert abs(v1[0] - 1) < abs(v0[0] - 1) and abs(v1[1] + 1) < abs(v0[1] + 1)  # values towards the rewards


def test_training_writes_an_ac_agent_file_that_loads_and_plays(tmp_path, capsys):
    experience(tmp_path / "e.npz")
    out = tmp_path / "ac.safetensors"
    result = train_actor_critic(
        RLTrainConfig(experience=(str(tmp_path / "e.npz"),), out=str(out), network="ac", encoder="oneplane", size=5,
                      net_options=OPTIONS, batch_size=2)
    )
    assert result.kind == "ac" and result.lr == AC_BOOK.lr and set(result.losses[0]) == {"loss", "policy_loss", "value_loss"}
    assert read_agent_info(out).training["algorithm"].startswith("actor-critic")
    agent = load_rl_agent(out, seed=0)
    assert isinstance(agent, ACAgent)
    state = GameState.new(5)
    while not state.is_over() and state.move_number < 150:
        move = agent.select_move(state)
        assert state.is_legal(move)
        state = state.play(move)
    code = main(["train", "ac", str(tmp_path / "e.npz"), "--from", str(out), "--out", str(tmp_path / "ac2.safetensors"),
                 "--epochs", "2", "--json", "--quiet"])
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert code == 0 and summary["epochs"] == 2 and len(summary["losses"]) == 2


def test_the_command_needs_an_actor_critic_network(tmp_path, capsys):
    experience(tmp_path / "e.npz")
    code = main(["train", "ac", str(tmp_path / "e.npz"), "--network", "q", "--encoder", "oneplane", "--size", "5",
                 "--out", str(tmp_path / "x.safetensors")])
    err = capsys.readouterr().err
    assert code == 2 and "not an actor-critic network" in err and "Traceback" not in err


def test_init_writes_an_untrained_agent_to_start_self_play(tmp_path, capsys):
    out = tmp_path / "ac_v1.safetensors"
    code = main(["train", "ac", "--init", "--network", "ac", "--net-option", "layers=[[4,3]]", "--encoder", "oneplane",
                 "--size", "5", "--out", str(out), "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out.splitlines()[-1])["trained"] is False
    assert isinstance(load_rl_agent(out), ACAgent)
    assert main(["train", "ac", "--init", "--from", str(out), "--out", str(tmp_path / "x.safetensors")]) == 2
    assert "it takes no --from" in capsys.readouterr().err
