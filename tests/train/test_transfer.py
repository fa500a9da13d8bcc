"""A run started from another network's weights (``--init``) with parts frozen (``--freeze``).

What must hold: the tensors that fit are copied and the rest are fresh; a frozen
part ends the run bit for bit as it started (weights and batch-norm statistics);
the trained part moves; a resumed run is the same as one never stopped; the agent
file says what it was made from; and wrong uses are one-line errors.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from sgf_corpus import write_games  # noqa: E402

from fuseki.agents.agent_file import load_agent_file, read_agent_info  # noqa: E402
from fuseki.cli import main  # noqa: E402
from fuseki.data.processor import process_games  # noqa: E402
from fuseki.train.supervised import AGENT_FILE, CHECKPOINT, TrainConfig, load_checkpoint, train_supervised  # noqa: E402
from fuseki.train.transfer import freeze, init_from_agent  # noqa: E402

torch.set_num_threads(1)

DENSE = {"blocks": 2, "channels": 8}
CONV = {"blocks": 2, "channels": 8, "policy_head": "conv", "policy_channels": 4}


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> Path:
    """Random 9×9 games on the seven-plane encoder (no pass move, so a conv head fits)."""
    root = tmp_path_factory.mktemp("transfer")
    write_games(root / "games", 16, size=9, seed=11, moves=30)
    out = root / "shards"
    process_games([root / "games"], out, encoder="sevenplane", size=9, test_fraction=0.25, seed=0, shard_games=4)
    return out


@pytest.fixture(scope="module")
def source(shards, tmp_path_factory) -> Path:
    """A dense-head residual policy trained two epochs: the network another run starts from."""
    out = tmp_path_factory.mktemp("source")
    config = TrainConfig(
        shards=str(shards), out=str(out), network="residual", net_options=DENSE, optimizer="adam", lr=0.01,
        batch_size=32, epochs=2, seed=1,
    )
    train_supervised(config)
    return out / AGENT_FILE


def conv_run(shards: Path, out: Path, source: Path, **kw) -> TrainConfig:
    settings = dict(
        network="residual", net_options=CONV, optimizer="adam", lr=0.01, batch_size=32, epochs=2, seed=2,
        init=str(source), freeze=["stem", "tower"],
    )
    settings.update(kw)
    return TrainConfig(shards=str(shards), out=str(out), **settings)


def test_a_conv_head_on_a_frozen_trunk_keeps_the_trunk_and_trains_the_head(shards, source, tmp_path):
    trained, _ = load_agent_file(source)
    before = trained.state_dict()
    result = train_supervised(conv_run(shards, tmp_path / "run", source))
    after = result.model.state_dict()
    trunk = [k for k in after if k.startswith(("stem.", "tower."))]
    assert trunk and all(torch.equal(after[k], before[k]) for k in trunk)  # weights and running statistics
    head = [k for k in after if k.startswith("policy.") and after[k].dtype.is_floating_point]
    fresh = train_supervised(conv_run(shards, tmp_path / "untrained", source, epochs=1, lr=1e-12)).model.state_dict()
    assert any(not torch.equal(after[k], fresh[k]) for k in head)
    init = result.data["init"]
    assert init["copied"] == len(trunk) and all(name.startswith("policy.") for name in init["fresh"])
    assert init["network"] == "residual" and init["sha256"] and init["board_size"] == 9
    # the agent file records the start, and plays as the trained model
    info = read_agent_info(tmp_path / "run" / AGENT_FILE)
    assert info.training["init"]["sha256"] == init["sha256"] and info.training["freeze"] == ["stem", "tower"]
    assert info.any_size


def test_a_resumed_transfer_run_ends_as_one_never_stopped(shards, source, tmp_path):
    whole = train_supervised(conv_run(shards, tmp_path / "whole", source, freeze=["stem"]))

    class Stop(Exception):
        pass

    def stop(event: dict) -> None:
        if event["event"] == "epoch":
            raise Stop

    with pytest.raises(Stop):
        train_supervised(conv_run(shards, tmp_path / "cut", source, freeze=["stem"]), progress=stop)
    assert load_checkpoint(tmp_path / "cut" / CHECKPOINT)["epoch"] == 1
    resumed = train_supervised(conv_run(shards, tmp_path / "cut", source, freeze=["stem"], resume=True))
    a, b = whole.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert resumed.data["init"] == whole.data["init"]
    with pytest.raises(ValueError, match="--freeze"):
        train_supervised(conv_run(shards, tmp_path / "cut", source, freeze=["stem", "tower.0"], epochs=3, resume=True))


def test_freeze_matches_whole_names_and_refuses_what_names_nothing():
    from fuseki.nets import build_network

    net = build_network("residual", in_planes=7, size=9, num_moves=81, **{**CONV, "blocks": 11})
    freeze(net, ["tower.1"])
    frozen = {n.split(".")[1] for n, p in net.named_parameters() if not p.requires_grad}
    assert frozen == {"1"}  # not tower.10
    with pytest.raises(ValueError, match="names no part.*stem"):
        freeze(net, ["trunk"])
    with pytest.raises(ValueError, match="nothing to train"):
        freeze(net, ["stem", "tower", "policy"])


def test_init_refuses_another_encoder_and_a_network_with_nothing_in_common(source):
    from fuseki.nets import build_network

    net = build_network("residual", in_planes=7, size=9, num_moves=81, **CONV)
    with pytest.raises(ValueError, match="encoder 'sevenplane'"):
        init_from_agent(net, str(source), encoder="oneplane")
    other = build_network("fc", in_planes=7, size=9, num_moves=81, hidden=[8])
    with pytest.raises(ValueError, match="none of its tensors fits"):
        init_from_agent(other, str(source), encoder="sevenplane")


def test_the_command_trains_from_init_and_reports_it(shards, source, tmp_path, capsys):
    argv = ["train", "supervised", str(shards), "--network", "residual", "--optimizer", "adam", "--epochs", "1"]
    for k, v in CONV.items():
        argv += ["--net-option", f"{k}={v}"]
    code = main([*argv, "--init", str(source), "--freeze", "stem", "--freeze", "tower", "--out",
                 str(tmp_path / "run"), "--json", "--device", "cpu"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "tensors copied" in captured.err and "training" in captured.err
    start = next(line for line in captured.err.splitlines() if "training" in line)
    trained, total = (int(n.replace(",", "")) for n in re.findall(r"training ([\d,]+) of ([\d,]+)", start)[0])
    assert 0 < trained < total
    assert json.loads(captured.out.strip().splitlines()[-1])["epochs"] == 1
    for extra, message in (
        (["--freeze", "stem"], "needs --init"),
        (["--init", str(tmp_path / "nonesuch.safetensors")], "no such agent file"),
        (["--init", str(source), "--freeze", "trunk"], "names no part"),
    ):
        code = main([*argv, *extra, "--out", str(tmp_path / "bad"), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_evaluate_gives_a_runs_own_test_figures_and_measures_an_any_size_network_on_another_board(
    shards, source, tmp_path, capsys
):
    from fuseki.train.supervised import evaluate_agent

    final = read_agent_info(source).training["final"]
    measured = evaluate_agent(str(source), str(shards), device="cpu")
    assert measured["positions"] == final["test_positions"]
    assert measured["top1"] == pytest.approx(final["test_top1"], abs=1e-6)
    assert measured["top5"] == pytest.approx(final["test_top5"], abs=1e-6)
    assert measured["loss"] == pytest.approx(final["test_loss"], rel=1e-4)
    # a conv-head network trained on 9x9, measured on 7x7 games; the dense one is refused there
    train_supervised(conv_run(shards, tmp_path / "conv", source, epochs=1))
    write_games(tmp_path / "games7", 6, size=7, seed=3, moves=20)
    process_games([tmp_path / "games7"], tmp_path / "shards7", encoder="sevenplane", size=7, test_fraction=0.5,
                  seed=0, shard_games=3)
    small = evaluate_agent(str(tmp_path / "conv" / AGENT_FILE), str(tmp_path / "shards7"), split="train", device="cpu")
    assert small["board_size"] == 7 and small["trained_size"] == 9 and small["positions"] > 0
    assert 0.0 <= small["top1"] <= small["top5"] <= 1.0
    for model, folder, message in (
        (source, tmp_path / "shards7", "plays 9x9 only"),
        (tmp_path / "nonesuch.safetensors", shards, "no such agent file"),
    ):
        code = main(["train", "evaluate", str(model), str(folder), "--split", "train", "--json"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err
    code = main(["train", "evaluate", str(source), str(shards), "--device", "cpu"])
    out = capsys.readouterr().out
    assert code == 0 and f"top-1 {100 * final['test_top1']:.1f}%" in out
