"""Minimax, negamax and alpha-beta: known game values, agreement, node counts."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseki.games import Hexapawn, HexapawnState, TicTacToe, TicTacToeState
from fuseki.search import (
    EXACT,
    SearchResult,
    TranspositionTable,
    alphabeta,
    by_key,
    minimax,
    negamax,
)

TTT = TicTacToe().initial_state()
HEX = Hexapawn().initial_state()

# Nodes per ply of the full tic-tac-toe tree: 549,945 states below the root
# (the well-known 255,168 finished games are the leaves at all depths).
TTT_NODES_BY_PLY = [0, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def exact_searches(state):
    """Every exact (to the end of the game) search, by name."""
    return {
        "minimax": minimax(state),
        "negamax": negamax(state),
        "alphabeta": alphabeta(state),
        "alphabeta+tt": alphabeta(state, tt=True),
        "alphabeta+order": alphabeta(state, order=by_key(lambda s, m: hash(m) % 5)),
        "alphabeta+tt+order": alphabeta(state, tt=True, order=lambda s, ms: list(reversed(ms))),
    }


def pseudo_eval(state, player: int) -> float:
    """A deterministic, zero-sum, arbitrary evaluation: exercises cutoffs on every kind of value."""
    v = zlib.crc32(repr(state.key).encode()) % 201 - 100
    return float(v if player == 0 else -v)


def random_position(game_state, rng: random.Random, max_moves: int, min_moves: int = 0):
    s = game_state
    for _ in range(rng.randint(min_moves, max_moves)):
        if s.is_over():
            break
        s = s.play(rng.choice(s.legal_moves()))
    return s


# ---- known game values ------------------------------------------------------


@pytest.fixture(scope="module")
def ttt_results() -> dict[str, SearchResult]:
    return exact_searches(TTT)


@pytest.mark.parametrize(
    "name", ["minimax", "negamax", "alphabeta", "alphabeta+tt", "alphabeta+order", "alphabeta+tt+order"]
)
def test_tictactoe_is_a_draw(ttt_results: dict[str, SearchResult], name: str) -> None:
    r = ttt_results[name]
    assert r.value == 0.0
    assert r.move in range(9)
    # The principal variation is a legal line that ends in a draw.
    s = TTT
    for m in r.pv:
        s = s.play(m)
    if s.is_over():
        assert s.returns() == (0.0, 0.0)


def test_tictactoe_full_tree_node_counts(ttt_results: dict[str, SearchResult]) -> None:
    for name in ("minimax", "negamax"):
        r = ttt_results[name]
        assert r.nodes == 549_945
        assert r.nodes_by_ply == TTT_NODES_BY_PLY
        assert r.nodes_from_ply(1) == r.nodes
        assert r.nodes_from_ply(2) == 549_945 - 9


def test_pruning_visits_fewer_nodes_on_tictactoe(ttt_results: dict[str, SearchResult]) -> None:
    plain, ab, abt = ttt_results["minimax"], ttt_results["alphabeta"], ttt_results["alphabeta+tt"]
    assert ab.nodes < plain.nodes / 10
    assert abt.nodes < ab.nodes
    assert abt.tt_hits > 0
    assert sum(ab.nodes_by_ply) == ab.nodes and sum(abt.nodes_by_ply) == abt.nodes


def test_ties_keep_the_first_best_move(ttt_results: dict[str, SearchResult]) -> None:
    # Every first move draws, so the first legal move must be chosen...
    assert ttt_results["minimax"].move == 0
    assert ttt_results["negamax"].move == 0
    assert ttt_results["alphabeta"].move == 0
    # ...and the first in the given order when there is one.
    assert alphabeta(TTT, order=lambda s, ms: list(reversed(ms))).move == 8


@pytest.mark.parametrize("name", ["minimax", "negamax", "alphabeta", "alphabeta+tt", "alphabeta+order", "alphabeta+tt+order"])
def test_hexapawn_is_a_second_player_win(name: str) -> None:
    r = exact_searches(HEX)[name]
    assert r.value == -1.0
    s = HEX
    for m in r.pv:
        s = s.play(m)
    assert s.is_over() and s.winner() == 1


def test_hexapawn_every_white_first_move_loses() -> None:
    for m in HEX.legal_moves():
        assert minimax(HEX.play(m)).value == 1.0  # Black to move there, and wins


def test_depth_limited_matches_exhaustive_when_deep_enough() -> None:
    s = TicTacToeState.from_string("XO. .X. ..O")
    exact = minimax(s)
    deep = negamax(s, 9, pseudo_eval, win_value=1.0)
    assert deep.value == exact.value
    assert alphabeta(s, 9, pseudo_eval, win_value=1.0).value == exact.value


# ---- agreement on random positions --------------------------------------------


@pytest.mark.parametrize("game, start, min_moves", [("tictactoe", TTT, 2), ("hexapawn", HEX, 0)])
def test_alphabeta_agrees_with_minimax_on_random_positions(game: str, start, min_moves: int) -> None:
    rng = random.Random(20240611)
    saved = 0
    for _ in range(60):
        s = random_position(start, rng, min_moves + 4, min_moves)
        mm = minimax(s)
        for r in (negamax(s), alphabeta(s), alphabeta(s, tt=True)):
            assert r.value == mm.value, (game, s)
            assert r.nodes <= mm.nodes, (game, s)
        saved += mm.nodes - alphabeta(s).nodes
    assert saved > 0


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_depth_limited_searches_agree(depth: int) -> None:
    """Random positions, an arbitrary evaluation: every search gives minimax's value and its move.

    The move too, because ties keep the first best move in every search.
    (Tic-tac-toe has no transpositions between different depths, so the table
    cannot change a depth-limited value here.)
    """
    rng = random.Random(depth)
    fewer = 0
    for _ in range(40):
        s = random_position(TTT, rng, 4)
        mm = minimax(s, depth, pseudo_eval)
        nm = negamax(s, depth, pseudo_eval)
        ab = alphabeta(s, depth, pseudo_eval)
        abt = alphabeta(s, depth, pseudo_eval, tt=True)
        assert mm.value == nm.value == ab.value == abt.value
        assert mm.move == nm.move == ab.move
        assert nm.nodes == mm.nodes and nm.nodes_by_ply == mm.nodes_by_ply
        assert ab.nodes <= mm.nodes
        fewer += ab.nodes < mm.nodes
    if depth >= 2:
        assert fewer > 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=3, max_size=7), st.integers(1, 5))
def test_property_alphabeta_equals_minimax(prefix: list[int], depth: int) -> None:
    s = TTT
    for i in prefix:  # each number picks one of the legal moves
        if s.is_over():
            break
        moves = s.legal_moves()
        s = s.play(moves[i % len(moves)])
    assert alphabeta(s, depth, pseudo_eval, tt=True).value == minimax(s, depth, pseudo_eval).value
    assert alphabeta(s, tt=True).value == minimax(s).value


# ---- options and conventions ----------------------------------------------------


def test_terminal_and_depth_zero_roots() -> None:
    won = TicTacToeState.from_string("XXX OO. ...")  # O to move, X has won
    for r in (minimax(won), negamax(won), alphabeta(won)):
        assert r.move is None and r.pv == [] and r.nodes == 0
        assert r.value == -1.0
    assert alphabeta(won, 3, pseudo_eval).value == -1e9  # depth-limited: wins are large
    r = alphabeta(TTT, 0, pseudo_eval)
    assert r.move is None and r.value == pseudo_eval(TTT, 0)


def test_values_are_from_the_root_player_point_of_view() -> None:
    x_wins = TicTacToeState.from_string("XX. OO. ...")  # X to move, wins at 2
    o_wins = TicTacToeState.from_string("XX. OO. X..")  # O to move, wins at 5
    for search in (minimax, negamax, alphabeta):
        assert search(x_wins).value == 1.0 and search(x_wins).move == 2
        assert search(o_wins).value == 1.0 and search(o_wins).move == 5


def test_prefer_quick_wins_is_off_by_default() -> None:
    s = TicTacToeState.from_string(".....XOOX")  # X wins at once at 2, or later via 0
    assert minimax(s).move == 0 and minimax(s).value == 1.0  # first winning move in order
    for search in (minimax, negamax, alphabeta):
        quick = search(s, prefer_quick_wins=True)
        assert quick.move == 2
        assert 0.99 < quick.value < 1.0
    assert alphabeta(s, tt=True, prefer_quick_wins=True).move == 2


def test_full_window_at_root_changes_only_the_node_count() -> None:
    narrow = alphabeta(TTT)
    full = alphabeta(TTT, full_window_at_root=True)
    assert (full.value, full.move) == (narrow.value, narrow.move)
    assert full.nodes > narrow.nodes
    # Its root children are counted separately, as Klein leaves them out.
    assert full.nodes_from_ply(2) == full.nodes - 9


def test_window_and_root_moves() -> None:
    s = TicTacToeState.from_string("XX. OO. ...")
    r = alphabeta(s, root_moves=[8, 7, 2])
    assert r.move == 2 and r.value == 1.0
    assert r.nodes_by_ply[1] == 3  # only the given root moves
    only_bad = alphabeta(s, root_moves=[8])
    assert only_bad.move == 8 and only_bad.value == -1.0
    with pytest.raises(ValueError):
        alphabeta(s, root_moves=[])
    # A window that the value lies inside gives the exact value.
    assert alphabeta(TTT, window=(-0.5, 0.5)).value == 0.0


def test_transposition_table_is_reusable_across_depths() -> None:
    table = TranspositionTable()
    for depth in range(1, 6):
        r = alphabeta(TTT, depth, pseudo_eval, tt=table)
        assert r.value == minimax(TTT, depth, pseudo_eval).value
    entry = table.get(TTT.key)
    assert entry is not None and entry.depth == 5 and entry.flag == EXACT
    assert len(table) > 100
    table.clear()
    assert len(table) == 0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="evaluate"):
        alphabeta(TTT, 3)
    with pytest.raises(ValueError, match="depth"):
        minimax(TTT, -1, pseudo_eval)
    with pytest.raises(ValueError, match="depth"):
        negamax(TTT, 2.5, pseudo_eval)  # type: ignore[arg-type]


def test_inconsistent_adapter_is_reported() -> None:
    stuck = HexapawnState.from_string("p.p / P.P / ...", current_player=1)
    assert stuck.is_over()  # sanity: the real game handles it

    class Broken:
        current_player = 0
        key = "broken"

        def is_over(self) -> bool:
            return False

        def legal_moves(self) -> list:
            return []

    with pytest.raises(ValueError, match="no legal moves"):
        alphabeta(Broken())
