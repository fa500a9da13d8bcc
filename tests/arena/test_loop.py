"""The generic game loop (fuseki.arena.loop) on tic-tac-toe and Hexapawn: outcomes, forfeits, caps, observers."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fuseki.arena.loop import REASONS, GamePlugin, Observer, Outcome, Verdict, play_game
from fuseki.arena.outcome import PlayerForfeit
from fuseki.arena.perfect import PerfectPlayer, losses_against_perfect
from fuseki.games import Hexapawn, TicTacToe
from fuseki.games.tictactoe import TicTacToeState


class RandomPlayer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def select_move(self, state: Any) -> Any:
        return self.rng.choice(list(state.legal_moves()))


class Scripted:
    def __init__(self, moves: list[Any]) -> None:
        self.moves = list(moves)

    def select_move(self, state: Any) -> Any:
        return self.moves.pop(0)


def check_consistent(outcome: Outcome, start: Any) -> None:
    """Replaying the moves gives the final state; winner, reason and returns agree."""
    state = start
    for move in outcome.moves:
        state = state.play(move)
    assert state.key == outcome.state.key
    assert outcome.reason in REASONS
    if outcome.reason in ("score", "draw"):
        assert state.is_over() and outcome.winner == state.winner()
        assert outcome.returns == state.returns()
    assert sum(outcome.returns) == 0


@pytest.mark.parametrize("game", [TicTacToe(), Hexapawn()], ids=["tictactoe", "hexapawn"])
def test_random_players_finish_every_game(game: Any) -> None:
    seen = set()
    for seed in range(40):
        outcome = play_game(game, [RandomPlayer(seed), RandomPlayer(seed + 1000)])
        check_consistent(outcome, game.initial_state())
        seen.add(outcome.winner)
    # Random play produces wins for both sides (and, in tic-tac-toe, draws).
    assert {0, 1} <= seen


def test_perfect_tictactoe_is_a_draw() -> None:
    outcome = play_game(TicTacToe(), [PerfectPlayer(), PerfectPlayer()])
    assert (outcome.winner, outcome.reason, outcome.returns) == (None, "draw", (0.0, 0.0))
    assert len(outcome.moves) == 9


def test_perfect_player_never_loses_tictactoe_to_random() -> None:
    for seed in range(5):
        as_first = play_game(TicTacToe(), [PerfectPlayer(), RandomPlayer(seed)])
        as_second = play_game(TicTacToe(), [RandomPlayer(seed), PerfectPlayer()])
        assert as_first.winner in (0, None) and as_second.winner in (1, None)


def test_the_eighteen_games_count_the_losses_of_an_agent() -> None:
    # Perfect play draws all 18; a random player loses most, and each loss names its opening and side.
    assert losses_against_perfect(PerfectPlayer) == []
    seeds = iter(range(100))
    lost = losses_against_perfect(lambda: RandomPlayer(next(seeds)))
    assert 9 <= len(lost) <= 18
    assert all(line.startswith("first move ") and ", agent " in line for line in lost)
    assert {line.split("agent ")[1][0] for line in lost} == {"X", "O"}


def test_perfect_hexapawn_is_a_win_for_the_second_player() -> None:
    outcome = play_game(Hexapawn(), [PerfectPlayer(), PerfectPlayer()])
    assert (outcome.winner, outcome.reason, outcome.returns) == (1, "score", (-1.0, 1.0))
    check_consistent(outcome, Hexapawn().initial_state())


def test_a_state_can_start_the_game() -> None:
    start = TicTacToeState.from_string("XX. OO. ...")  # X to move wins at 2
    outcome = play_game(start, [PerfectPlayer(), PerfectPlayer()])
    assert outcome.moves == (2,) and outcome.winner == 0


def test_illegal_move_forfeits() -> None:
    outcome = play_game(TicTacToe(), [Scripted([4, 0]), Scripted([4])])
    assert (outcome.winner, outcome.reason, outcome.returns) == (0, "forfeit", (1.0, -1.0))
    assert outcome.loser == 1 and "illegal move 4 at move 2" in outcome.detail
    assert outcome.moves == (4,)  # the state the loser was to move from
    assert outcome.state.cells[4] == 1


def test_a_player_may_forfeit() -> None:
    class Broken:
        def select_move(self, state: Any) -> Any:
            raise PlayerForfeit(1, "lost its network")

    outcome = play_game(TicTacToe(), [RandomPlayer(1), Broken()])
    assert (outcome.winner, outcome.reason, outcome.detail) == (0, "forfeit", "lost its network")


def test_move_cap_stops_without_a_winner_unless_judged() -> None:
    outcome = play_game(TicTacToe(), [RandomPlayer(1), RandomPlayer(2)], move_cap=3)
    assert (outcome.winner, outcome.reason, len(outcome.moves)) == (None, "move_cap", 3)
    assert outcome.notes == ("stopped at the move cap (3 moves); no winner",)

    class CountMarks(GamePlugin):
        """Judge a stopped game by who has more marks (a made-up rule, for the test)."""

        def judge(self, state: Any, *, capped: bool) -> Verdict | None:
            if not capped:
                return None
            x, o = state.cells.count(1), state.cells.count(2)
            return Verdict(0 if x > o else 1, "score", margin=abs(x - o), notes=("counted marks",))

    judged = play_game(TicTacToe(), [RandomPlayer(1), RandomPlayer(2)], move_cap=3, plugin=CountMarks())
    assert (judged.winner, judged.reason, judged.margin) == (0, "move_cap", 1)
    assert judged.notes == ("stopped at the move cap (3 moves) and scored as it stood", "counted marks")


def test_slow_move_loses_on_time() -> None:
    ticks = iter([0.0, 0.5, 1.0, 9.0])  # the first move takes 0.5 s, the second 8 s
    outcome = play_game(TicTacToe(), [RandomPlayer(1), RandomPlayer(2)], move_time=2.0, clock=lambda: next(ticks))
    assert (outcome.winner, outcome.reason, len(outcome.moves)) == (0, "time", 1)
    assert "limit 2 s" in outcome.detail


def test_observers_see_every_move_and_the_end() -> None:
    class Log(Observer):
        def __init__(self) -> None:
            self.events: list[Any] = []

        def on_start(self, state: Any) -> None:
            self.events.append("start")

        def on_move(self, before: Any, move: Any, after: Any) -> None:
            assert before.play(move).key == after.key
            self.events.append(move)

        def on_end(self, outcome: Outcome) -> None:
            self.events.append(outcome.reason)

    log = Log()
    outcome = play_game(Hexapawn(), [RandomPlayer(3), RandomPlayer(4)], observers=[log])
    assert log.events == ["start", *outcome.moves, outcome.reason]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="move cap"):
        play_game(TicTacToe(), [RandomPlayer(1), RandomPlayer(2)], move_cap=-1)
    with pytest.raises(ValueError, match="reason"):
        Verdict(0, "move_cap")
    with pytest.raises(ValueError, match="0 or 1"):
        PlayerForfeit(2, "x")


def test_doctests() -> None:
    import doctest

    import fuseki.arena.loop

    failures, tried = doctest.testmod(fuseki.arena.loop)
    assert failures == 0 and tried > 0
