"""``fuseki eval``: the report, JSON, round robin, resume after a kill, and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.go.sgf import load_sgf
from fuseki.util.stats import binomial_test


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_reports_and_ends_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        ["random", "mcts:playouts=20", "--size", "5", "--games", "4", "--sgf-dir", str(tmp_path), "--json"], capsys
    )
    assert code == 0
    assert err.count("\ngame ") + err.startswith("game ") == 4
    assert "binomial test against 50 %" in out and "Elo difference A - B" in out
    data = json.loads(out.strip().splitlines()[-1])
    assert data["games"] == 4 and data["engine_a"] == "random" and data["engine_b"] == "mcts:playouts=20"
    decided = data["a_wins"] + data["b_wins"]
    assert data["p_value"] == binomial_test(data["a_wins"], decided)  # two-sided, draws left out
    assert data["p_value_one_sided"] == binomial_test(data["a_wins"], decided, alternative="greater")
    assert len(data["elo_ci95"]) == 2 and data["elo_ci95"][0] <= data["elo"] <= data["elo_ci95"][1]
    assert sorted(p.name for p in tmp_path.glob("game_*.sgf")) == [f"game_000{i}.sgf" for i in range(1, 5)]
    assert json.loads((tmp_path / "eval.json").read_text())["settings"]["size"] == 5


def test_round_robin_table_plot_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        [
            "--round-robin",
            "random",
            "uniform",
            "mcts:playouts=10",
            "--size",
            "5",
            "--games",
            "2",
            "--sgf-dir",
            str(tmp_path),
            "--json",
        ],
        capsys,
    )
    assert code == 0
    assert "Bradley-Terry" in out and "random = 0" in out
    data = json.loads(out.strip().splitlines()[-1])
    assert [r["agent"] for r in data["ratings"]["ratings"]] == ["random", "uniform", "mcts:playouts=10"]
    assert len(data["pairs"]) == 3
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "ratings.json").read_text())["ratings"]["anchor"] == "random"


def test_round_robin_plot_flag_and_mean_anchor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "r.png"
    code, out, _ = run_cli(
        ["--round-robin", "random", "uniform", "--size", "5", "--games", "2", "--plot", str(plot), "--anchor", "mean"],
        capsys,
    )
    assert code == 0 and plot.exists() and "mean 0" in out


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_gnugo_spec_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["gtp:gnugo --mode gtp --level 1", "random", "--size", "5", "--games", "2", "--json"], capsys)
    assert code == 0
    assert json.loads(out.strip().splitlines()[-1])["a_wins"] == 2


def test_resume_after_a_killed_run(tmp_path: Path) -> None:
    """Kill a running evaluation, then finish it: the games written before the kill are kept."""
    sgf_dir = tmp_path / "games"
    cmd = [sys.executable, "-m", "fuseki", "eval", "random", "mcts:playouts=300", "--size", "7", "--games", "40"]
    cmd += ["--sgf-dir", str(sgf_dir), "--seed", "5"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list(sgf_dir.glob("game_*.sgf"))) < 2:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    kept = sorted(sgf_dir.glob("game_*.sgf"))
    assert 2 <= len(kept) < 40, "the run was not killed in the middle"
    before = {p.name: load_sgf(p).result for p in kept}
    total = len(kept) + 1
    done = subprocess.run(
        [*cmd[:-6], "--games", str(total), "--sgf-dir", str(sgf_dir), "--seed", "5", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("[from an earlier run]") == len(kept)
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["games"] == total
    assert [r["reused"] for r in data["results"]] == [True] * len(kept) + [False]
    assert {p.name: load_sgf(p).result for p in kept} == before


def test_changed_settings_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["random", "uniform", "--size", "5", "--games", "1", "--sgf-dir", str(tmp_path)], capsys)[0] == 0
    code, _, err = run_cli(["random", "uniform", "--size", "5", "--komi", "0.5", "--sgf-dir", str(tmp_path)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "other settings" in err and "komi" in err


def test_a_folder_another_evaluation_plays_into_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fuseki.arena.evaluate import eval_folder

    with eval_folder(tmp_path).locked():  # as a running evaluation holds it
        code, _, err = run_cli(["random", "uniform", "--size", "5", "--games", "1", "--sgf-dir", str(tmp_path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "in use by another run" in err
    assert not list(tmp_path.glob("game_*.sgf"))
    assert run_cli(["random", "uniform", "--size", "5", "--games", "1", "--sgf-dir", str(tmp_path)], capsys)[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchbot", "random"], "names no registered agent"),
        (["mcts:playouts", "random"], "KEY=VALUE"),
        (["mcts:bogus=1", "random"], "cannot be built with bogus"),
        (["mcts:playouts=0", "random"], "playouts must be at least 1"),
        (["gtp:", "random"], "needs an engine command"),
        (["gtp:/no/such/engine --mode gtp", "random"], "not found"),
        (["random"], "exactly two agents"),
        (["random", "uniform", "mcts"], "exactly two agents"),
        (["--round-robin", "random", "random"], "given twice"),
        (["random", "uniform", "--size", "1"], "--size"),
        (["random", "uniform", "--komi", "0.3"], "komi"),
        (["random", "uniform", "--rules", "nonsense"], "--rules"),
        (["random", "uniform", "--referee", "/no/such/referee"], "--referee"),
        (["--round-robin", "random", "uniform", "--anchor", "mcts"], "--anchor"),
        (["random", "uniform", "--dead-stones-model", "m.safetensors"], "applies to --dead-stones network only"),
        (
            ["random", "uniform", "--dead-stones", "network", "--dead-stones-model", "/no/such/model.safetensors"],
            "--dead-stones-model: no dead-stone model",
        ),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*args, "--size", "5"] if "--size" not in args else args, capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("fuseki eval: error: ") and err.count("\n") == 1, err
    assert message in err


def test_sgf_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run_cli(["random", "uniform", "--size", "5", "--sgf-dir", str(f)], capsys)
    assert code == 2 and "not a directory" in err


@pytest.mark.parametrize(
    "args", [["random", "uniform", "--games", "0"], ["random", "uniform", "--workers", "0"], ["random", "uniform", "--move-time", "-1"]]
)
def test_bad_flag_values_are_argparse_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


def test_dead_stones_network_is_recorded_per_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--dead-stones network``: each game's JSON and SGF note name the estimate that scored it."""
    code, out, _ = run_cli(
        ["random", "random", "--size", "5", "--games", "2", "--max-moves", "12", "--dead-stones", "network",
         "--sgf-dir", str(tmp_path), "--json"],
        capsys,
    )
    assert code == 0
    data = json.loads(out.strip().splitlines()[-1])
    assert [r["dead_stones"] for r in data["results"]] == ["network", "network"]
    assert json.loads((tmp_path / "eval.json").read_text())["settings"]["dead_stones"] == "network"
    assert "dead stones: network" in load_sgf(tmp_path / "game_0001.sgf").comment
    # The same folder with the default estimate is another evaluation: refused in one line.
    code, _, err = run_cli(["random", "random", "--size", "5", "--games", "2", "--max-moves", "12",
                            "--sgf-dir", str(tmp_path)], capsys)
    assert code == 2 and "dead_stones" in err and err.count("\n") == 1
