"""Subnormal weights are set to zero at load; the fuseki command's training runs flush them in the CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki import cli  # noqa: E402
from fuseki.agents.agent_file import load_agent_file, save_agent  # noqa: E402
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.nets.denormals import flush_subnormal_weights  # noqa: E402
from fuseki.nets.registry import build_network  # noqa: E402

TINY = torch.finfo(torch.float32).tiny


def subnormals(module: torch.nn.Module) -> int:
    return sum(int(((t != 0) & (t.abs() < TINY)).sum()) for t in [*module.parameters(), *module.buffers()] if t.is_floating_point())


def planted_network() -> tuple[torch.nn.Module, dict[str, object]]:
    """A small residual policy with 40 subnormal weights in one convolution, as weight decay leaves them."""
    torch.manual_seed(5)
    options: dict[str, object] = {"blocks": 1, "channels": 8, "policy_head": "conv"}
    net = build_network("residual", in_planes=7, size=9, num_moves=81, **options)
    with torch.no_grad():
        weight = next(p for name, p in net.named_parameters() if p.dim() == 4 and "tower" in name)
        weight.view(-1)[:40] = torch.linspace(1e-41, 1e-39, 40)
    net.eval()
    return net, options


def test_flush_sets_only_the_subnormal_entries_to_zero() -> None:
    net, _ = planted_network()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    assert subnormals(net) == 40
    assert flush_subnormal_weights(net) == 40
    assert subnormals(net) == 0
    changed = 0
    for key, value in net.state_dict().items():
        moved = before[key] != value
        changed += int(moved.sum())
        assert (value[moved] == 0).all() and (before[key][moved].abs() < TINY).all(), key
    assert changed == 40
    assert flush_subnormal_weights(net) == 0  # nothing left to do


def test_an_agent_file_loads_without_subnormal_weights_and_plays_the_same(tmp_path: Path) -> None:
    net, options = planted_network()
    enc = get_encoder("sevenplane", 9)
    path = tmp_path / "planted.safetensors"
    save_agent(path, net, encoder=enc, network="residual", network_options=options, metadata={"data": "none"})
    loaded, _ = load_agent_file(path)
    assert subnormals(loaded) == 0
    x = (torch.rand(16, 7, 9, 9, generator=torch.Generator().manual_seed(1)) < 0.3).float()
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), net(x), rtol=0, atol=1e-6)


def test_flush_to_zero_mode_in_a_process_of_its_own() -> None:
    """The mode makes a subnormal input count as zero, in the thread that set it and in a thread started later."""
    code = (
        "import threading, torch\n"
        "from fuseki.nets.denormals import flush_denormals_in_this_process\n"
        "x = torch.tensor([1e-39])\n"
        "assert float(x * 1.0) != 0.0\n"
        "assert flush_denormals_in_this_process()\n"
        "seen = []\n"
        "t = threading.Thread(target=lambda: seen.append(float(x * 1.0))); t.start(); t.join()\n"
        "print(float(x * 1.0), seen[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["0.0", "0.0"], out.stdout + out.stderr


def test_the_training_commands_are_commands() -> None:
    assert cli.TRAINING_COMMANDS <= set(cli.COMMANDS)
    assert {"train", "zero", "alphago"} <= cli.TRAINING_COMMANDS
