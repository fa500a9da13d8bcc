"""Supervised training on tiny shards: the loss goes down, resume is exact, outputs, the command's errors."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from sgf_corpus import write_games  # noqa: E402

from fuseki.cli import main  # noqa: E402
from fuseki.data.processor import process_games  # noqa: E402
from fuseki.train.supervised import (  # noqa: E402
    AGENT_FILE,
    CHECKPOINT,
    CSV_COLUMNS,
    CURVES_PNG,
    METRICS_CSV,
    SUMMARY_JSON,
    TrainConfig,
    TrainResult,
    load_checkpoint,
    train_supervised,
)

torch.set_num_threads(1)  # the machine is shared; these runs take a second or two

TIMING = ("seconds", "positions_per_second")


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> Path:
    """About 20 random 9×9 games of 30 moves: ~500 train and ~150 test positions in several shards."""
    root = tmp_path_factory.mktemp("train")
    write_games(root / "games", 24, size=9, seed=5, moves=30)
    out = root / "shards"
    process_games([root / "games"], out, encoder="oneplane", size=9, test_fraction=0.25, seed=0, shard_games=4)
    return out


def tiny(shards: Path, out: Path, **kw) -> TrainConfig:
    settings = dict(
        network="fc", net_options={"hidden": [32]}, optimizer="adam", lr=0.01, batch_size=32, epochs=3, seed=7
    )
    settings.update(kw)
    return TrainConfig(shards=str(shards), out=str(out), **settings)


def without_timing(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMING} for row in history]


def test_a_tiny_network_learns_and_the_loss_goes_down(shards, tmp_path):
    result = train_supervised(tiny(shards, tmp_path / "run", epochs=4))
    losses = [row["train_loss"] for row in result.metrics]
    assert len(losses) == 4
    assert losses[-1] < losses[0]
    assert losses[-1] < math.log(81)  # below a uniform guess: it learned something (empty points, at least)
    last = result.final
    for key in ("train_top1", "train_top5", "test_top1", "test_top5"):
        assert 0.0 <= last[key] <= 1.0
    assert last["train_top5"] >= last["train_top1"] and last["test_top5"] >= last["test_top1"]
    assert last["test_positions"] > 0 and last["train_positions"] == result.data["train_positions"]


def test_the_result_holds_what_an_agent_file_needs(shards, tmp_path):
    result = train_supervised(tiny(shards, tmp_path / "run", epochs=1))
    assert isinstance(result, TrainResult)
    assert (result.network, result.net_options) == ("fc", {"hidden": [32]})
    assert (result.encoder, result.board_size, result.feature_shape, result.num_moves) == ("oneplane", 9, (1, 9, 9), 81)
    assert not result.model.training and next(result.model.parameters()).device.type == "cpu"
    assert result.parameters == sum(p.numel() for p in result.model.parameters())
    json.dumps(result.summary())
    json.dumps(result.provenance())
    assert result.provenance()["sources"] == [str((shards.parent / "games").resolve())]  # the games' origin
    again = TrainResult.from_checkpoint(result.checkpoint)
    x = torch.rand(4, 1, 9, 9)
    with torch.no_grad():
        assert torch.equal(again.model(x), result.model(x))
    assert again.metrics == result.metrics and again.encoder == "oneplane"


def test_every_epoch_leaves_an_agent_file_that_plays_the_trained_network(shards, tmp_path):
    from fuseki.agents.agent_file import read_agent_info
    from fuseki.agents.deep_learning import load_prediction_agent

    out = tmp_path / "run"
    result = train_supervised(tiny(shards, out, epochs=2, augment=True))
    info = read_agent_info(out / AGENT_FILE)
    assert (info.network, info.encoder, info.board_size) == ("fc", "oneplane", 9)
    assert info.training["epochs"] == 2 and info.training["augment"] is True
    assert info.training["final"]["test_top1"] == pytest.approx(result.final["test_top1"])
    bot = load_prediction_agent(out / AGENT_FILE)
    x = torch.rand(4, 1, 9, 9)
    with torch.no_grad():
        assert torch.equal(bot.model(x), result.model(x))
    result.save_agent(tmp_path / "copy.safetensors")
    assert read_agent_info(tmp_path / "copy.safetensors").training == info.training


def test_outputs_csv_png_summary_and_a_weights_only_checkpoint(shards, tmp_path):
    out = tmp_path / "run"
    result = train_supervised(tiny(shards, out, epochs=2, keep_checkpoints=True))
    with open(out / METRICS_CSV, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(CSV_COLUMNS) and [r["epoch"] for r in rows] == ["1", "2"]
    assert float(rows[1]["test_top1"]) == pytest.approx(result.final["test_top1"])
    assert (out / CURVES_PNG).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / SUMMARY_JSON).read_text())["epochs"] == 2
    raw = torch.load(out / CHECKPOINT, weights_only=True)  # plain tensors and containers only
    assert raw["epoch"] == 2 and set(raw) >= {"model", "optimizer", "scheduler", "rng", "history", "config", "data"}
    assert load_checkpoint(out / "epoch-0001.pt")["epoch"] == 1
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


class Stop(Exception):
    pass


def stop_after(epoch: int):
    def progress(event: dict) -> None:
        if event["event"] == "epoch" and event["epoch"] == epoch:
            raise Stop

    return progress


@pytest.mark.parametrize(
    "settings",
    [
        # dropout draws from the RNG; momentum has optimiser state; cosine depends on the step
        dict(network="cnn", net_options={"filters": 4, "hidden": 16}, optimizer="momentum", lr=0.05, schedule="cosine"),
        # batch norm running statistics; Adam's moments; Keras' decay
        dict(
            network="residual", net_options={"blocks": 1, "channels": 4}, optimizer="adam", schedule="decay", decay=0.01
        ),
        # the symmetries are drawn from (seed, epoch)
        dict(network="fc", net_options={"hidden": [16]}, optimizer="adam", augment=True),
    ],
)
def test_resume_continues_exactly_where_the_run_stopped(shards, tmp_path, settings):
    whole = train_supervised(tiny(shards, tmp_path / "whole", **settings))
    with pytest.raises(Stop):
        train_supervised(tiny(shards, tmp_path / "cut", **settings), progress=stop_after(2))
    assert load_checkpoint(tmp_path / "cut" / CHECKPOINT)["epoch"] == 2
    events: list[dict] = []
    resumed = train_supervised(tiny(shards, tmp_path / "cut", resume=True, **settings), progress=events.append)
    assert events[0]["event"] == "start" and events[0]["start_epoch"] == 2
    assert [e["epoch"] for e in events if e["event"] == "epoch"] == [3]
    assert without_timing(resumed.metrics) == without_timing(whole.metrics)
    a, b = whole.model.state_dict(), resumed.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_checkpoint_is_not_overwritten_or_resumed_with_other_settings(shards, tmp_path):
    out = tmp_path / "run"
    train_supervised(tiny(shards, out, epochs=1))
    with pytest.raises(ValueError, match="--resume"):
        train_supervised(tiny(shards, out, epochs=2))
    with pytest.raises(ValueError, match="--batch-size"):
        train_supervised(tiny(shards, out, epochs=2, batch_size=16, resume=True))
    done = train_supervised(tiny(shards, out, epochs=1, resume=True))  # nothing left to do
    assert done.epochs == 1


def test_a_checkpoint_from_before_augment_existed_resumes_as_unaugmented(shards, tmp_path):
    out = tmp_path / "run"
    train_supervised(tiny(shards, out, epochs=1))
    ckpt = torch.load(out / CHECKPOINT, weights_only=True)
    del ckpt["config"]["augment"]  # as written before the setting existed
    torch.save(ckpt, out / CHECKPOINT)
    with pytest.raises(ValueError, match="--augment False, not True"):
        train_supervised(tiny(shards, out, epochs=2, augment=True, resume=True))
    assert train_supervised(tiny(shards, out, epochs=2, resume=True)).epochs == 2


def test_max_minutes_stops_between_epochs_and_resume_finishes_the_same_run(shards, tmp_path):
    whole = train_supervised(tiny(shards, tmp_path / "whole"))
    assert whole.stopped is None and whole.summary()["stopped"] is None
    # A budget shorter than any epoch: each call trains exactly one epoch (the first always runs), then stops.
    events: list[dict] = []
    first = train_supervised(tiny(shards, tmp_path / "cut", max_minutes=1e-6), progress=events.append)
    assert first.epochs == 1 and first.stopped == "max_minutes"
    assert first.summary()["planned_epochs"] == 3
    assert [e["epoch"] for e in events if e["event"] == "stop"] == [1]
    second = train_supervised(tiny(shards, tmp_path / "cut", max_minutes=1e-6, resume=True))
    assert second.epochs == 2 and second.stopped == "max_minutes"
    last = train_supervised(tiny(shards, tmp_path / "cut", max_minutes=60, resume=True))
    assert last.epochs == 3 and last.stopped is None
    assert without_timing(last.metrics) == without_timing(whole.metrics)
    a, b = whole.model.state_dict(), last.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_learning_rate_schedules_are_applied(shards, tmp_path):
    result = train_supervised(
        tiny(shards, tmp_path / "run", optimizer="sgd", lr=0.1, schedule="step", step_epochs=1, gamma=0.5)
    )
    assert [row["lr"] for row in result.metrics] == [0.1, 0.05, 0.025]


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adagrad", "adadelta", "adam"])
def test_every_optimizer_trains(shards, tmp_path, optimizer):
    result = train_supervised(tiny(shards, tmp_path / optimizer, optimizer=optimizer, lr=None, epochs=1, max_batches=3))
    assert result.final["step"] == 3 and math.isfinite(result.final["train_loss"])
    assert result.config["lr"] > 0


# ---- the command -----------------------------------------------------------------------------


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["train", "supervised", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_command_trains_resumes_and_prints_json(shards, tmp_path, capsys):
    common = [str(shards), "--network", "fc", "--net-option", "hidden=[16]", "--optimizer", "adam", "--lr", "0.01"]
    common += ["--batch-size", "32", "--seed", "3", "--device", "cpu", "--json"]
    code, out, err = run_cli(capsys, *common, "--epochs", "2", "--out", str(tmp_path / "whole"))
    assert code == 0
    whole = json.loads(out.strip().splitlines()[-1])
    assert whole["epochs"] == 2 and whole["encoder"] == "oneplane" and whole["board_size"] == 9
    assert "epoch 2/2" in err
    code, out, _ = run_cli(capsys, *common, "--epochs", "1", "--out", str(tmp_path / "cut"), "--quiet")
    assert code == 0
    code, out, err = run_cli(capsys, *common, "--epochs", "2", "--out", str(tmp_path / "cut"), "--resume")
    assert code == 0 and "resuming after epoch 1" in err
    resumed = json.loads(out.strip().splitlines()[-1])
    drop = lambda d: {k: v for k, v in d.items() if k not in TIMING}  # noqa: E731
    assert drop(resumed["final"]) == drop(whole["final"])


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--network", "nonesuch"], "unknown network"),
        (["--network", "fc", "--net-option", "layers=3"], "cannot be built"),
        (["--network", "fc", "--optimizer", "adam", "--momentum", "0.5"], "momentum"),
        (["--network", "fc", "--schedule", "cosine", "--min-lr", "5"], "min lr"),
        (["--network", "fc", "--precision", "bf16", "--device", "cpu"], "needs a CUDA device"),
    ],
)
def test_bad_settings_exit_2_with_one_line(shards, tmp_path, capsys, argv, message):
    code, out, err = run_cli(capsys, str(shards), "--out", str(tmp_path / "run"), "--quiet", *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_a_folder_that_is_not_shards_exits_2(tmp_path, capsys):
    code, _, err = run_cli(capsys, str(tmp_path), "--network", "fc", "--out", str(tmp_path / "run"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "manifest.json" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="there is a GPU here")
def test_asking_for_a_missing_gpu_exits_2(shards, tmp_path, capsys):
    code, _, err = run_cli(capsys, str(shards), "--network", "fc", "--device", "cuda", "--out", str(tmp_path / "r"))
    assert code == 2 and "CUDA" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["--network", "fc", "--lr", "-1"],
        ["--network", "fc", "--batch-size", "0"],
        ["--network", "fc", "--optimizer", "rmsprop"],
        ["--network", "fc", "--net-option", "novalue"],
        ["--network", "fc", "--max-minutes", "0"],
        ["--network", "fc", "--precision", "fp16"],
        [],  # --network is required
    ],
)
def test_malformed_flags_exit_2(shards, capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "supervised", str(shards), *argv])
    assert exit_info.value.code == 2


def test_train_without_an_action_exits_2(capsys):
    assert main(["train"]) == 2
    assert "supervised" in capsys.readouterr().err
