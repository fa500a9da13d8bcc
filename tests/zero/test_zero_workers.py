"""Self-play workers: the same games from 1 or 2 local processes and from Ray actors; the learner's optimiser state kept."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents.zero_agent import load_zero_network  # noqa: E402
from fuseki.zero.learner import LearnerConfig, make_optimizer, optimizer_from_bytes  # noqa: E402
from fuseki.zero.loop import ZeroSettings, learner_path, network_path, run_zero  # noqa: E402
from fuseki.zero.workers import RayRunner, RayUnavailable, split_games  # noqa: E402

TINY = ZeroSettings(games=10, simulations=8, blocks=1, channels=8, value_hidden=16, epochs=2, window=2, seed=5, temperature_moves=3)


def selfplay(folder: Path, g: int) -> dict[str, Any]:
    with np.load(folder / f"selfplay-{g:04d}.npz") as data:
        return {k: data[k] for k in ("planes", "pi", "z")}


def same_run(a: Path, b: Path, generations: int) -> None:
    """The two run folders hold the same games and bit-identical networks."""
    for g in range(1, generations + 1):
        x, y = selfplay(a, g), selfplay(b, g)
        for key in x:
            np.testing.assert_array_equal(x[key], y[key], err_msg=f"generation {g}: {key}")
    for g in range(generations + 1):
        na, _, _ = load_zero_network(network_path(a, g))
        nb, _, _ = load_zero_network(network_path(b, g))
        for (name, t), u in zip(na.state_dict().items(), nb.state_dict().values(), strict=True):
            assert torch.equal(t, u), f"generation {g}: {name}"


def test_split_games_covers_every_game_once() -> None:
    for games in (1, 7, 10, 64):
        for workers in (1, 2, 3, 8):
            parts = split_games(games, workers)
            covered = [i for first, count in parts for i in range(first, first + count)]
            assert covered == list(range(games)) and all(count > 0 for _, count in parts)


def test_two_local_workers_play_the_games_of_one(tmp_path: Path) -> None:
    # with a recalibrated resignation: the workers' no-resign records join in the order of the games
    settings = dataclasses.replace(TINY, resign_threshold=-0.5, resign_target=0.05, no_resign_share=0.5)
    one = run_zero(tmp_path / "one", settings, 2)
    two = run_zero(tmp_path / "two", settings, 2, workers=2)
    same_run(tmp_path / "one", tmp_path / "two", 2)
    for a, b in zip(one["history"], two["history"], strict=True):
        assert a["selfplay"]["wins"] == b["selfplay"]["wins"] and a["selfplay"]["draws"] == b["selfplay"]["draws"]
        assert a["selfplay"]["resign_records"] == b["selfplay"]["resign_records"] != []
        assert a["selfplay"]["resign_threshold"] == b["selfplay"]["resign_threshold"]
        assert a["train"]["loss"] == b["train"]["loss"]


def test_the_optimizer_state_is_kept_between_generations(tmp_path: Path) -> None:
    state = run_zero(tmp_path / "run", TINY, 2)
    assert [h["train"]["optimizer_from"] for h in state["history"]] == [None, 1]
    # the file holds generation 2's SGD momentum buffers, one per parameter
    net, _, _ = load_zero_network(network_path(tmp_path / "run", 2))
    optimizer = make_optimizer(net, LearnerConfig())
    optimizer_from_bytes(optimizer, learner_path(tmp_path / "run", 2).read_bytes())
    buffers = [optimizer.state[p]["momentum_buffer"] for p in net.parameters()]
    assert len(buffers) == len(list(net.parameters())) and any(float(b.abs().sum()) > 0 for b in buffers)
    # the rate is the new optimiser's, not the saved one's (a schedule changes it between generations)
    slower = make_optimizer(net, LearnerConfig(lr=0.005))
    optimizer_from_bytes(slower, learner_path(tmp_path / "run", 2).read_bytes())
    assert [g["lr"] for g in slower.param_groups] == [0.005] and [g["lr"] for g in optimizer.param_groups] == [LearnerConfig().lr]
    assert torch.equal(slower.state[next(net.parameters())]["momentum_buffer"], buffers[0])
    # the kept state changes the training: a fresh optimiser in generation 2 ends elsewhere
    fresh = tmp_path / "fresh"
    run_zero(fresh, TINY, 1)
    learner_path(fresh, 1).unlink()  # as a run made before the state was kept
    legacy = run_zero(fresh, TINY, 2)
    assert legacy["history"][1]["train"]["optimizer_from"] is None
    assert legacy["history"][1]["train"]["loss"] != state["history"][1]["train"]["loss"]


def test_ray_is_optional_and_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(RayUnavailable, match=r"pip install -e '\.\[ray\]'"):
        RayRunner("auto", 1)


def test_ray_actors_play_the_games_of_the_local_pool(tmp_path: Path) -> None:
    """A local Ray cluster of two CPUs: self-play on two actors and training on the learner actor, as the local pool."""
    ray = need_module("ray")
    settings = dataclasses.replace(TINY, games=8)
    run_zero(tmp_path / "local", settings, 2, workers=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        state = run_zero(tmp_path / "ray", settings, 2, workers=2, ray="auto")
    finally:
        ray.shutdown()
    assert state["generation"] == 2
    same_run(tmp_path / "local", tmp_path / "ray", 2)
    assert json.loads((tmp_path / "ray" / "zero.json").read_text()) == json.loads((tmp_path / "local" / "zero.json").read_text())
