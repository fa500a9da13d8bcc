"""Klein's chess experiments (Neural Networks for Chess, ch. 3): his numbers, reproduced exactly."""

from __future__ import annotations

import random

import chess
import pytest

from fuseki.chess.classics import (
    FIGURE_3_1_FEN,
    LEGALL_FEN,
    corrected_eval,
    klein_eval,
    klein_eval_reference,
    klein_mcts,
    klein_search,
    state_evaluation,
)
from fuseki.games.chess import ChessState
from fuseki.search.minimax import alphabeta, minimax
from fuseki.search.uct import uct_search


def random_positions(n_games: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    boards = []
    for _ in range(n_games):
        board = chess.Board()
        for _ in range(rng.randrange(0, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy(stack=False))
    return boards


# ---------------------------------------------------------------- evaluation


def test_fast_eval_equals_kleins_listing_on_many_random_positions() -> None:
    boards = random_positions(60, seed=1)
    assert len(boards) > 3000
    for board in boards:
        assert klein_eval(board) == klein_eval_reference(board), board.fen()


def test_eval_values() -> None:
    assert klein_eval(chess.Board()) == 0
    # A lone white knight on f3 (the only piece besides kings): 310 + table[file f=5][rank 3=2] = 310 + 10.
    assert klein_eval(chess.Board("4k3/8/8/8/8/5N2/8/4K3 w - - 0 1")) == 320
    # Klein indexes table[file][rank]: a pawn on g4 gets +5, on b4 0 (left-right asymmetric).
    assert klein_eval(chess.Board("4k3/8/8/8/6P1/8/8/4K3 w - - 0 1")) == 105
    assert klein_eval(chess.Board("4k3/8/8/8/1P6/8/8/4K3 w - - 0 1")) == 100
    # The corrected indexing (table[7 - rank][file] for White) is left-right symmetric.
    assert corrected_eval(chess.Board("4k3/8/8/8/6P1/8/8/4K3 w - - 0 1")) == corrected_eval(
        chess.Board("4k3/8/8/8/1P6/8/8/4K3 w - - 0 1")
    )


def test_both_evals_are_colour_symmetric_and_only_corrected_is_mirror_symmetric() -> None:
    asymmetric = 0
    for board in random_positions(20, seed=2):
        assert klein_eval(board.mirror()) == -klein_eval(board)
        assert corrected_eval(board.mirror()) == -corrected_eval(board)
        flipped = board.transform(chess.flip_horizontal)
        assert corrected_eval(flipped) == corrected_eval(board)
        asymmetric += klein_eval(flipped) != klein_eval(board)
    assert asymmetric > 0


def test_state_evaluation_is_from_the_players_view() -> None:
    evaluate = state_evaluation()
    state = ChessState.from_fen("4k3/8/8/8/8/5N2/8/4K3 w - - 0 1")
    assert evaluate(state, 0) == 320 and evaluate(state, 1) == -320


# ---------------------------------------------------------------- depth 3 on Figure 3.1


def test_klein_minimax_depth3_counts_46828_nodes_and_finds_h5f7() -> None:
    r = klein_search(chess.Board(FIGURE_3_1_FEN), 3, "minimax")
    assert (r.move.uci(), r.value, r.nodes) == ("h5f7", 1000000, 46828)


def test_klein_alphabeta_depth3_counts_8050_nodes_and_finds_h5f7() -> None:
    r = klein_search(chess.Board(FIGURE_3_1_FEN), 3, "alphabeta")
    assert (r.move.uci(), r.value, r.nodes) == ("h5f7", 1000000, 8050)


def test_generic_searches_reproduce_kleins_depth3_counts() -> None:
    state = ChessState.from_fen(FIGURE_3_1_FEN)
    evaluate = state_evaluation(klein_eval)
    m = minimax(state, 3, evaluate, win_value=1000000)
    assert m.move.uci() == "h5f7" and m.value == 1000000
    assert m.nodes_from_ply(2) == 46828  # Klein does not count the root's 43 children
    assert m.nodes == 46828 + len(state.legal_moves())
    a = alphabeta(state, 3, evaluate, window=(-10000, 10000), full_window_at_root=True, win_value=1000000)
    assert a.move.uci() == "h5f7" and a.nodes_from_ply(2) == 8050


# ---------------------------------------------------------------- Legall


def test_legall_depth3_alphabeta_agrees_with_minimax_with_fewer_nodes() -> None:
    # Fast stand-in for the depth-5 run: at depth 3 the horizon still hides Nxe5's point,
    # and both searches (Klein's and the generic one) prefer g2g4 (attacking the h5 bishop).
    board = chess.Board(LEGALL_FEN)
    m = klein_search(board, 3, "minimax")
    a = klein_search(board, 3, "alphabeta")
    assert (m.move.uci(), m.value, m.nodes) == ("g2g4", 225, 29430)
    assert (a.move.uci(), a.value, a.nodes) == ("g2g4", 225, 6781)
    g = alphabeta(
        ChessState.from_fen(LEGALL_FEN),
        3,
        state_evaluation(klein_eval),
        window=(-10000, 10000),
        full_window_at_root=True,
        win_value=1000000,
    )
    assert (g.move.uci(), g.value, g.nodes_from_ply(2)) == ("g2g4", 225, 6781)


@pytest.mark.slow
def test_legall_depth4_still_misses_nxe5() -> None:
    a = klein_search(chess.Board(LEGALL_FEN), 4, "alphabeta")
    assert (a.move.uci(), a.value, a.nodes) == ("g2g4", -15, 283805)


@pytest.mark.slow
def test_legall_depth5_finds_f3e5_score_280_in_2121700_nodes() -> None:
    a = klein_search(chess.Board(LEGALL_FEN), 5, "alphabeta")
    assert (a.move.uci(), a.value, a.nodes) == ("f3e5", 280, 2121700)


@pytest.mark.slow
def test_legall_depth5_generic_alphabeta_matches_klein() -> None:
    g = alphabeta(
        ChessState.from_fen(LEGALL_FEN),
        5,
        state_evaluation(klein_eval),
        window=(-10000, 10000),
        full_window_at_root=True,
        win_value=1000000,
    )
    assert (g.move.uci(), g.value, g.nodes_from_ply(2)) == ("f3e5", 280, 2121700)


# ---------------------------------------------------------------- MCTS


def test_generic_uct_finds_the_mate_in_one() -> None:
    r = uct_search(ChessState.from_fen(FIGURE_3_1_FEN), iterations=200, seed=42, max_rollout_length=20)
    assert r.move.uci() == "h5f7"
    assert r.values[r.move] == 1.0


def test_klein_mcts_with_short_playouts_finds_the_mate_in_one() -> None:
    stats = klein_mcts(chess.Board(FIGURE_3_1_FEN), 120, seed=42, max_playout=4)
    move, total, visits = stats[0]
    assert move == "h5f7" and total == visits  # every visit to the mate pays 1 (White wins)


def test_klein_mcts_is_reproducible() -> None:
    board = chess.Board(FIGURE_3_1_FEN)
    assert klein_mcts(board, 60, seed=7, max_playout=6) == klein_mcts(board, 60, seed=7, max_playout=6)
    assert board.fen() == FIGURE_3_1_FEN


@pytest.mark.slow
def test_klein_mcts_as_printed_finds_the_mate_in_one() -> None:
    stats = klein_mcts(chess.Board(FIGURE_3_1_FEN), 200, seed=42)
    assert stats[0][0] == "h5f7"
