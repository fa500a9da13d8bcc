"""The MCTS agents (mcts, mcts-book): full games, resignation, GTP and the command line."""

from __future__ import annotations

import io
import re

import pytest

from fuseki.agents import make_agent
from fuseki.agents.mcts_agent import MCTSAgent
from fuseki.go import Color, GameState, Move, Point

# White owns almost all of a 9x9 board (one living string with many eyes); Black has a
# small living corner. Black's only moves that fill no own eye are in the 3x3 corner.
HOPELESS = """
. X . X O . O . O
X X X X O O O O O
O O O O O . O . O
O . O . O O O O O
O O O O O O O O O
O . O . O . O O O
O O O O O O . . .
O . O . O O . . .
O O O O O O . . .
"""


def hopeless(moves_played: int = 0) -> GameState:
    """The HOPELESS board (komi 7.5, Black to move), optionally after two moves in the open corner."""
    s = GameState.from_ascii(HOPELESS, rules="chinese")
    if moves_played:
        s = s.play(Move.play(Point(7, 7))).play(Move.play(Point(6, 7)))
    assert s.next_player is Color.BLACK
    return s


@pytest.mark.parametrize("name,size", [("mcts", 5), ("mcts", 7), ("mcts-book", 5)])
def test_full_game_against_random_ends_with_legal_moves(name: str, size: int) -> None:
    bots = {
        Color.BLACK: make_agent(name, playouts=200, seed=1),
        Color.WHITE: make_agent("random", seed=2),
    }
    state = GameState.new(size, komi=0.5)
    cap = 4 * size * size
    for _ in range(cap):
        if state.is_over():
            break
        move = bots[state.next_player].select_move(state)
        if move.is_play:
            assert state.is_legal(move)
        state = state.play(move)
    assert state.is_over(), f"the game did not end in {cap} moves"
    assert state.result() != "?"


def _play_vs_random(name: str, size: int, seed: int, **options: object) -> GameState:
    bots = {
        Color.BLACK: make_agent(name, playouts=200, seed=seed, **options),
        Color.WHITE: make_agent("random", seed=seed + 100),
    }
    state = GameState.new(size, komi=0.5)
    while not state.is_over() and state.move_number < 4 * size * size:
        state = state.play(bots[state.next_player].select_move(state))
    return state


def test_mcts_without_settled_pass_beats_random() -> None:
    wins = sum(_play_vs_random("mcts", 5, seed, pass_when_settled=False).winner() is Color.BLACK for seed in range(5))
    assert wins >= 4


def test_mcts_beats_random_on_5x5() -> None:
    wins = sum(_play_vs_random("mcts", 5, seed).winner() is Color.BLACK for seed in range(5))
    assert wins >= 4


def test_mcts_as_white_also_ends_the_game() -> None:
    bots = {Color.BLACK: make_agent("random", seed=3), Color.WHITE: make_agent("mcts", playouts=200, seed=4)}
    state = GameState.new(7, komi=0.5)
    for _ in range(4 * 49):
        if state.is_over():
            break
        state = state.play(bots[state.next_player].select_move(state))
    assert state.is_over()
    assert state.result() != "?"


def test_agent_records_the_search() -> None:
    bot = make_agent("mcts", playouts=123, seed=1)
    assert isinstance(bot, MCTSAgent)
    bot.select_move(GameState.new(5, komi=0.5))
    assert bot.last_info is not None and bot.last_info.playouts == 123
    report = bot.analyze(GameState.new(5, komi=0.5))
    assert report["playouts"] == 123
    best = [w for move, _, w in report["top"] if move == bot.last_info.move]
    assert best and report["winrate"] == best[0]  # the chosen move's win rate, as the search reported it
    assert report["top"][0][1] == max(visits for _, visits, _ in report["top"])


def test_resigns_when_hopeless_after_the_minimum_moves() -> None:
    late = hopeless(2)
    bot = MCTSAgent(playouts=2000, seed=1, resign_below=0.3, min_resign_moves=2)
    move = bot.select_move(late)
    assert bot.last_info is not None and bot.last_info.winrate < 0.3
    assert move.is_resign
    after = late.play(move)
    assert after.is_over() and after.winner() is Color.WHITE


def test_does_not_resign_before_the_minimum_moves() -> None:
    early = hopeless(0)
    for bot in (
        MCTSAgent(playouts=2000, seed=1, resign_below=0.3),  # default minimum: 81 // 4 moves
        MCTSAgent(playouts=2000, seed=1, resign_below=0.3, min_resign_moves=2),
    ):
        move = bot.select_move(early)
        assert bot.last_info is not None and bot.last_info.winrate < 0.3
        assert not move.is_resign
    late = hopeless(2)
    default_min = MCTSAgent(playouts=2000, seed=1, resign_below=0.3)
    assert not default_min.select_move(late).is_resign  # move 2 < 20
    # An explicit minimum of 0 allows it at once.
    eager = MCTSAgent(playouts=2000, seed=1, resign_below=0.3, min_resign_moves=0)
    assert eager.select_move(early).is_resign


def test_never_resigns_with_resign_below_none() -> None:
    bot = MCTSAgent(playouts=2000, seed=1, resign_below=None)
    for s in (hopeless(0), hopeless(2)):
        move = bot.select_move(s)
        assert not move.is_resign
        assert bot.last_info is not None and bot.last_info.winrate < 0.3
    book = make_agent("mcts-book", playouts=2000, seed=1, resign_below=None)
    assert not book.select_move(hopeless(2)).is_resign
    eager = MCTSAgent(playouts=2000, seed=1, resign_below=None, min_resign_moves=0)
    assert not eager.select_move(hopeless(2)).is_resign


def test_agent_option_errors() -> None:
    with pytest.raises(ValueError):
        MCTSAgent(playouts=0)
    with pytest.raises(ValueError):
        MCTSAgent(seconds=-1.0)
    with pytest.raises(ValueError):
        MCTSAgent(playouts=10, resign_below=1.5)
    with pytest.raises(ValueError):
        make_agent("mcts", playouts=10, no_such_option=1)
    bot = MCTSAgent(playouts=10, seed=1)
    over = GameState.new(5).play(Move.pass_turn()).play(Move.pass_turn())
    with pytest.raises(ValueError):
        bot.select_move(over)


def test_gtp_engine_genmove_with_mcts() -> None:
    from fuseki.gtp.engine import GtpEngine

    engine = GtpEngine(
        make_agent("mcts", playouts=200, seed=1), rules="chinese", stdout=io.StringIO(), log=io.StringIO()
    )
    assert engine.handle("boardsize 7").startswith("=")
    assert engine.handle("clear_board").startswith("=")
    assert engine.handle("komi 0.5").startswith("=")
    reply = engine.handle("genmove b")
    assert reply is not None
    assert re.fullmatch(r"= ?[A-Ga-g][1-7]", reply.strip()), reply
    reply = engine.handle("genmove w")
    assert reply is not None and re.fullmatch(r"= ?[A-Ga-g][1-7]", reply.strip()), reply


def test_cli_gtp_rejects_seconds_for_random(capsys: pytest.CaptureFixture[str]) -> None:
    from fuseki.cli import main

    status = main(["gtp", "--bot", "random", "--seconds", "1"])
    assert status == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "seconds" in lines[0]
    assert "Traceback" not in err
