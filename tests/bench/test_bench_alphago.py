"""fuseki bench alphago: every contender measured on a tiny model folder; bad flags are one-line errors."""

from __future__ import annotations

import json

import pytest
import torch

from fuseki.agents.agent_file import save_agent
from fuseki.bench import alphago as bench_alphago
from fuseki.cli import main
from fuseki.encoders import get_encoder
from fuseki.nets.registry import build_network
from fuseki.search.go.rollout_policy import RolloutPolicy


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A model folder of untrained networks on 5x5: what `fuseki alphago train` leaves, minus the training."""
    out = tmp_path_factory.mktemp("model")
    torch.manual_seed(0)
    enc48, enc49 = get_encoder("alphago", 5), get_encoder("alphago49", 5)
    options = {"layers": 2, "filters": 4}
    policy = build_network("alphago-policy", in_planes=48, size=5, num_moves=25, **options)
    save_agent(out / "sl.safetensors", policy, encoder=enc48, network="alphago-policy", network_options=options)
    save_agent(out / "rl.safetensors", policy, encoder=enc48, network="alphago-policy", network_options=options)
    voptions = {**options, "hidden": 4}
    value = build_network("alphago-value", in_planes=49, size=5, num_moves=25, **voptions)
    save_agent(out / "v.safetensors", value, encoder=enc49, network="alphago-value", network_options=voptions, kind="value")
    RolloutPolicy.zeros().save(out / "r.safetensors")
    files = {"sl_policy": "sl.safetensors", "rl_policy": "rl.safetensors", "value": "v.safetensors", "rollout": "r.safetensors"}
    (out / "model.json").write_text(json.dumps({"board_size": 5, "files": files}))
    return out


def test_every_contender_is_measured(model):
    result = bench_alphago.run(bench_alphago.Config(model=str(model), size=5, seconds=0.2, device="cpu"))
    rows = result["results"]
    assert set(rows) == set(bench_alphago.CONTENDERS)
    assert all(r["simulations_per_second"] > 0 for r in rows.values())
    assert rows["mcts"]["evaluations_per_second"] == 0 and rows["value-only"]["evaluations_per_second"] > 0
    assert rows["rollout-policy"]["cpu_microseconds_per_move"] > 0
    assert result["ratio_alphago_to_mcts"] is not None
    assert "rollout policy:" in bench_alphago.format_report(result)


def test_bad_flags_are_one_line_errors(model, tmp_path, capsys):
    assert main(["bench", "alphago", "--model", str(tmp_path / "none"), "--size", "5"]) == 2
    assert "no AlphaGo model folder" in capsys.readouterr().err
    assert main(["bench", "alphago", "--model", str(model), "--size", "9", "--seconds", "0.1"]) == 2
    assert "use --size 5" in capsys.readouterr().err
    assert main(["bench", "mcts", "--model", str(model)]) == 2
    assert "--model applies to bench alphago only" in capsys.readouterr().err
