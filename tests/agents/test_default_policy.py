"""The shipped 9x9 policy network as the default bot of ``fuseki play`` and ``fuseki gtp``.

The real ``policy-9x9`` is trained apart from the code, so these tests put a
tiny stand-in of that name in a ``$FUSEKI_MODELS`` folder (searched before
the package's own), or hide every model (``no_shipped_models``) to see the
fallback to MCTS. Either way they pass whether or not the real file is there.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki import cli  # noqa: E402
from fuseki.agents import make_agent  # noqa: E402
from fuseki.agents.agent_file import save_agent  # noqa: E402
from fuseki.agents.deep_learning import (  # noqa: E402
    DEFAULT_POLICY_MODEL,
    DeepLearningAgent,
    default_policy_installed,
    default_policy_path,
)
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.gtp.engine import GtpEngine  # noqa: E402
from fuseki.nets.registry import available_networks, register_network  # noqa: E402

NET = "test-default-policy-linear"

if NET not in available_networks():
    register_network(
        NET,
        lambda in_planes, size, num_moves: torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(in_planes * size * size, num_moves)
        ),
        "a test net",
    )

#: A 9x9 vertex as GTP writes it.
VERTEX_9X9 = re.compile(r"[A-HJ][1-9]")


@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small 9x9 policy agent file named like the shipped one."""
    torch.manual_seed(5)
    enc = get_encoder("oneplane", 9)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(enc.num_planes * 81, enc.num_moves))
    path = tmp_path_factory.mktemp("models") / f"{DEFAULT_POLICY_MODEL}.safetensors"
    save_agent(path, net, encoder=enc, network=NET, metadata={"data": "none"})
    return path


@pytest.fixture
def shipped(tiny_policy: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny policy installed as ``policy-9x9`` (``$FUSEKI_MODELS`` wins over the package's folder)."""
    monkeypatch.setenv("FUSEKI_MODELS", str(tiny_policy.parent))
    return tiny_policy


def play(argv: list[str], lines: list[str], monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, str, str]:
    """``fuseki play ARGV`` with scripted input: (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    rc = cli.main(["play", *argv])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def gtp(argv: list[str], commands: str, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, list[str], str]:
    """``fuseki gtp ARGV`` on ``commands``: (exit status, replies, stderr)."""
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(commands.encode()), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", stdout)
    rc = cli.main(["gtp", *argv])
    stdout.flush()
    replies = [r for r in out.getvalue().decode().split("\n\n") if r.strip()]
    return rc, replies, capsys.readouterr().err


# ---- the helpers and the registry --------------------------------------------------


def test_installed_is_found_in_the_models_folders(shipped: Path) -> None:
    assert default_policy_path() == shipped
    assert default_policy_installed()


def test_not_installed(no_shipped_models: Path) -> None:
    assert default_policy_path() is None
    assert not default_policy_installed()


def test_policy_without_a_model_loads_the_shipped_one(shipped: Path) -> None:
    bot = make_agent("policy", seed=1)
    assert isinstance(bot, DeepLearningAgent) and bot.info is not None
    assert Path(bot.info.path) == shipped and bot.board_size == 9


def test_policy_without_a_model_or_a_shipped_one_says_what_is_there(no_shipped_models: Path) -> None:
    with pytest.raises(ValueError, match=f"needs a model.*{DEFAULT_POLICY_MODEL}.*not installed"):
        make_agent("policy")


# ---- fuseki play ------------------------------------------------------------------------


def test_play_on_9x9_defaults_to_the_shipped_policy(shipped: Path, monkeypatch, capsys) -> None:
    rc, out, err = play(["--color", "white", "--seed", "1"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against policy on 9x9" in out
    assert "Move 1: Black (policy) plays" in out
    assert err == ""


def test_play_on_another_size_falls_back_to_mcts_and_says_why(shipped: Path, monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "19"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 19x19" in out
    assert err.strip() == "fuseki: the shipped policy network plays 9x9 only; playing mcts on 19x19"


def test_play_without_the_shipped_policy_falls_back_to_mcts(no_shipped_models: Path, monkeypatch, capsys) -> None:
    rc, out, err = play([], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 9x9" in out
    assert f"({DEFAULT_POLICY_MODEL}) is not installed; playing mcts on 9x9" in err


def test_play_with_an_unreadable_shipped_policy_falls_back_to_mcts(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    (tmp_path / f"{DEFAULT_POLICY_MODEL}.safetensors").write_bytes(b"\x00" * 4)
    monkeypatch.setenv("FUSEKI_MODELS", str(tmp_path))
    rc, out, err = play([], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 9x9" in out
    assert "the shipped policy network cannot be read" in err


def test_play_bot_policy_without_a_model_uses_the_shipped_one(shipped: Path, monkeypatch, capsys) -> None:
    rc, out, _ = play(["--bot", "policy", "--color", "white", "--seed", "2"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "Move 1: Black (policy) plays" in out
    rc, _, err = play(["--bot", "policy", "--size", "19"], ["quit"], monkeypatch, capsys)
    assert rc == 2
    assert "--size 19: policy plays 9x9 only" in err


# ---- fuseki gtp ----------------------------------------------------------------------


def test_gtp_defaults_to_the_shipped_policy_and_refuses_other_sizes(shipped: Path, monkeypatch, capsys) -> None:
    commands = "boardsize 19\nplay b E5\nboardsize 13\ngenmove w\nlist_stones black\nquit\n"
    rc, replies, err = gtp(["--never-resign", "--seed", "1"], commands, monkeypatch, capsys)
    assert rc == 0, err
    assert replies[0] == "? unacceptable size: policy plays 9x9 only, not 19x19"
    assert replies[1] == "= " and replies[2].startswith("? unacceptable size: policy plays 9x9 only")
    assert VERTEX_9X9.fullmatch(replies[3][2:]), replies[3]  # the policy answered on the kept 9x9 board
    assert replies[4] == "= E5"
    assert err == ""


def test_gtp_without_the_shipped_policy_plays_mcts(no_shipped_models: Path, monkeypatch, capsys) -> None:
    rc, replies, err = gtp([], "boardsize 19\nquit\n", monkeypatch, capsys)
    assert rc == 0
    assert replies[0] == "= "  # mcts plays any size
    assert f"({DEFAULT_POLICY_MODEL}) is not installed; playing mcts" in err


def test_the_engine_starts_on_the_policys_board(tiny_policy: Path) -> None:
    engine = GtpEngine(make_agent("policy", model=str(tiny_policy), seed=1), stdout=io.StringIO())
    assert engine.size == 9
    assert VERTEX_9X9.fullmatch(engine.handle("genmove b")[2:])
