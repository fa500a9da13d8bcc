"""Q-learning: the loss, a step towards the reward, the q agent file, and the command's errors."""

from __future__ import annotations

import json

import pytest
import torch
from rl_fixtures import ACTIONS, encoded, experience

from fuseki.agents.agent_file import read_agent_info
from fuseki.cli import main
from fuseki.go.state import GameState
from fuseki.nets.registry import build_network
from fuseki.train.policy_gradient import RLTrainConfig, sgd_train
from fuseki.train.q_learning import Q_BOOK, _loss, q_loss, train_q_learning
from fuseki.agents.rl_agents import QAgent, load_rl_agent

torch.set_num_threads(1)

OPTIONS = {"layers": [[4, 3]], "board_hidden": 16, "hidden": 16}


def q_values(model):
    with torch.no_grad():
        return model(encoded(), torch.eye(25)[list(ACTIONS)]).tolist()


def test_the_loss_is_the_mean_squared_error():
    assert float(q_loss(torch.tensor([0.0, 0.5]), torch.tensor([1.0, -1.0]))) == pytest.approx((1 + 2.25) / 2)


def test_a_step_moves_q_towards_the_reward(tmp_path):
    torch.manual_seed(1)
    model = build_network("q", in_planes=1, size=5, num_moves=25, **OPTIONS)
    buf = experience(tmp_path / "e.npz")
    before = q_values(model)
    sgd_train(model, buf, _loss, lr=Q_BOOK.lr, clipnorm=None, batch_size=2, epochs=3)
    after = q_values(model)
    assert after[0] > before[0] and after[1] < before[1]
    assert abs(after[0] - 1) < abs(before[0] - 1) and abs(after[1] + 1) < abs(before[1] + 1)


def test_training_writes_a_q_agent_file_that_loads_and_plays(tmp_path, capsys):
    experience(tmp_path / "e.npz")
    out = tmp_path / "q.safetensors"
    result = train_q_learning(
        RLTrainConfig(experience=(str(tmp_path / "e.npz"),), out=str(out), network="q", encoder="oneplane", size=5,
                      net_options=OPTIONS)
    )
    assert (result.kind, result.lr, result.batch_size, result.clipnorm) == ("q", 0.1, 128, None)
    assert read_agent_info(out).kind == "q"
    agent = load_rl_agent(out, seed=0, epsilon=0.2)
    assert isinstance(agent, QAgent)
    state = GameState.new(5)
    while not state.is_over() and state.move_number < 150:
        move = agent.select_move(state)
        assert state.is_legal(move)
        state = state.play(move)
    # and through the command, continuing the file
    code = main(["train", "q", str(tmp_path / "e.npz"), "--from", str(out), "--out", str(tmp_path / "q2.safetensors"),
                 "--json", "--quiet"])
    assert code == 0 and json.loads(capsys.readouterr().out.splitlines()[-1])["kind"] == "q"


def test_the_command_refuses_networks_and_files_of_another_kind(tmp_path, capsys):
    experience(tmp_path / "e.npz")
    code = main(["train", "q", str(tmp_path / "e.npz"), "--network", "fc", "--encoder", "oneplane", "--size", "5",
                 "--out", str(tmp_path / "x.safetensors")])
    assert code == 2 and "is not a Q network" in capsys.readouterr().err
    main(["train", "pg", str(tmp_path / "e.npz"), "--network", "fc", "--net-option", "hidden=[8]", "--encoder",
          "oneplane", "--size", "5", "--out", str(tmp_path / "pg.safetensors"), "--quiet"])
    capsys.readouterr()
    code = main(["train", "q", str(tmp_path / "e.npz"), "--from", str(tmp_path / "pg.safetensors"),
                 "--out", str(tmp_path / "x.safetensors")])
    err = capsys.readouterr().err
    assert code == 2 and "is a 'policy' agent file" in err and "Traceback" not in err
