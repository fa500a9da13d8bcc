"""kill -9 of a real ``fuseki zero train`` in the middle of a generation, then the same command: the state of a run never stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from test_zero_loop import weights, without_times  # noqa: E402

from fuseki.zero.loop import ZeroSettings, learner_path, load_state, network_path, run_zero  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
#: Many epochs, so that generation 2's training lasts long enough to be killed in.
SETTINGS = ZeroSettings(games=12, simulations=8, blocks=1, channels=8, value_hidden=16, epochs=50, window=2, seed=3)
ARGS = [
    "zero", "train", "tictactoe", "--generations", "2", "--games", "12", "--simulations", "8", "--blocks", "1",
    "--channels", "8", "--value-hidden", "16", "--epochs", "50", "--window", "2", "--seed", "3", "--progress", "none",
]  # fmt: skip


def fuseki(out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, "-m", "fuseki", *ARGS, "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def test_a_killed_run_resumes_to_the_state_of_an_uninterrupted_one(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    proc = fuseki(out)
    deadline = time.monotonic() + 300
    while not (out / "selfplay-0002.npz").exists():  # generation 2's games are saved: its training has begun
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "fuseki ended early"
        assert time.monotonic() < deadline, "generation 2's self-play never finished"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    # killed in the middle of generation 2: its games are on disk, its network and its state are not
    assert not network_path(out, 2).exists() and load_state(out)["generation"] == 1
    resumed = fuseki(out)
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err.decode()
    straight = run_zero(tmp_path / "straight", SETTINGS, 2)
    assert without_times(load_state(out)) == without_times(straight)
    for g in range(3):
        for x, y in zip(weights(network_path(out, g)), weights(network_path(tmp_path / "straight", g)), strict=True):
            assert torch.equal(x, y)
    for g in range(1, 3):
        assert learner_path(out, g).read_bytes() == learner_path(tmp_path / "straight", g).read_bytes()
