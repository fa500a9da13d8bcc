"""Policy gradient: the loss, one step's direction, the agent file it writes, and the command's errors."""

from __future__ import annotations

import json

import pytest
import torch
from rl_fixtures import ENC, STATES, encoded
from rl_fixtures import experience as rl_experience

from fuseki.agents.agent_file import read_agent_info, save_agent
from fuseki.cli import main
from fuseki.go.state import GameState
from fuseki.nets.registry import build_network
from fuseki.train.policy_gradient import (
    PG_BOOK,
    RLTrainConfig,
    _pg_loss,
    policy_gradient_loss,
    sgd_train,
    train_policy_gradient,
)
from fuseki.agents.rl_agents import PolicyAgent, load_rl_agent

torch.set_num_threads(1)


def experience(path, rewards=(1.0, -1.0), actions=(12, 6)):
    """Two decisions: ``actions[i]`` in ``STATES[i]`` with ``rewards[i]``, one game each."""
    return rl_experience(path, rewards, actions, agent="test")


def log_probs(model, states=STATES, actions=(12, 6)):
    with torch.no_grad():
        lp = torch.log_softmax(model(encoded(states)), dim=1)
    return [float(lp[i, a]) for i, a in enumerate(actions)]


def fresh():
    torch.manual_seed(0)
    return build_network("fc", in_planes=1, size=5, num_moves=25, hidden=[16])


def test_the_loss_is_minus_reward_times_log_probability():
    logits = torch.tensor([[0.0, 1.0, 2.0]])
    lp = torch.log_softmax(logits, 1)[0]
    assert float(policy_gradient_loss(logits, torch.tensor([2]), torch.tensor([1.0]))) == pytest.approx(-float(lp[2]))
    assert float(policy_gradient_loss(logits, torch.tensor([0]), torch.tensor([-1.0]))) == pytest.approx(float(lp[0]))
    # Keras clips probabilities at 1e-7: past it a lost move is not pushed further
    very = torch.tensor([[0.0, -40.0]], requires_grad=True)
    policy_gradient_loss(very, torch.tensor([1]), torch.tensor([-1.0])).backward()
    assert torch.all(very.grad == 0)


def test_a_step_raises_rewarded_moves_and_lowers_penalised_ones(tmp_path):
    model = fresh()
    before = log_probs(model)
    buf = experience(tmp_path / "e.npz")
    sgd_train(model, buf, _pg_loss, lr=0.5, clipnorm=None, batch_size=2, epochs=1)
    after = log_probs(model)
    assert after[0] > before[0] + 1e-3  # won: more likely
    assert after[1] < before[1] - 1e-3  # lost: less likely


def test_clipnorm_bounds_the_step(tmp_path):
    buf = experience(tmp_path / "e.npz")
    steps = {}
    for clip in (None, 1e-3):
        model = fresh()
        start = torch.nn.utils.parameters_to_vector(model.parameters()).detach().clone()
        sgd_train(model, buf, _pg_loss, lr=1.0, clipnorm=clip, batch_size=2, epochs=1)
        steps[clip] = float((torch.nn.utils.parameters_to_vector(model.parameters()).detach() - start).norm())
    assert steps[1e-3] == pytest.approx(1e-3, rel=1e-3) and steps[None] > 10 * steps[1e-3]


def test_training_writes_a_policy_agent_file_that_loads_and_plays(tmp_path):
    experience(tmp_path / "e.npz")
    start = tmp_path / "start.safetensors"
    save_agent(start, fresh(), encoder=ENC, network="fc", network_options={"hidden": [16]}, metadata={"data": "sl"})
    out = tmp_path / "pg.safetensors"
    result = train_policy_gradient(
        RLTrainConfig(experience=(str(tmp_path / "e.npz"),), out=str(out), start=str(start), lr=0.5, batch_size=2)
    )
    assert result.kind == "policy" and result.positions == 2 and result.games == 2 and result.epochs == 1
    assert result.clipnorm == PG_BOOK.clipnorm and result.lr == 0.5
    info = read_agent_info(out)
    assert info.kind == "policy" and info.training["algorithm"].startswith("policy gradient")
    assert info.training["experience"][0]["sha256"] and "start.safetensors" in info.training["start"]
    agent = load_rl_agent(out, seed=0)
    assert isinstance(agent, PolicyAgent)
    assert log_probs(agent.model)[0] > log_probs(fresh())[0]
    state = GameState.new(5)
    while not state.is_over() and state.move_number < 150:
        move = agent.select_move(state)
        assert state.is_legal(move)
        state = state.play(move)


def test_the_command_trains_a_fresh_network(tmp_path, capsys):
    experience(tmp_path / "e.npz")
    out = tmp_path / "pg.safetensors"
    code = main(["train", "pg", str(tmp_path / "e.npz"), "--network", "fc", "--net-option", "hidden=[8]",
                 "--encoder", "oneplane", "--size", "5", "--out", str(out), "--json", "--quiet"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["kind"] == "policy" and summary["batch_size"] == 1024 and summary["lr"] == 1e-4
    assert read_agent_info(out).network_options == {"hidden": [8]}


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--network", "fc", "--encoder", "oneplane", "--size", "5"], "give --out"),
        (["--network", "fc", "--out", "x.safetensors"], "missing --encoder, --size"),
        (["--from", "a.safetensors", "--network", "fc", "--out", "x.safetensors"], "--from continues"),
        (["--network", "ac", "--encoder", "oneplane", "--size", "5", "--out", "x.safetensors"], "not a policy network"),
        (["--network", "fc", "--encoder", "sevenplane", "--size", "5", "--out", "x.safetensors"], "encoded with 'oneplane'"),
    ],
)
def test_bad_flags_give_one_line_errors(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    experience(tmp_path / "e.npz")
    code = main(["train", "pg", "e.npz", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_a_bad_number_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as info:
        main(["train", "pg", "e.npz", "--from", "a.safetensors", "--out", "x", "--lr", "-1"])
    assert info.value.code == 2 and "--lr: must be a positive number" in capsys.readouterr().err


def test_missing_or_foreign_experience_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "bad.npz").write_bytes(b"nope")
    for name in ("missing.npz", "bad.npz"):
        code = main(["train", "pg", str(tmp_path / name), "--network", "fc", "--encoder", "oneplane", "--size", "5",
                     "--out", str(tmp_path / "x.safetensors")])
        err = capsys.readouterr().err
        assert code == 2 and name in err and len(err.strip().splitlines()) == 1
    assert main(["train", "pg", "--network", "fc"]) == 2
    assert "at least one experience file" in capsys.readouterr().err
