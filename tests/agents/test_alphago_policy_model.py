"""A model folder of a policy alone (`fuseki alphago model`): it plays lam=0 with heavy or light playouts, and
asking it for a value network or a rollout policy is one clear error."""

from __future__ import annotations

import json

import pytest
import torch

from fuseki.agents import make_agent
from fuseki.agents.agent_file import save_agent
from fuseki.agents.alphago_folder import make_model_folder
from fuseki.cli import main
from fuseki.encoders import get_encoder
from fuseki.go import GameState
from fuseki.nets.registry import build_network
from fuseki.util.atomic import sha256_file
from fuseki.util.errors import InputError

torch.set_num_threads(1)


def _save(path, encoder, network, size, **options):
    torch.manual_seed(0)
    enc = get_encoder(encoder, size)
    net = build_network(network, in_planes=enc.num_planes, size=size, num_moves=enc.num_moves, **options)
    save_agent(path, net, encoder=enc, network=network, network_options=options, metadata={"final": {"test_top1": 0.25}, "data": "none"})
    return path


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    """A tiny random policy network on the 48 AlphaGo planes, 9x9."""
    return _save(tmp_path_factory.mktemp("p") / "policy9.safetensors", "alphago", "alphago-policy", 9, layers=2, filters=4)


@pytest.fixture(scope="module")
def model(policy, tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "policy-only"
    make_model_folder(out, policy)
    return out


def test_the_folder_records_the_size_and_where_the_policy_came_from(model, policy):
    manifest = json.loads((model / "model.json").read_text())
    assert manifest["board_size"] == 9 and manifest["files"] == {"sl_policy": "sl_policy.safetensors"}
    assert manifest["sha256"]["sl_policy"] == sha256_file(policy) == manifest["sources"]["sl_policy"]["sha256"]
    source = manifest["sources"]["sl_policy"]
    assert source["path"] == str(policy.resolve()) and source["network"] == "alphago-policy"
    assert source["training"]["data"] == "none" and manifest["metrics"] == {"sl_test_top1": 0.25}
    assert "lam=0, rollout=heavy" in manifest["note"]


def test_a_policy_only_model_plays_legal_moves_with_lam_0_and_heavy_playouts(model):
    bot = make_agent("alphago", model=str(model), playouts=60, seed=1, device="cpu")
    # Left out, lam and rollout are the ones this model can play (documented in the agent's notes).
    assert (bot.search.config.lam, bot.search.config.rollout) == (0.0, "heavy")
    assert bot.name == "alphago(lam=0,rollout=heavy)"
    s = GameState.new(9, komi=7.5)
    for _ in range(3):
        move = bot.select_move(s)
        assert s.is_legal(move) and move.is_play
        assert bot.last_info.simulations == 60 and bot.last_info.evaluations > 0
        s = s.play(move)
    light = make_agent("alphago", model=str(model), playouts=30, lam=0, rollout="light", seed=1, device="cpu")
    assert s.is_legal(light.select_move(s))


def test_fpu_reduction_keeps_the_search_on_the_policy_s_moves(model):
    """With a large reduction an unvisited root move is worth much less than its parent: fewer moves get tried."""
    tried = {}
    for reduction in (0.0, 0.5):
        bot = make_agent("alphago", model=str(model), playouts=200, fpu_reduction=reduction, seed=1, device="cpu")
        s = GameState.new(9, komi=7.5)
        assert s.is_legal(bot.select_move(s))
        tried[reduction] = sum(1 for c in bot.last_info.children if c.visits > 0)
    assert tried[0.5] < tried[0.0]
    with pytest.raises(InputError, match="fpu_reduction must be from 0 to 1"):
        make_agent("alphago", model=str(model), fpu_reduction=2, device="cpu")


def test_asking_for_a_missing_part_is_one_clear_error(model):
    with pytest.raises(InputError, match="no value network: play it with lam=0"):
        make_agent("alphago", model=str(model), lam=0.5, rollout="heavy", device="cpu")
    with pytest.raises(InputError, match="no value network: play it with lam=0"):
        make_agent("alphago", model=str(model), lam=1, device="cpu")
    # An explicit rollout=policy is refused, not quietly replaced by heavy playouts.
    with pytest.raises(InputError, match="no rollout policy: play it with rollout=heavy"):
        make_agent("alphago", model=str(model), lam=0, rollout="policy", device="cpu")
    with pytest.raises(InputError, match="no rl policy file.*priors=sl"):
        make_agent("alphago", model=str(model), priors="rl", device="cpu")
    with pytest.raises(InputError, match="lam must be a number from 0 to 1"):
        make_agent("alphago", model=str(model), lam=2, device="cpu")


def test_a_part_model_json_names_must_be_there(model, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(model, broken)
    manifest = json.loads((broken / "model.json").read_text())
    manifest["files"]["value"] = "value.safetensors"
    (broken / "model.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="no value file"):
        make_agent("alphago", model=str(broken), device="cpu")


def test_the_command_makes_a_model_and_refuses_bad_input_in_one_line(policy, tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["alphago", "model", "--policy", str(policy), "--out", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "an AlphaGo model for 9x9" in lines[0] and "--bot alphago --model" in lines[1]
    assert json.loads(lines[2])["board_size"] == 9 and (out / "sl_policy.safetensors").is_file()

    def refused(argv, words):
        assert main(argv) == 2
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1 and words in err[0], captured.err
        assert not (tmp_path / "never" / "model.json").exists()

    refused(["alphago", "model", "--policy", str(policy), "--out", str(out)], "already holds a model")
    refused(["alphago", "model", "--policy", str(tmp_path / "nope.safetensors"), "--out", str(tmp_path / "never")], "no such agent file")
    oneplane = _save(tmp_path / "oneplane.safetensors", "oneplane", "alphago-policy", 9, layers=2, filters=4)
    refused(["alphago", "model", "--policy", str(oneplane), "--out", str(tmp_path / "never")], "not an AlphaGo policy")
    value = _save(tmp_path / "value13.safetensors", "alphago49", "alphago-value", 13, layers=2, filters=4, hidden=8)
    refused(["alphago", "model", "--policy", str(policy), "--value", str(value), "--out", str(tmp_path / "never")], "not an AlphaGo value")
    refused(["alphago", "model", "--policy", str(policy), "--rules", "nope", "--out", str(tmp_path / "never")], "unknown rule set")


def test_the_alphago_benchmark_says_it_needs_a_full_model(model):
    from fuseki.bench.alphago import Config, run

    with pytest.raises(ValueError, match="needs a model with a value network and a rollout policy"):
        run(Config(model=str(model), device="cpu"))


def test_a_policy_of_any_size_makes_a_model_that_plays_every_board(tmp_path):
    from fuseki.agents.base import agent_board_sizes

    policy = _save(tmp_path / "any.safetensors", "alphago", "residual", 9, blocks=1, channels=8, policy_head="conv")
    out = tmp_path / "any-model"
    manifest = make_model_folder(out, policy)
    assert manifest["board_size"] == 9 and manifest["any_size"] and "on every board size" in manifest["note"]
    bot = make_agent("alphago", model=str(out), playouts=40, seed=2, device="cpu")
    assert bot.board_size is None and agent_board_sizes(bot) is None
    for size in (9, 13, 7):
        s = GameState.new(size, komi=7.5)
        for _ in range(2):
            move = bot.select_move(s)
            assert s.is_legal(move) and move.is_play
            assert bot.last_info.evaluations > 0  # the network's priors, read on this board
            s = s.play(move)


def test_a_value_network_keeps_an_any_size_policy_s_model_on_its_board(tmp_path):
    policy = _save(tmp_path / "any.safetensors", "alphago", "residual", 9, blocks=1, channels=8, policy_head="conv")
    torch.manual_seed(0)
    enc = get_encoder("alphago49", 9)
    options = {"layers": 2, "filters": 4, "hidden": 8}
    net = build_network("alphago-value", in_planes=enc.num_planes, size=9, num_moves=enc.num_moves, **options)
    value = tmp_path / "value9.safetensors"
    save_agent(value, net, encoder=enc, network="alphago-value", network_options=options, metadata={}, kind="value")
    out = tmp_path / "with-value"
    manifest = make_model_folder(out, policy, value=value)
    assert not manifest["any_size"] and "every board size" not in manifest["note"]
    bot = make_agent("alphago", model=str(out), playouts=20, seed=2, device="cpu")
    assert bot.board_size == 9
    with pytest.raises(InputError, match="plays 9x9 only, not 13x13"):
        bot.select_move(GameState.new(13, komi=7.5))
