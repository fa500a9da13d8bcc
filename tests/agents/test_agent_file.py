"""Agent files: one safetensors file with our JSON metadata; loading never unpickles."""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI
safetensors_torch = need_module("safetensors.torch")

from fuseki.agents.agent_file import (  # noqa: E402
    FORMAT_VERSION,
    METADATA_KEY,
    AgentFileError,
    available_models,
    load_agent_file,
    read_agent_info,
    resolve_agent_path,
    save_agent,
)
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.nets.registry import available_networks, register_network  # noqa: E402

NET = "test-agentfile-tiny"


class TinyNet(torch.nn.Module):
    """A conv and a linear layer: just enough to have named weights of several shapes."""

    def __init__(self, in_planes: int, size: int, num_moves: int, width: int = 4) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(in_planes, width, 3, padding=1)
        self.head = torch.nn.Linear(width * size * size, num_moves)

    def forward(self, x):  # noqa: ANN001
        return self.head(torch.relu(self.conv(x)).flatten(1))


if NET not in available_networks():
    register_network(NET, TinyNet, "a tiny net for the agent file tests")


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, TinyNet]:
    torch.manual_seed(0)
    enc = get_encoder("oneplane", 5)
    net = TinyNet(enc.num_planes, 5, enc.num_moves, width=3)
    path = tmp_path / "tiny.safetensors"
    save_agent(path, net, encoder=enc, network=NET, network_options={"width": 3},
               metadata={"data": "kgs-test", "epochs": 2, "accuracy": 0.25})
    return path, net


def test_round_trip_keeps_weights_and_metadata(saved) -> None:
    path, net = saved
    model, info = load_agent_file(path)
    for key, value in net.state_dict().items():
        assert torch.equal(model.state_dict()[key], value)
    assert not model.training
    assert (info.encoder, info.board_size, info.in_planes, info.num_moves) == ("oneplane", 5, 1, 25)
    assert (info.network, info.network_options, info.kind) == (NET, {"width": 3}, "policy")
    assert info.training["data"] == "kgs-test" and info.training["epochs"] == 2
    assert info.training["accuracy"] == 0.25 and len(info.training["date"]) == 10  # today by default
    assert info.format_version == FORMAT_VERSION and info.fuseki_version and info.torch_version
    assert read_agent_info(path) == info


def test_one_plain_safetensors_file(saved) -> None:
    """Any safetensors reader sees the weights and our metadata: no side files, no pickles."""
    path, _ = saved
    assert [p.name for p in path.parent.iterdir()] == ["tiny.safetensors"]  # atomic write left no temp file
    from safetensors import safe_open

    with safe_open(str(path), "pt") as f:
        meta = json.loads(f.metadata()[METADATA_KEY])
        assert sorted(f.keys()) == ["conv.bias", "conv.weight", "head.bias", "head.weight"]
    assert meta["encoder"] == "oneplane" and meta["format"] == "fuseki-agent"


def test_load_never_unpickles(saved, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = saved

    def forbidden(*args, **kwargs):  # noqa: ANN002, ANN003
        raise AssertionError("an agent file must load without unpickling")

    monkeypatch.setattr(torch, "load", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    load_agent_file(path)


def test_save_refuses_a_model_that_is_not_the_named_network(tmp_path: Path) -> None:
    enc = get_encoder("oneplane", 5)
    net = TinyNet(1, 5, 25, width=3)
    with pytest.raises(ValueError, match="not network"):
        save_agent(tmp_path / "x.safetensors", net, encoder=enc, network=NET, network_options={"width": 4})
    with pytest.raises(ValueError, match="plain JSON"):
        save_agent(tmp_path / "x.safetensors", net, encoder=enc, network=NET, network_options={"width": 3},
                   metadata={"accuracy": float("nan")})
    assert not list(tmp_path.iterdir())


def test_found_by_name_in_the_models_folder(saved, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = saved
    monkeypatch.setenv("FUSEKI_MODELS", str(path.parent))
    monkeypatch.chdir(tmp_path.parent)  # "tiny" is not a path from here
    assert resolve_agent_path("tiny") == path
    assert resolve_agent_path("tiny.safetensors") == path
    assert available_models()["tiny"] == path
    with pytest.raises(AgentFileError, match="no such agent file.*models by name: .*tiny"):
        resolve_agent_path("nonesuch")


# ---- files that are not good agent files ------------------------------------


def check_rejected(path: Path, pattern: str) -> str:
    with pytest.raises(AgentFileError, match=pattern) as err:
        load_agent_file(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    assert isinstance(err.value, ValueError)
    return message


@pytest.mark.parametrize("cut", [0, 5, 30, -1, -100])
def test_truncated_file(saved, cut: int) -> None:
    path, _ = saved
    data = path.read_bytes()
    path.write_bytes(data[:cut])
    pattern = {0: "is empty", 5: "only 5 bytes"}.get(cut, "truncated agent file")
    check_rejected(path, pattern)


def test_garbage_and_foreign_files(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"this is certainly not an agent file, just some text\n" * 3)
    check_rejected(garbage, "not a fuseki agent file")
    h5 = tmp_path / "deep_bot.h5"
    h5.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    check_rejected(h5, "not a fuseki agent file.*HDF5")
    pickled = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, pickled)
    check_rejected(pickled, "not a fuseki agent file.*never loads pickles")


def test_safetensors_file_without_our_metadata(tmp_path: Path) -> None:
    path = tmp_path / "plain.safetensors"
    safetensors_torch.save_file({"w": torch.zeros(3)}, str(path), metadata={"format": "pt"})
    check_rejected(path, r"a safetensors file but not a fuseki agent \(no fuseki_agent metadata\)")


def rewrite_metadata(path: Path, change) -> None:  # noqa: ANN001
    """Rewrite the agent metadata of ``path`` in place (a valid safetensors file again)."""
    tensors = safetensors_torch.load_file(str(path))
    from safetensors import safe_open

    with safe_open(str(path), "pt") as f:
        meta = json.loads(f.metadata()[METADATA_KEY])
    change(meta)
    safetensors_torch.save_file(tensors, str(path), metadata={METADATA_KEY: json.dumps(meta)})


def test_newer_format_version(saved) -> None:
    path, _ = saved
    rewrite_metadata(path, lambda m: m.update(format_version=FORMAT_VERSION + 1, fuseki_version="9.0"))
    check_rejected(path, "newer fuseki.*upgrade fuseki")


def test_format_2_writes_and_reads_the_game(saved, tmp_path: Path) -> None:
    path, net = saved
    from safetensors import safe_open

    with safe_open(str(path), "pt") as f:
        meta = json.loads(f.metadata()[METADATA_KEY])
    assert FORMAT_VERSION == 2 and (meta["format_version"], meta["game"]) == (2, "go")
    assert read_agent_info(path).game == "go"
    enc = get_encoder("oneplane", 5)
    other = tmp_path / "ttt.safetensors"
    save_agent(other, net, encoder=enc, network=NET, network_options={"width": 3}, game="tictactoe")
    info = read_agent_info(other)
    assert (info.format_version, info.game) == (2, "tictactoe")
    assert load_agent_file(other)[1].game == "tictactoe"
    with pytest.raises(ValueError, match="unknown game 'shogi'.*known games: chess, go"):
        save_agent(tmp_path / "x.safetensors", net, encoder=enc, network=NET, network_options={"width": 3}, game="shogi")
    assert not (tmp_path / "x.safetensors").exists()


def test_format_1_files_still_load_as_go(saved) -> None:
    """A file written before the game field (format 1, as the old writer made it) is a Go agent."""
    path, net = saved

    def as_version_1(meta: dict) -> None:
        del meta["game"]
        meta["format_version"] = 1

    rewrite_metadata(path, as_version_1)
    model, info = load_agent_file(path)
    assert (info.format_version, info.game) == (1, "go")
    for key, value in net.state_dict().items():
        assert torch.equal(model.state_dict()[key], value)
    assert read_agent_info(path) == info


def test_format_2_needs_its_game(saved) -> None:
    path, _ = saved
    rewrite_metadata(path, lambda m: m.pop("game"))
    check_rejected(path, "corrupt agent file: its metadata lacks game")
    rewrite_metadata(path, lambda m: m.update(game=7))
    check_rejected(path, "bad metadata field game")


def test_format_3_is_refused(saved) -> None:
    path, _ = saved
    rewrite_metadata(path, lambda m: m.update(format_version=3, fuseki_version="9.0"))
    message = check_rejected(path, "newer fuseki")
    assert "agent file format 3" in message and "reads format 2" in message and "upgrade fuseki" in message
    with pytest.raises(AgentFileError, match="newer fuseki"):
        read_agent_info(path)


def test_weights_that_do_not_fit_the_architecture(saved) -> None:
    path, _ = saved
    rewrite_metadata(path, lambda m: m["network_options"].update(width=5))
    check_rejected(path, r"weights do not fit .*conv\.\w+ has shape")


def test_missing_and_unknown_pieces(saved) -> None:
    path, _ = saved
    rewrite_metadata(path, lambda m: m.update(network="no-such-net"))
    check_rejected(path, "cannot rebuild its network.*unknown network 'no-such-net'")
    rewrite_metadata(path, lambda m: m.update(network=NET, encoder="no-such-encoder"))
    check_rejected(path, "needs encoder 'no-such-encoder'")
    rewrite_metadata(path, lambda m: m.pop("board_size"))
    check_rejected(path, "metadata lacks board_size")


def test_bit_flip_in_the_header_length(saved) -> None:
    path, _ = saved
    data = bytearray(path.read_bytes())
    (length,) = struct.unpack("<Q", data[:8])
    data[:8] = struct.pack("<Q", length + 1000)
    path.write_bytes(bytes(data))
    check_rejected(path, "truncated|not a fuseki agent|broken")
