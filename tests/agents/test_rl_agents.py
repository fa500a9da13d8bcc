"""The learning agents: legal games, no own-eye filling, recorded decisions, loading by kind."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fuseki.agents import make_agent
from fuseki.agents.agent_file import AgentFileError, save_agent
from fuseki.encoders import get_encoder
from fuseki.go.state import GameState, Move
from fuseki.nets.registry import build_network
from fuseki.data.experience import ExperienceCollector
from fuseki.agents.rl_agents import ACAgent, PolicyAgent, QAgent, acceptable_moves, load_rl_agent

torch.set_num_threads(1)

TINY = {
    "policy": ("fc", {"hidden": [16]}),
    "q": ("q", {"layers": [[4, 3]], "board_hidden": 16, "hidden": 16}),
    "ac": ("ac", {"layers": [[4, 3]], "board_hidden": 16, "policy_hidden": 16, "value_hidden": 16}),
}


def agent_file(tmp_path, kind: str, encoder: str = "oneplane") -> str:
    enc = get_encoder(encoder, 5)
    network, options = TINY[kind]
    torch.manual_seed(0)
    net = build_network(network, in_planes=enc.num_planes, size=5, num_moves=enc.num_moves, **options)
    path = str(tmp_path / f"{kind}.safetensors")
    save_agent(path, net, encoder=enc, network=network, network_options=options, kind=kind)
    return path


def play_out(agent, limit: int = 200) -> GameState:
    state = GameState.new(5)
    while not state.is_over() and state.move_number < limit:
        move = agent.select_move(state)
        assert state.is_legal(move)
        if move.is_play:
            assert not state.is_eye(move.point, state.next_player), "filled its own eye"
        state = state.play(move)
    return state


@pytest.mark.parametrize("kind, cls", [("policy", PolicyAgent), ("q", QAgent), ("ac", ACAgent)])
def test_each_kind_loads_by_its_kind_and_plays_a_legal_game_to_the_end(tmp_path, kind, cls):
    agent = load_rl_agent(agent_file(tmp_path, kind), seed=3, epsilon=0.1)
    assert type(agent) is cls and agent.board_size == 5
    state = play_out(agent)
    assert state.is_over()  # never filling its own eyes, it runs out of moves and passes


@pytest.mark.parametrize("kind", ["policy", "q", "ac"])
def test_decisions_are_recorded_with_the_encoded_state(tmp_path, kind):
    agent = load_rl_agent(agent_file(tmp_path, kind), seed=1)
    collector = ExperienceCollector(agent.encoder)
    agent.set_collector(collector)
    collector.begin_episode()
    state = GameState.new(5)
    moves = []
    for _ in range(6):
        move = agent.select_move(state)
        moves.append(state.move_index(move))
        state = state.play(move)
    collector.complete_episode(-1)
    buf = collector.to_buffer()
    assert buf.actions.tolist() == moves
    assert np.array_equal(buf.states[0], agent.encoder.encode(GameState.new(5)))
    if kind == "ac":  # the value head's estimate: the advantage is reward - value, so not all exactly -1
        assert np.all(np.abs(buf.advantages + 1) <= 1) and not np.all(buf.advantages == -1)
    else:
        assert np.all(buf.advantages == -1)


def test_the_same_seed_gives_the_same_game(tmp_path):
    path = agent_file(tmp_path, "policy")
    a, b = load_rl_agent(path, seed=5), load_rl_agent(path, seed=5)
    assert play_out(a).moves() == play_out(b).moves()
    a.reseed(6)
    b.reseed(7)
    assert play_out(a).moves() != play_out(b).moves()


def test_the_q_agent_is_greedy_at_epsilon_0_and_random_at_1(tmp_path):
    agent = load_rl_agent(agent_file(tmp_path, "q"), seed=0)
    state = GameState.new(5).apply_moves([Move.play((2, 2))])
    planes = agent.encoder.encode(state)
    cands = acceptable_moves(state, agent.encoder, with_pass=False)
    best = int(cands[int(np.argmax(agent.action_values(planes, cands)))])
    assert {state.move_index(agent.select_move(state)) for _ in range(5)} == {best}
    agent.set_temperature(1.0)
    assert len({state.move_index(agent.select_move(state)) for _ in range(30)}) > 5


def test_q_values_of_the_shortcut_match_the_two_input_network(tmp_path):
    agent = load_rl_agent(agent_file(tmp_path, "q"))
    planes = agent.encoder.encode(GameState.new(5))
    points = np.array([0, 12, 24])
    onehot = torch.eye(25)[points]
    board = torch.from_numpy(planes[None]).float().expand(3, -1, -1, -1)
    with torch.no_grad():
        direct = agent.model(board, onehot).numpy()
    assert np.allclose(agent.action_values(planes, points), direct, atol=1e-6)
    assert np.all(np.abs(direct) <= 1)


@pytest.mark.parametrize("kind", ["policy", "q", "ac"])
def test_agents_pass_when_only_their_own_eyes_are_left(tmp_path, kind):
    state = GameState.from_ascii(
        """
        X X X X X
        X . X . X
        X X X X X
        X X X X X
        . X X X .
        """
    )
    assert len(state.legal_points()) > 1  # filling an eye is legal, but the book's agents never do it
    agent = load_rl_agent(agent_file(tmp_path, kind), seed=0, epsilon=0.5)
    assert agent.select_move(state).is_pass


def test_a_supervised_policy_file_loads_as_a_policy_agent(tmp_path):
    enc = get_encoder("oneplane", 5)
    net = build_network("fc", in_planes=1, size=5, num_moves=25, hidden=[8])
    path = tmp_path / "sup.safetensors"
    save_agent(path, net, encoder=enc, network="fc", network_options={"hidden": [8]}, metadata={"data": "kgs"})
    agent = load_rl_agent(path)
    assert isinstance(agent, PolicyAgent) and agent.clip == 1e-5
    assert isinstance(make_agent("rl", model=str(path)), PolicyAgent)


def test_a_pass_class_encoder_lets_the_policy_pass(tmp_path):
    agent = load_rl_agent(agent_file(tmp_path, "policy", encoder="zero"), seed=0)
    state = GameState.new(5)
    assert acceptable_moves(state, agent.encoder)[-1] == 25
    assert state.is_legal(agent.select_move(state))


def test_bad_options_and_files_give_clear_errors(tmp_path):
    path = agent_file(tmp_path, "policy")
    with pytest.raises(ValueError, match="from 0 to 1"):
        load_rl_agent(path, epsilon=2)
    with pytest.raises(ValueError, match="no clip"):
        load_rl_agent(agent_file(tmp_path, "q"), clip=0.1)
    with pytest.raises(AgentFileError, match="no such agent file"):
        load_rl_agent(tmp_path / "missing.safetensors")
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("rl")
    agent = load_rl_agent(path)
    with pytest.raises(ValueError, match="5x5 only"):
        agent.select_move(GameState.new(9))
    over = GameState.new(5).apply_moves([Move.pass_turn(), Move.pass_turn()])
    with pytest.raises(ValueError, match="game is over"):
        agent.select_move(over)
