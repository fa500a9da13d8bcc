"""What the fast MCTS exposes for analysis and clocks: lines, scores, priors, stop, progress, deadlines."""

from __future__ import annotations

import math
import time

import pytest

from fuseki.go import Color, GameState, Move, Point
from fuseki.search.go.gomcts import PV_LENGTH, GoMCTS, MCTSConfig
from fuseki.util.errors import InputError

# Black's four stones on row 5 and White's five on row 4 share the liberty (5,4):
# whoever plays there captures (the same position as test_gomcts.py's CAPTURE).
CAPTURE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X X .
O O O O O X .
X X X X . X .
O O O O O O .
"""


def position(text: str, komi: float, to_move: Color = Color.BLACK) -> GameState:
    s = GameState.from_ascii(text, to_move=to_move)
    return GameState.from_array(s.stones(), to_move=to_move, rules=s.rules.replace(komi=komi))


def move_of(state: GameState, index: int) -> Move:
    n = state.size
    return Move.pass_turn() if index == n * n else Move.play(Point(index // n, index % n))


def test_every_line_is_legal_and_starts_with_its_move() -> None:
    state = GameState.new(7, komi=7.5)
    info = GoMCTS(MCTSConfig(seed=3)).search(state, playouts=3000)
    visited = [c for c in info.children if c.visits > 0]
    assert len(visited) >= 3
    assert max(len(c.pv) for c in visited) >= 3  # the best line goes several moves deep
    for child in visited:
        assert child.pv[0] == child.move and 1 <= len(child.pv) <= PV_LENGTH
        s = state
        for m in child.pv:
            if s.is_over():
                break
            s = s.play(move_of(s, m))  # raises on an illegal move


def test_prior_shares_form_a_distribution() -> None:
    info = GoMCTS(MCTSConfig(seed=1)).search(GameState.new(9, komi=7.5), playouts=200)
    shares = [c.prior_share for c in info.children]
    assert all(0.0 <= p <= 1.0 for p in shares)
    assert math.isclose(sum(shares), 1.0, rel_tol=1e-6)
    assert max(shares) > min(shares)  # the heuristics prefer some moves


@pytest.mark.parametrize("to_move", [Color.BLACK, Color.WHITE])
def test_score_is_for_the_player_to_move(to_move: Color) -> None:
    # Black owns most of the board: about +9 for Black on 5x5 after komi 0.5.
    board = """
    . X . O .
    X X X O O
    . X . X O
    X X X X O
    . X . X .
    """
    state = position(board, komi=0.5, to_move=to_move)
    info = GoMCTS(MCTSConfig(seed=2)).search(state, playouts=2000)
    sign = 1.0 if to_move is Color.BLACK else -1.0
    assert sign * info.score > 3.0
    assert sign * (info.value - 0.5) > 0.3
    best = info.children[0]
    assert best.score_stdev >= 0.0 and not math.isnan(best.score_mean)


def test_stop_ends_the_search_between_batches() -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) >= 5

    info = GoMCTS(MCTSConfig(seed=1)).search(GameState.new(9, komi=7.5), stop=stop)
    assert info.interrupted and len(calls) == 5
    assert info.playouts > 0 and info.children[0].visits > 0


def test_no_limit_at_all_is_an_error() -> None:
    with pytest.raises(InputError):
        GoMCTS(MCTSConfig(seed=1)).search(GameState.new(5, komi=0.5))
    with pytest.raises(InputError):
        GoMCTS(MCTSConfig(seed=1)).search(GameState.new(5, komi=0.5), seconds=1.0, max_seconds=0.5)


def test_progress_reports_at_the_interval() -> None:
    reports = []
    info = GoMCTS(MCTSConfig(seed=1)).search(
        GameState.new(9, komi=7.5), seconds=0.8, progress=reports.append, interval=0.1
    )
    # About 8 at 0.1 s apart; a starved process (a niced test beside two busy jobs on 2 cores) got 3.
    assert 2 <= len(reports) <= 9
    counts = [r.playouts for r in reports]
    assert counts == sorted(counts) and counts[-1] <= info.playouts
    assert all(not r.interrupted for r in reports)


def test_seconds_count_from_started() -> None:
    engine = GoMCTS(MCTSConfig(seed=1))
    engine.search(GameState.new(9, komi=7.5), playouts=50)  # kernels compiled
    begun = time.perf_counter() - 0.7  # the command arrived 0.7 s ago
    t0 = time.perf_counter()
    info = engine.search(GameState.new(9, komi=7.5).play(Move.play(Point(4, 4))), seconds=1.0, started=begun)
    spent = time.perf_counter() - t0
    assert 0.15 <= spent <= 0.6
    assert info.playouts > 0


def test_max_seconds_bounds_an_extension() -> None:
    engine = GoMCTS(MCTSConfig(seed=5))
    engine.search(GameState.new(9, komi=7.5), playouts=50)
    t0 = time.perf_counter()
    engine.search(GameState.new(9, komi=7.5), seconds=0.3, max_seconds=0.9)
    spent = time.perf_counter() - t0
    assert 0.25 <= spent <= 1.2


def test_decisive_stops_when_nothing_can_overtake() -> None:
    # Only the capture at (5,4) wins; the search settles on it long before 200,000 playouts.
    state = position(CAPTURE, komi=10.5)
    engine = GoMCTS(MCTSConfig(seed=1))
    info = engine.search(state, playouts=200_000, decisive=True)
    assert info.move == 5 * 7 + 4
    assert info.playouts < 200_000
    first, second = info.children[0].visits, info.children[1].visits
    assert first - second > 200_000 - info.playouts  # exactly the rule: no one could catch up
