"""The learner: the loss falls on a fixed batch, augmentation moves planes and pi together; the network file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.games import make_game  # noqa: E402
from fuseki.search.evaluators import UniformEvaluator  # noqa: E402
from fuseki.agents.zero_agent import (  # noqa: E402
    ZeroAgent,
    ZeroFileError,
    build_zero_network,
    load_zero_network,
    save_zero_network,
)  # noqa: E402
from fuseki.zero.learner import LearnerConfig, augment, evaluate_loss, train_network  # noqa: E402
from fuseki.zero.selfplay import SelfPlayConfig, play_games, samples_of  # noqa: E402


@pytest.fixture(scope="module")
def samples() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    game = make_game("tictactoe")
    games, _ = play_games(game, UniformEvaluator(game), 30, SelfPlayConfig(simulations=20, parallel=30), seed=1)
    return samples_of(games)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_reduces_the_loss_on_a_fixed_batch(samples: tuple[np.ndarray, ...], optimizer: str) -> None:
    game = make_game("tictactoe")
    planes, pi, z = samples
    torch.manual_seed(0)
    net = build_zero_network(game, 1, 16, 32)
    before = evaluate_loss(net, planes, pi, z)
    lr = 0.05 if optimizer == "sgd" else 0.003
    history = train_network(net, game, planes, pi, z, LearnerConfig(epochs=10, optimizer=optimizer, lr=lr, augment=False), seed=2)
    after = evaluate_loss(net, planes, pi, z)
    assert len(history) == 10 and history[-1]["samples"] == len(z)
    assert after["loss"] < before["loss"] - 0.3
    assert after["value_loss"] < before["value_loss"] and after["policy_loss"] < before["policy_loss"]


def test_training_is_reproducible(samples: tuple[np.ndarray, ...]) -> None:
    game = make_game("tictactoe")
    weights = []
    for _ in range(2):
        torch.manual_seed(0)
        net = build_zero_network(game, 1, 8, 16)
        train_network(net, game, *samples, LearnerConfig(epochs=2), seed=7)
        weights.append(torch.cat([p.detach().flatten() for p in net.parameters()]))
    assert torch.equal(weights[0], weights[1])


def test_channels_last_input_trains_the_same_network(samples: tuple[np.ndarray, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """The learner feeds CPU batches in channels-last layout (1.66x faster); the weights it reaches are those of NCHW.

    Equal to float rounding after two epochs, and the parameters keep torch's
    default layout (the network file and the optimiser state do not change).
    """
    import fuseki.zero.learner as learner

    game = make_game("tictactoe")
    seen: list[bool] = []
    real = learner.fast_layout

    def spy(x: torch.Tensor, dev: torch.device) -> torch.Tensor:
        out = real(x, dev)
        seen.append(out.is_contiguous(memory_format=torch.channels_last) and not out.is_contiguous())
        return out

    weights = []
    for layout in (spy, lambda x, dev: x):
        monkeypatch.setattr(learner, "fast_layout", layout)
        torch.manual_seed(0)
        net = build_zero_network(game, 1, 8, 16)
        train_network(net, game, *samples, LearnerConfig(epochs=2, batch_size=32), seed=7)
        assert all(p.is_contiguous() for p in net.parameters())
        weights.append(torch.cat([p.detach().flatten() for p in net.parameters()]))
    assert seen and all(seen)
    torch.testing.assert_close(weights[0], weights[1], rtol=1e-4, atol=1e-5)
    torch.manual_seed(0)
    untrained = torch.cat([p.detach().flatten() for p in build_zero_network(game, 1, 8, 16).parameters()])
    assert (weights[0] - untrained).abs().max() > 1e-2  # it trained


def test_augmentation_moves_planes_and_pi_together() -> None:
    game = make_game("tictactoe")
    n = 64
    planes = np.zeros((n, *game.planes_shape), dtype=np.float32)
    pi = np.zeros((n, game.num_actions), dtype=np.float32)
    cells = np.arange(n) % 9
    planes[np.arange(n), 0, cells // 3, cells % 3] = 1.0
    pi[np.arange(n), cells] = 1.0
    new_planes, new_pi = augment(game, planes, pi, np.random.default_rng(0))
    assert np.array_equal(new_planes[:, 0].reshape(n, 9).argmax(1), new_pi.argmax(1))
    assert not np.array_equal(new_pi, pi)  # some samples did move
    assert np.array_equal(pi[:, 4], new_pi[:, 4])  # the centre stays the centre


def test_network_file_round_trip_and_agent(tmp_path: Path) -> None:
    game = make_game("hexapawn")
    torch.manual_seed(3)
    net = build_zero_network(game, 1, 8, 16).eval()
    path = tmp_path / "net.safetensors"
    save_zero_network(path, net, game="hexapawn", game_options={}, blocks=1, channels=8, value_hidden=16, extra={"generation": 4})
    loaded, loaded_game, info = load_zero_network(path)
    assert loaded_game.name == game.name and info["generation"] == 4
    x = torch.from_numpy(game.planes(game.initial_state()))[None]
    with torch.no_grad():
        assert torch.equal(net(x)[0], loaded(x)[0])
    agent = ZeroAgent.from_file(path, simulations=8)
    state = game.initial_state()
    while not state.is_over():
        state = state.play(agent.select_move(state))
    (tmp_path / "junk.safetensors").write_bytes(b"not a file")
    with pytest.raises(ZeroFileError, match="not a readable"):
        load_zero_network(tmp_path / "junk.safetensors")
    with pytest.raises(ZeroFileError, match="no Zero network file"):
        load_zero_network(tmp_path / "missing.safetensors")


def test_go_zero_agent_from_the_registry(tmp_path: Path) -> None:
    from fuseki.agents import make_agent
    from fuseki.go.state import GameState, Move, Point

    game = make_game("go", size=5)
    torch.manual_seed(4)
    path = tmp_path / "go5.safetensors"
    save_zero_network(path, build_zero_network(game, 1, 8, 16), game="go", game_options={"size": 5}, blocks=1, channels=8, value_hidden=16)
    agent = make_agent("zero", model=str(path), simulations=12)
    assert agent.name == "zero" and getattr(agent, "board_size", None) == 5
    state = GameState.new(5)
    for _ in range(6):
        move = agent.select_move(state)
        state = state.play(move)
    with pytest.raises(ValueError, match="5x5 only, not 7x7"):
        agent.select_move(GameState.new(7))
    # resign_below: 1.0 resigns unless the search is sure of a win, but not before a quarter of the board.
    resigner = make_agent("zero", model=str(path), simulations=12, resign_below=1.0)
    placed = GameState.new(5)
    for row, col in ((0, 0), (4, 4), (0, 4), (4, 0), (2, 2)):
        placed = placed.play(Move.play(Point(row, col)))
    assert placed.move_number == 5  # 25 // 4 = 6 moves before it may resign
    assert not resigner.select_move(placed).is_resign
    assert float(resigner.agent.last_result.value) < 1.0
    assert resigner.select_move(placed.play(Move.play(Point(1, 1)))).is_resign
    never = make_agent("zero", model=str(path), simulations=12, resign_below=-1.0)  # no value is under -1
    assert not never.select_move(placed).is_resign
    for bad in (1.5, -2.0, "x"):
        with pytest.raises(ValueError, match="resign_below must be a value in"):
            make_agent("zero", model=str(path), resign_below=bad)
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("zero")
    hexapawn = tmp_path / "hexapawn.safetensors"
    save_zero_network(
        hexapawn,
        build_zero_network(make_game("hexapawn"), 1, 8, 16),
        game="hexapawn",
        game_options={},
        blocks=1,
        channels=8,
        value_hidden=16,
    )
    with pytest.raises(ValueError, match="for hexapawn, not Go"):
        make_agent("zero", model=str(hexapawn))
