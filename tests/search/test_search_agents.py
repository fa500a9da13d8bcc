"""The Go search agents: registered, legal, capture when they can, pass only when they must."""

from __future__ import annotations

import pytest

from fuseki.agents import available_agents, make_agent
from fuseki.agents.search_agents import AlphaBetaAgent, UCTPythonAgent, candidate_moves, capture_diff
from fuseki.games.go import GoGame
from fuseki.go.state import Color, GameState, Move

# Black to move; the white stone at C3 has one liberty, C2.
ATARI = """
    . . . . .
    . . X . .
    . X O X .
    . . . . .
    . . . . .
"""

# Black to move; every empty point is one of Black's own eyes.
ONLY_EYES = """
    . X X X X
    X X X . X
    X X X X X
    X . X X X
    X X X X .
"""


def test_agents_are_registered() -> None:
    agents = available_agents()
    assert "alphabeta" in agents and "uct-python" in agents
    assert isinstance(make_agent("alphabeta", depth=1, seed=0), AlphaBetaAgent)
    assert isinstance(make_agent("uct-python", playouts=10, seed=0), UCTPythonAgent)
    with pytest.raises(ValueError, match="accepts"):
        make_agent("alphabeta", playouts=5)


def test_capture_diff_is_the_book_evaluation() -> None:
    s = GoGame.wrap(GameState.from_ascii(ATARI))
    assert capture_diff(s, 0) == 3 - 1
    assert capture_diff(s, 1) == -(3 - 1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_captures_when_it_can(seed: int, depth: int) -> None:
    state = GameState.from_ascii(ATARI)
    bot = make_agent("alphabeta", depth=depth, seed=seed)
    assert bot.select_move(state) == Move.play((3, 2))


@pytest.mark.parametrize("name, options", [("alphabeta", {"depth": 2}), ("uct-python", {"playouts": 30})])
def test_agents_play_legal_moves_in_a_game(name: str, options: dict) -> None:
    state = GameState.new(5, rules="chinese")
    bots = {Color.BLACK: make_agent(name, seed=1, **options), Color.WHITE: make_agent("random", seed=2)}
    for _ in range(20):
        if state.is_over():
            break
        move = bots[state.next_player].select_move(state)
        assert state.is_legal(move), (name, move)
        assert not move.is_resign
        state = state.play(move)
    assert state.move_number > 5


@pytest.mark.parametrize("name", ["alphabeta", "uct-python"])
def test_pass_only_when_nothing_else(name: str) -> None:
    bot = make_agent(name, seed=0)
    eyes = GameState.from_ascii(ONLY_EYES)
    assert candidate_moves(eyes) == []
    assert bot.select_move(eyes) == Move.pass_turn()
    # On an open board there is always something better to do than pass.
    assert not bot.select_move(GameState.new(5)).is_pass


@pytest.mark.parametrize("name", ["alphabeta", "uct-python"])
def test_finished_game_is_an_error(name: str) -> None:
    done = GameState.new(5).play(Move.pass_turn()).play(Move.pass_turn())
    with pytest.raises(ValueError, match="over"):
        make_agent(name, seed=0).select_move(done)


def test_alphabeta_analyze_reports_the_search() -> None:
    info = AlphaBetaAgent(depth=2, seed=0).analyze(GameState.from_ascii(ATARI))
    assert info["move"] == "C2"
    assert info["pv"][0] == "C2" and info["nodes"] > 0
    assert info["value"] == 4 - 1  # Black 4 stones, White's reply: 1 stone


def test_uct_python_analyze_and_capture() -> None:
    bot = UCTPythonAgent(playouts=200, seed=0)
    info = bot.analyze(GameState.from_ascii(ATARI))
    assert info["playouts"] == 200
    assert info["moves"][0]["visits"] >= info["moves"][-1]["visits"]


def test_bad_depth() -> None:
    with pytest.raises(ValueError):
        AlphaBetaAgent(depth=0)
