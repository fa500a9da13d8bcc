"""scripts/ship_model.py: a run's agent file becomes a shipped model with its data, license and accuracy."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents.agent_file import load_agent_file, read_agent_info  # noqa: E402
from fuseki.agents.deep_learning import default_policy_path  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ship_model.py"


def _ship():
    spec = importlib.util.spec_from_file_location("ship_model", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def _evaluation(tmp_path: Path, split: str = "test") -> Path:
    """What `fuseki train evaluate --json` prints (the keys the script reads, and more)."""
    path = tmp_path / "eval.json"
    path.write_text(
        json.dumps(
            {"positions": 1234, "top1": 0.41234, "top5": 0.75678, "split": split, "shards": "/x/runs/held-out",
             "board_size": 9, "split_sha256": "ab" * 32, "loss": 2.0}
        )
    )
    return path


def test_ships_the_same_network_with_its_provenance(tmp_path, capsys):
    source = default_policy_path(9)
    assert source is not None
    archive = tmp_path / "games.tar.xz"
    archive.write_bytes(b"some games")
    rc = _ship()(
        [str(source), "--name", "policy-test", "--data", "nine games", "--data-license", "CC0-1.0",
         "--source", str(archive), "--accuracy", str(_evaluation(tmp_path)), "--note", "why=a test",
         "--out-dir", str(tmp_path / "models")]
    )
    assert rc == 0
    out = tmp_path / "models" / "policy-test.safetensors"
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["wrote"] == str(out)
    info, old = read_agent_info(out), read_agent_info(source)
    t = info.training
    assert (t["data"], t["data_license"], t["why"]) == ("nine games", "CC0-1.0", "a test")
    assert t["sources"] == ["games.tar.xz (sha256 " + __import__("hashlib").sha256(b"some games").hexdigest() + ")"]
    assert t["accuracy"]["test_top1"] == 0.4123 and t["accuracy"]["test_positions"] == 1234
    assert t["accuracy"]["measured_on"] == "held-out"
    assert t["final"] == old.training["final"]  # the training record is carried over unchanged
    (a, _), (b, _) = load_agent_file(out), load_agent_file(source)
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_refuses_an_accuracy_measured_on_training_games(tmp_path):
    source = default_policy_path(9)
    archive = tmp_path / "games.tar.xz"
    archive.write_bytes(b"x")
    with pytest.raises(SystemExit, match="held-out"):
        _ship()(
            [str(source), "--name", "p", "--data", "d", "--data-license", "MIT", "--source", str(archive),
             "--accuracy", str(_evaluation(tmp_path, split="train")), "--out-dir", str(tmp_path)]
        )
    assert not (tmp_path / "p.safetensors").exists()


def test_a_missing_source_is_a_clear_error(tmp_path, capsys):
    source = default_policy_path(9)
    rc = _ship()(
        [str(source), "--name", "p", "--data", "d", "--data-license", "MIT", "--source", str(tmp_path / "nope"),
         "--accuracy", str(_evaluation(tmp_path)), "--out-dir", str(tmp_path)]
    )
    assert rc == 1 and "no such file" in capsys.readouterr().err
