"""``--model FILE`` in ``fuseki play``, ``fuseki gtp`` and ``fuseki watch``: the policy bot from an agent file."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki import cli  # noqa: E402
from fuseki.agents.agent_file import save_agent  # noqa: E402
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.nets.registry import available_networks, register_network  # noqa: E402

NET = "test-modelflag-conv"


class ConvNet(torch.nn.Module):
    def __init__(self, in_planes: int, size: int, num_moves: int) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(in_planes, 2, 3, padding=1)
        self.head = torch.nn.Linear(2 * size * size, num_moves)

    def forward(self, x):  # noqa: ANN001
        return self.head(torch.relu(self.conv(x)).flatten(1))


if NET not in available_networks():
    register_network(NET, ConvNet, "a test net")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(3)
    enc = get_encoder("sevenplane", 5)
    path = tmp_path_factory.mktemp("models") / "tiny5.safetensors"
    save_agent(path, ConvNet(enc.num_planes, 5, enc.num_moves), encoder=enc, network=NET, metadata={"data": "none"})
    return path


@pytest.fixture
def corrupt(tmp_path: Path, model: Path) -> Path:
    path = tmp_path / "broken.safetensors"
    path.write_bytes(model.read_bytes()[:-10])
    return path


def one_line_error(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    rc = cli.main(argv)
    captured = capsys.readouterr()
    assert rc == 2, captured.out + captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith(f"fuseki {argv[0]}: error: ")
    return lines[0]


# ---- play --------------------------------------------------------------------


def test_play_with_a_model(model: Path, feed_stdin, capsys) -> None:
    feed_stdin(["c3", "quit"])
    assert cli.main(["play", "--size", "5", "--model", str(model), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "against policy on 5x5" in out
    assert "White (policy) plays" in out


def test_play_policy_passes_back_when_the_game_is_over(model: Path, feed_stdin, capsys) -> None:
    # The player only passes: the network (no pass move of its own) fills the board it owns, and once the board
    # is settled and it is ahead it passes back, ending the game, instead of filling its own eyes.
    feed_stdin(["pass"] * 40)
    assert cli.main(["play", "--size", "5", "--model", str(model), "--seed", "1", "--color", "white"]) == 0
    out = capsys.readouterr().out
    bot_moves = [line for line in out.splitlines() if line.startswith("Move ") and "(policy)" in line]
    assert bot_moves[-1].endswith("passes.") and out.count("Result") == 1, out[-800:]
    assert "B+" in out.split("Result")[1].splitlines()[0]
    assert len(bot_moves) < 20  # it stopped early: 25 points, and it keeps its eyes


def test_play_finds_a_model_by_name(model: Path, feed_stdin, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUSEKI_MODELS", str(model.parent))
    feed_stdin(["quit"])
    assert cli.main(["play", "--size", "5", "--bot", "policy", "--model", "tiny5"]) == 0
    assert "against policy" in capsys.readouterr().out


def test_play_default_bot_off_the_tables_sizes_is_mcts(feed_stdin, capsys) -> None:
    feed_stdin(["quit"])
    assert cli.main(["play", "--size", "5"]) == 0
    captured = capsys.readouterr()
    assert "against mcts on 5x5" in captured.out
    assert captured.err == ""  # the table's choice for 5x5, not a fallback


def test_play_model_errors(model: Path, corrupt: Path, tmp_path: Path, capsys, no_shipped_models: Path) -> None:
    assert "truncated agent file" in one_line_error(["play", "--size", "5", "--model", str(corrupt)], capsys)
    missing = str(tmp_path / "missing.safetensors")
    assert "no such agent file" in one_line_error(["play", "--model", missing], capsys)
    assert "takes no model file" in one_line_error(["play", "--bot", "random", "--model", str(model)], capsys)
    assert "plays 5x5 only" in one_line_error(["play", "--model", str(model)], capsys)  # default --size 9
    assert "needs a model" in one_line_error(["play", "--bot", "policy"], capsys)


# ---- gtp ---------------------------------------------------------------------


def run_gtp(argv: list[str], commands: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    stdin = io.TextIOWrapper(io.BytesIO(commands.encode()), encoding="utf-8")
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    rc = cli.main(["gtp", *argv])
    stdout.flush()
    return rc, out.getvalue().decode()


def test_gtp_with_a_model(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["--model", str(model), "--never-resign", "--set", "mode=argmax"]
    rc, out = run_gtp(argv, "boardsize 5\nclear_board\ngenmove b\ngenmove w\nquit\n", monkeypatch)
    assert rc == 0
    replies = [r for r in out.split("\n\n") if r.strip()]
    assert len(replies) == 5 and all(r.startswith("=") for r in replies), out
    first, second = replies[2][1:].strip(), replies[3][1:].strip()
    assert first[0] in "ABCDE" and first[1:].isdigit() and second != first


def test_gtp_model_errors(model: Path, corrupt: Path, capsys) -> None:
    assert "truncated agent file" in one_line_error(["gtp", "--model", str(corrupt)], capsys)
    assert "takes no model file" in one_line_error(["gtp", "--bot", "uniform", "--model", str(model)], capsys)


# ---- watch -------------------------------------------------------------------


def test_watch_policy_against_random(model: Path, capsys) -> None:
    argv = ["watch", "--size", "5", "--delay", "0", "--seed", "2", "--model", str(model), "--white", "random"]
    assert cli.main([*argv, "--moves-cap", "6"]) == 0
    out = capsys.readouterr().out
    assert "policy (Black) vs random (White) on 5x5" in out


def test_watch_model_errors(model: Path, corrupt: Path, capsys) -> None:
    base = ["watch", "--size", "5", "--delay", "0"]
    assert "truncated agent file" in one_line_error([*base, "--model", str(corrupt)], capsys)
    message = one_line_error([*base, "--black", "random", "--white", "uniform", "--model", str(model)], capsys)
    assert "neither 'random' nor 'uniform' takes a model file" in message
