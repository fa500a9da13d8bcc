"""The book's DeepLearningAgent (ch. 8): probabilities, legal moves, no own eyes, save and load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents import make_agent  # noqa: E402
from fuseki.agents.agent_file import AgentFileError, save_agent  # noqa: E402
from fuseki.agents.deep_learning import DeepLearningAgent, clip_probs  # noqa: E402
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.go.coords import from_gtp, to_gtp  # noqa: E402
from fuseki.go.state import Color, GameState, Move  # noqa: E402
from fuseki.nets.registry import available_networks, register_network  # noqa: E402

CONV_NET = "test-dlagent-conv"
BIAS_NET = "test-dlagent-bias"


class ConvNet(torch.nn.Module):
    def __init__(self, in_planes: int, size: int, num_moves: int) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(in_planes, 4, 3, padding=1)
        self.head = torch.nn.Linear(4 * size * size, num_moves)

    def forward(self, x):  # noqa: ANN001
        return self.head(torch.tanh(self.conv(x)).flatten(1))


class BiasNet(torch.nn.Module):
    """Logits that ignore the position: the test sets them directly."""

    def __init__(self, in_planes: int, size: int, num_moves: int) -> None:
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(num_moves))

    def forward(self, x):  # noqa: ANN001
        return self.bias.expand(x.shape[0], -1) + 0 * x.sum()


for _name, _cls in ((CONV_NET, ConvNet), (BIAS_NET, BiasNet)):
    if _name not in available_networks():
        register_network(_name, _cls, "a test net")

ONLY_EYES = """
    . X X X X
    X X X . X
    X X X X X
    X . X X X
    X X X X .
"""
EYES_AND_TWO_POINTS = """
    . X X X X
    X X X . X
    X X X X X
    X X X X O
    X X X . .
"""


def bias_agent(logits: dict[str, float], size: int = 5, encoder: str = "oneplane", **options) -> DeepLearningAgent:
    enc = get_encoder(encoder, size)
    net = BiasNet(enc.num_planes, size, enc.num_moves)
    with torch.no_grad():
        net.bias.fill_(-20.0)
        for vertex, value in logits.items():
            index = size * size if vertex == "pass" else enc.encode_point(from_gtp(vertex, size))
            net.bias[index] = value
    return DeepLearningAgent(net, enc, **options)


def test_clip_probs_is_the_books() -> None:
    probs = np.array([0.0, 1e-9, 0.3, 1.0])
    eps = 1e-6
    expected = np.clip(probs, eps, 1 - eps)
    assert np.allclose(clip_probs(probs, eps), expected / expected.sum())
    assert clip_probs(probs).min() > 0


def test_move_probabilities_follow_listing_8_3() -> None:
    """Cube the network's probabilities, clip to [1e-6, 1 - 1e-6], renormalise."""
    enc = get_encoder("oneplane", 5)
    net = ConvNet(1, 5, 25)
    agent = DeepLearningAgent(net, enc)
    state = GameState.new(5)
    p = agent.predict([state])[0]
    book = np.clip(p**3, 1e-6, 1 - 1e-6)
    assert np.allclose(agent.move_probabilities([state])[0], book / book.sum())
    plain = DeepLearningAgent(net, enc, cube=False, clip=None, temperature=2.0)
    logits = plain.logits([state])[0].astype(np.float64) / 2
    soft = np.exp(logits - logits.max())
    assert np.allclose(plain.move_probabilities([state])[0], soft / soft.sum())


def test_predict_is_batched() -> None:
    enc = get_encoder("sevenplane", 5)
    agent = DeepLearningAgent(ConvNet(enc.num_planes, 5, 25), enc)
    states = [GameState.new(5)]
    for vertex in ("C3", "D4", "B2"):
        states.append(states[-1].play(Move.from_gtp(vertex, 5)))
    batch = agent.predict(states)
    assert batch.shape == (4, 25)
    assert np.allclose(batch.sum(axis=1), 1.0)
    for i, state in enumerate(states):
        assert np.allclose(agent.predict([state])[0], batch[i], atol=1e-6)


def test_argmax_skips_occupied_points() -> None:
    agent = bias_agent({"C3": 5.0, "D4": 4.0, "B2": 1.0}, mode="argmax")
    state = GameState.new(5)
    assert agent.select_move(state) == Move.from_gtp("C3", 5)
    state = state.play(Move.from_gtp("C3", 5))
    assert agent.select_move(state) == Move.from_gtp("D4", 5)


@pytest.mark.parametrize("mode", ["sample", "argmax"])
def test_never_fills_its_own_eye(mode: str) -> None:
    eyes = ["A5", "D4", "B2", "E1"]
    agent = bias_agent({v: 10.0 for v in eyes}, mode=mode, seed=1)
    state = GameState.from_ascii(ONLY_EYES, to_move=Color.BLACK)
    for _ in range(10):
        assert agent.select_move(state) == Move.pass_turn()
    # D1 and E1 touch a white stone: not eyes, so those are the only candidates.
    state = GameState.from_ascii(EYES_AND_TWO_POINTS, to_move=Color.BLACK)
    seen = {to_gtp(agent.select_move(state).point, 5) for _ in range(20)}
    assert seen <= {"D1", "E1"} and seen


def test_sampling_follows_the_probabilities() -> None:
    # Two candidates with network probabilities 3:1; without cube and clip the agent draws 3:1.
    agent = bias_agent({"C3": float(np.log(3.0)), "D4": 0.0}, cube=False, clip=None, seed=5)
    state = GameState.new(5)
    moves = [agent.select_move(state) for _ in range(2000)]
    share = sum(m == Move.from_gtp("C3", 5) for m in moves) / len(moves)
    assert 0.72 < share < 0.78
    # The book's cube makes it 27:1.
    cubed = bias_agent({"C3": float(np.log(3.0)), "D4": 0.0}, seed=5)
    share = sum(cubed.select_move(state) == Move.from_gtp("C3", 5) for _ in range(2000)) / 2000
    assert 0.94 < share < 0.98


def test_pass_class_of_the_zero_encoder() -> None:
    agent = bias_agent({"pass": 5.0, "C3": 1.0}, encoder="zero", mode="argmax")
    assert agent.select_move(GameState.new(5)) == Move.pass_turn()
    agent = bias_agent({"pass": 1.0, "C3": 5.0}, encoder="zero", mode="argmax")
    assert agent.select_move(GameState.new(5)) == Move.from_gtp("C3", 5)


def test_analyze_lists_the_likeliest_moves() -> None:
    agent = bias_agent({"C3": 3.0, "D4": 2.0, "B2": 1.0}, mode="argmax")
    info = agent.analyze(GameState.new(5), top=3)
    assert [row[1] for row in info["top"]] == ["C3", "D4", "B2"]
    index, vertex, network_p, choice_p = info["top"][0]
    assert index == 12 and 0.6 < network_p < 0.7 and choice_p > network_p  # the cube sharpens
    assert info["candidates"] == 25 and info["pass_probability"] is None


def test_bad_options_and_states() -> None:
    enc = get_encoder("oneplane", 5)
    net = ConvNet(1, 5, 25)
    for options in ({"temperature": 0}, {"mode": "greedy"}, {"clip": 0.7}):
        with pytest.raises(ValueError):
            DeepLearningAgent(net, enc, **options)
    agent = DeepLearningAgent(net, enc)
    with pytest.raises(ValueError, match="plays 5x5 only"):
        agent.select_move(GameState.new(9))
    over = GameState.new(5).play(Move.pass_turn()).play(Move.pass_turn())
    with pytest.raises(ValueError, match="game is over"):
        agent.select_move(over)


# ---- saved and loaded -------------------------------------------------------


def play_out(agent: DeepLearningAgent, moves: int = 30) -> list[Move]:
    state = GameState.new(5)
    played = []
    for _ in range(moves):
        if state.is_over():
            break
        move = agent.select_move(state)
        played.append(move)
        state = state.play(move)
    return played


@pytest.mark.parametrize("mode", ["sample", "argmax"])
def test_saving_and_loading_gives_identical_moves(tmp_path: Path, mode: str) -> None:
    torch.manual_seed(7)
    enc = get_encoder("sevenplane", 5)
    net = ConvNet(enc.num_planes, 5, enc.num_moves)
    path = tmp_path / "conv.safetensors"
    save_agent(path, net, encoder=enc, network=CONV_NET, metadata={"data": "none"})
    before = DeepLearningAgent(net, enc, mode=mode, seed=11)
    after = make_agent("policy", model=str(path), mode=mode, seed=11)
    assert isinstance(after, DeepLearningAgent) and after.info is not None
    assert after.info.network == CONV_NET and after.board_size == 5
    state = GameState.new(5).play(Move.from_gtp("C3", 5))
    assert np.array_equal(before.logits([state]), after.logits([state]))
    assert play_out(before) == play_out(after)


def test_the_registry_needs_a_good_model(tmp_path: Path, no_shipped_models: Path) -> None:
    with pytest.raises(ValueError, match="needs a model"):  # no --model and no shipped policy to default to
        make_agent("policy")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x00" * 4)
    with pytest.raises(AgentFileError, match="not a fuseki agent file"):
        make_agent("policy", model=str(bad))
