"""``fuseki zero train``: a tiny run with --json, resumed; bad input is one line with exit status 2."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from needs import need_module

need_module("torch")  # skips here, fails under CI

from fuseki.cli import main  # noqa: E402
from fuseki.commands.zero import ZeroDefaults  # noqa: E402
from fuseki.zero.loop import ZeroSettings  # noqa: E402

TINY = ["--games", "6", "--simulations", "6", "--blocks", "1", "--channels", "8", "--epochs", "1", "--progress", "none"]


def test_train_writes_the_folder_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["zero", "train", "hexapawn", "--out", str(out), "--generations", "1", "--json", *TINY]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["game"] == "hexapawn" and result["generation"] == 1 and result["best"] == 1
    assert result["history"][0]["selfplay"]["games"] == 6
    assert (out / "zero.json").exists() and (out / "gen-0001.safetensors").exists()
    assert main(["zero", "train", "hexapawn", "--out", str(out), "--generations", "2", *TINY]) == 0
    assert capsys.readouterr().out.startswith("2 generations in ")
    assert main(["zero", "train", "hexapawn", "--out", str(out), "--generations", "2", *TINY[:-4], "--progress", "none"]) == 2
    assert "epochs: 1 there, 4 now" in capsys.readouterr().err
    # --hours is a limit, not a setting: the run's recorded time is past a tiny one, so nothing more is played
    assert main(["zero", "train", "hexapawn", "--out", str(out), "--generations", "5", "--hours", "1e-9", "--json", *TINY]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["generation"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["zero", "train", "checkers", "--out", "x"], "unknown game 'checkers'"),
        (["zero", "train", "tictactoe", "--out", "x", "--size", "9"], "--size is for Go"),
        (["zero"], "give an action: train, klein, demo or rate"),
        (["zero", "train", "tictactoe", "--out", "x", "--resign-target", "0.05"], "--resign-target) needs resign_threshold (--resign)"),
        (
            ["zero", "train", "tictactoe", "--out", "x", "--resign", "-0.9", "--resign-target", "0.05", "--no-resign-share", "0"],
            "needs no-resign games",
        ),
    ],
)
def test_bad_input_is_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "flag",
    [
        ["--games", "0"],
        ["--hours", "0"],
        ["--hours", "nan"],
        ["--resign", "-2"],
        ["--resign-target", "1.5"],
        ["--optimizer", "rmsprop"],
        ["--train-samples", "1"],
        ["--train-samples", "many"],
        ["--lr-schedule", "100"],
        ["--lr-schedule", "100:abc"],
        ["--lr-schedule", "0:0.01"],
        ["--lr-schedule", "10:-1"],
        ["--lr-schedule", "20:0.01,10:0.001"],
        ["--bogus"],
    ],
)
def test_bad_flags_exit_2(flag: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["zero", "train", "tictactoe", "--out", "x", *flag])
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_lr_schedule_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["zero", "train", "hexapawn", "--out", str(out), "--json", *TINY]
    assert main([*argv, "--generations", "2", "--lr-schedule", "2:0.005"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [e["train"]["lr"] for e in result["history"]] == [0.02, 0.005]
    assert json.loads((out / "zero.json").read_text())["settings"]["lr_schedule"] == [[2, 0.005]]
    # a resumed run may drop the rate of a generation it has not trained, not of one it has
    assert main([*argv, "--generations", "3", "--lr-schedule", "2:0.005,3:0.001"]) == 0
    assert [e["train"]["lr"] for e in json.loads(capsys.readouterr().out.strip().splitlines()[-1])["history"]] == [0.02, 0.005, 0.001]
    assert main([*argv, "--generations", "4", "--lr-schedule", "2:0.004"]) == 2
    err = capsys.readouterr().err
    assert "has trained generation 2 at learning rate 0.005" in err and err.count("\n") == 1


def test_help_defaults_are_the_settings_defaults() -> None:
    defaults = {f.name: f.default for f in dataclasses.fields(ZeroSettings)}
    for name, value in vars(ZeroDefaults).items():
        if not name.startswith("_"):
            assert defaults[name] == value, name


@pytest.mark.parametrize("native", [True, False])
def test_precision_auto_says_what_it_chose(
    native: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--precision auto`` names the format it took for this machine, and each generation records the one it used;
    bf16 asked for on a CPU without bfloat16 hardware runs, with a note that fp32 would be faster."""
    import fuseki.nets.batcher

    monkeypatch.setattr(fuseki.nets.batcher, "native_bf16", lambda device: native)
    out = tmp_path / "run"
    argv = ["zero", "train", "tictactoe", "--out", str(out), "--generations", "1", "--json", *TINY]
    assert main([*argv, "--precision", "auto"]) == 0
    captured = capsys.readouterr()
    chosen = "bf16" if native else "fp32"
    assert f"self-play precision: {chosen} (auto: cpu " in captured.err
    assert json.loads(captured.out.strip().splitlines()[-1])["history"][0]["selfplay"]["precision"] == chosen
    # precision is the machine's, not a setting of the run: the run goes on under another one
    assert main([*argv[:6], "2", *argv[7:], "--precision", "bf16"]) == 0
    captured = capsys.readouterr()
    assert ("emulated" in captured.err) is (not native)
    assert json.loads(captured.out.strip().splitlines()[-1])["history"][1]["selfplay"]["precision"] == "bf16"
