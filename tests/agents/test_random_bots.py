"""The random bots and the agent registry."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from fuseki.agents import Agent, RandomBot, UniformRandomBot, available_agents, make_agent, register_agent
from fuseki.agents import base
from fuseki.go.coords import from_gtp, to_gtp
from fuseki.go.state import Color, GameState, Move

# Black to move; every empty point is one of Black's own eyes in the book's sense:
# two in corners (A5, E1) and two inside (D4, B2).
ONLY_EYES = """
    . X X X X
    X X X . X
    X X X X X
    X . X X X
    X X X X .
"""

# The same eyes, plus D1 and E1 next to a white stone: not eyes.
EYES_AND_TWO_POINTS = """
    . X X X X
    X X X . X
    X X X X X
    X X X X O
    X X X . .
"""


def play_game(black: object, white: object, state: GameState, cap: int) -> GameState:
    """Bot vs bot until the game ends or ``cap`` moves, checking every move's legality."""
    bots = {Color.BLACK: black, Color.WHITE: white}
    for _ in range(cap):
        if state.is_over():
            break
        move = bots[state.next_player].select_move(state)  # type: ignore[attr-defined]
        assert not move.is_resign
        assert state.why_illegal(move) is None, (move, state.to_ascii())
        index = state.move_index(move)
        assert index in set(state.legal_points().tolist())
        state = state.play(move)
    return state


# ---- legality and game length --------------------------------------------


@pytest.mark.parametrize("size", [2, 3, 5, 9, 13])
@pytest.mark.parametrize("rules", ["chinese", "japanese", "tromp-taylor"])
def test_book_bot_plays_only_legal_moves_and_finishes(size: int, rules: str) -> None:
    # On 2x2 and 3x3 whole-board captures make games long, and under simple ko
    # (japanese) they can cycle for ever: there only legality is checked.
    tiny = size <= 3
    cap = 200 if tiny else 6 * size * size
    for seed in range(4):
        state = play_game(RandomBot(seed=seed), RandomBot(seed=100 + seed), GameState.new(size, rules), cap)
        if tiny and rules == "japanese":
            continue
        assert state.is_over(), f"{size}x{size} game with seed {seed} did not end in {cap} moves"
        assert state.moves()[-2:] == [Move.pass_turn(), Move.pass_turn()]
        assert state.result() != "?"


@pytest.mark.parametrize("size", [2, 3, 5, 9])
@pytest.mark.parametrize("rules", ["chinese", "japanese", "tromp-taylor"])
def test_uniform_bot_plays_only_legal_moves(size: int, rules: str) -> None:
    # The uniform bot fills its own eyes, so its games rarely end: check legality
    # over a fixed number of moves, captures and recaptures included.
    for seed in range(3):
        play_game(UniformRandomBot(seed=seed), UniformRandomBot(seed=50 + seed), GameState.new(size, rules), 8 * size * size)


def test_mixed_bots_with_handicap_and_white_first() -> None:
    state = GameState.new(9, "chinese", handicap=4)
    assert state.next_player is Color.WHITE
    play_game(RandomBot(seed=1), UniformRandomBot(seed=2), state, 300)


def test_book_bot_games_end_within_twice_the_area_typically() -> None:
    size = 9
    lengths = []
    for seed in range(30):
        state = play_game(RandomBot(seed=seed), RandomBot(seed=1000 + seed), GameState.new(size), 4 * size * size)
        assert state.is_over()
        lengths.append(state.move_number)
    within = sum(n <= 2 * size * size for n in lengths)
    assert within >= 27, sorted(lengths)
    assert np.median(lengths) < 1.7 * size * size


def test_bots_refuse_a_finished_game() -> None:
    state = GameState.new(5).play(Move.pass_turn()).play(Move.pass_turn())
    for bot in (RandomBot(seed=0), UniformRandomBot(seed=0)):
        with pytest.raises(ValueError, match="game is over"):
            bot.select_move(state)


# ---- the eye rule ------------------------------------------------------


def test_only_own_eyes_left_book_bot_passes_uniform_bot_does_not() -> None:
    state = GameState.from_ascii(ONLY_EYES, to_move=Color.BLACK)
    eyes = {"A5", "D4", "B2", "E1"}
    assert all(state.is_eye(from_gtp(v, 5), Color.BLACK) for v in eyes)
    assert len(state.legal_points()) == len(eyes) + 1  # filling one eye is legal
    for seed in range(20):
        assert RandomBot(seed=seed).select_move(state) == Move.pass_turn()
        move = UniformRandomBot(seed=seed).select_move(state)
        assert move.is_play and to_gtp(move.point, 5) in eyes


def test_no_legal_point_both_bots_pass() -> None:
    # White to move: every empty point would be suicide.
    state = GameState.from_ascii(ONLY_EYES, to_move=Color.WHITE)
    assert state.legal_points().tolist() == [25]
    assert RandomBot(seed=0).select_move(state) == Move.pass_turn()
    assert UniformRandomBot(seed=0).select_move(state) == Move.pass_turn()


def test_book_bot_picks_uniformly_among_points_that_are_not_eyes() -> None:
    state = GameState.from_ascii(EYES_AND_TWO_POINTS, to_move=Color.BLACK)
    bot = RandomBot(seed=3)
    counts = collections.Counter(to_gtp(bot.select_move(state).point, 5) for _ in range(2000))
    assert set(counts) == {"D1", "E1"}
    assert 850 <= counts["D1"] <= 1150


def test_uniform_bot_is_uniform_on_the_empty_board() -> None:
    state = GameState.new(3)
    bot = UniformRandomBot(seed=11)
    counts = collections.Counter(bot.select_index(state) for _ in range(9000))
    assert set(counts) == set(range(9))  # never pass while a point is legal
    assert all(850 <= c <= 1150 for c in counts.values()), counts


def test_select_index_and_select_move_agree() -> None:
    state = GameState.new(9).play(Move.from_gtp("E5", 9))
    for cls in (RandomBot, UniformRandomBot):
        a, b = cls(seed=5), cls(seed=5)
        for _ in range(20):
            assert state.move_index(a.select_move(state)) == b.select_index(state)


# ---- reproducibility ---------------------------------------------------


@pytest.mark.parametrize("cls", [RandomBot, UniformRandomBot])
def test_same_seed_same_game_other_seed_other_game(cls: type) -> None:
    def game(seed: int) -> list[Move]:
        return play_game(cls(seed=seed), cls(seed=seed + 1), GameState.new(7), 150).moves()

    assert game(42) == game(42)
    assert game(42) != game(43)


# ---- registry ----------------------------------------------------------


@pytest.fixture
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test register agents without leaking them into other tests."""
    monkeypatch.setattr(base, "AGENTS", base.AGENTS.copy())


def test_builtin_agents_are_registered() -> None:
    agents = available_agents()
    assert {"random", "uniform"} <= set(agents)
    assert all(isinstance(text, str) and text for text in agents.values())
    assert isinstance(make_agent("random"), RandomBot)
    assert isinstance(make_agent("uniform", seed=1), UniformRandomBot)
    assert make_agent("random").name == "random"
    assert make_agent("uniform").name == "uniform"
    assert isinstance(make_agent("random"), Agent)


def test_unknown_agent_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as info:
        make_agent("alphago-zero-9000")
    message = str(info.value)
    assert "alphago-zero-9000" in message and "random" in message and "uniform" in message


def test_unknown_option_is_a_value_error_naming_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="accepts: seed"):
        make_agent("random", playouts=100)


def test_registry_is_open_for_new_agents(clean_registry: None) -> None:
    class Passer:
        name = "passer"

        def __init__(self, politeness: int = 1) -> None:
            self.politeness = politeness

        def select_move(self, state: GameState) -> Move:
            return Move.pass_turn()

    register_agent("passer", Passer, "always passes")
    assert available_agents()["passer"] == "always passes"
    bot = make_agent("passer", politeness=3)
    assert isinstance(bot, Agent) and bot.politeness == 3
    assert bot.select_move(GameState.new(5)) == Move.pass_turn()


def test_register_rejects_duplicates_and_bad_names(clean_registry: None) -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_agent("random", RandomBot, "again")
    register_agent("random", UniformRandomBot, "replaced", replace=True)
    assert isinstance(make_agent("random"), UniformRandomBot)
    for bad in ("", "two words", " random"):
        with pytest.raises(ValueError, match="agent name"):
            register_agent(bad, RandomBot, "x")
    with pytest.raises(TypeError, match="callable"):
        register_agent("thing", 42, "x")  # type: ignore[arg-type]
