"""Klein's classic chess searches (*Neural Networks for Chess*, ch. 3), reproduced.

Klein builds a toy engine with python-chess: material (P 100, N 310, B 320,
R 500, Q 900) plus one piece-square table, searched by minimax, alpha-beta and
MCTS. This module has

- his evaluation, faithfully (:func:`klein_eval_reference` is his listing;
  :func:`klein_eval` the same numbers from bitboards, several times faster),
  and a :func:`corrected_eval` that indexes the table the way it was meant;
- his searches, faithfully, on a :class:`chess.Board` with push/pop
  (:func:`klein_search`, :func:`klein_mcts`), so his published numbers can be
  checked exactly;
- the experiments of the chapter as functions that return numbers
  (:func:`experiment_depth3`, :func:`experiment_legall`, :func:`experiment_mcts`),
  each also run through the generic searches of :mod:`fuseki.search` on
  :class:`fuseki.games.chess.ChessState`, so the two can be compared.

Klein's quirks, kept in the faithful versions and listed here once:

1. **Table indexing.** He adds ``pieceSquareTable[i][j]`` for the piece on
   ``chess.square(i, j)``, i.e. ``table[file][rank]``. The table is the
   knight table of the Simplified Evaluation Function, written rank 8 first,
   so it was meant as ``table[7 - rank][file]`` for White and mirrored for
   Black. Because every row of the table is a palindrome, his indexing is
   still colour-symmetric, but the bonus runs along the wrong axis: it
   prefers the g-file to the b-file (e.g. a pawn on g4 gets +5, on b4 0).
2. **One table for every piece** (kings get nothing at all), by design.
3. **Asymmetric mate scores**: Black mated is +1,000,000, White mated only
   -100,000 (a typo-like slip that does not matter where White mates).
4. **Clamped node values**: a max node starts at -9999 and a min node at
   +9999, so a node whose every move loses to mate is worth ±9999, not the
   mate score; a node with *no* moves that is not mate (stalemate) is worth
   -9999 / +9999 in alpha-beta, which unlike minimax does not test for
   stalemate or insufficient material.
5. **Counting**: ``NODECOUNT`` counts the ``push`` calls inside
   ``minimax``/``alphaBeta``, not the root moves pushed by ``getNextMove``,
   i.e. positions 2 or more plies below the root.
6. **Alpha-beta root**: ``getNextMove`` searches every root move with the
   same window (-10000, 10000): no narrowing between root moves. The
   cutoff is ``alpha >= beta`` (fail-soft).
7. **MCTS payout**: the playout result is always scored for White
   (win 1, loss **0.5**, draw **0**: the loss/draw values are swapped) and
   added unchanged at every node, so at Black's nodes UCT picks the moves
   best *for White*. Untried moves are expanded from the end of the move
   list, and playouts end on ``outcome(claim_draw=True)``.

>>> board = chess.Board(FIGURE_3_1_FEN)
>>> klein_eval(board) == klein_eval_reference(board)
True
>>> r = klein_search(board, 3, "alphabeta")
>>> r.move.uci(), r.value, r.nodes
('h5f7', 1000000, 8050)
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from typing import Any, Callable, Literal

import chess

from fuseki.games.chess import ChessState
from fuseki.search.minimax import alphabeta, minimax
from fuseki.search.uct import uct_search

__all__ = [
    "PIECE_VALUES",
    "PIECE_SQUARE_TABLE",
    "FIGURE_3_1_FEN",
    "LEGALL_FEN",
    "KLEIN",
    "klein_eval",
    "klein_eval_reference",
    "corrected_eval",
    "state_evaluation",
    "KleinResult",
    "klein_search",
    "klein_mcts",
    "experiment_depth3",
    "experiment_legall",
    "experiment_mcts",
]

#: Klein's material values (centipawns); the king is not counted.
PIECE_VALUES: dict[int, int] = {chess.PAWN: 100, chess.KNIGHT: 310, chess.BISHOP: 320, chess.ROOK: 500, chess.QUEEN: 900}

#: Klein's one piece-square table, exactly as printed (listing 3.4/3.7).
PIECE_SQUARE_TABLE: tuple[tuple[int, ...], ...] = (
    (-50, -40, -30, -30, -30, -30, -40, -50),
    (-40, -20, 0, 0, 0, 0, -20, -40),
    (-30, 0, 10, 15, 15, 10, 0, -30),
    (-30, 5, 15, 20, 20, 15, 5, -30),
    (-30, 0, 15, 20, 20, 15, 0, -30),
    (-30, 5, 10, 15, 15, 10, 5, -30),
    (-40, -20, 0, 5, 5, 0, -20, -40),
    (-50, -40, -30, -30, -30, -30, -40, -50),
)

#: Figure 3.1: White mates with Qxf7 (h5f7).
FIGURE_3_1_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
#: Legall's mate pattern with the bishop on b3; 1.Nxe5 (f3e5) wins a pawn.
LEGALL_FEN = "r2qkbnr/ppp2ppp/2np4/4p2b/4P3/1BN2N1P/PPPP1PP1/R1BQ1RK1 w kq - 0 1"

#: Klein's published figures, for printing next to ours.
KLEIN: dict[str, dict[str, Any]] = {
    "depth3": {
        "fen": FIGURE_3_1_FEN,
        "depth": 3,
        "minimax": {"move": "h5f7", "value": 1000000, "nodes": 46828, "seconds": 6.8},
        # The prose says 9050; the listing's output says 8050 (the translator's note: a typo).
        "alphabeta": {"move": "h5f7", "value": 1000000, "nodes": 8050, "seconds": 8.1},
    },
    "legall": {
        "fen": LEGALL_FEN,
        "depth": 5,
        "alphabeta": {"move": "f3e5", "value": 280, "nodes": 2121700, "seconds": 2425.0},
        "mcts": {"iterations": 2000, "finds_f3e5": False},
    },
    "mcts": {"fen": FIGURE_3_1_FEN, "iterations": 200, "seed": 42},
}

#: Klein's mate scores (quirk 3) and node-value clamps (quirk 4).
WHITE_MATES = 1000000
BLACK_MATES = -100000
MINIMAX_ROOT_INIT = 99999
NODE_INIT = 9999
ALPHABETA_WINDOW = 10000

# Per-square bonus as Klein indexes it: table[file][rank] for the piece on chess.square(file, rank).
_KLEIN_PST: tuple[int, ...] = tuple(PIECE_SQUARE_TABLE[chess.square_file(sq)][chess.square_rank(sq)] for sq in chess.SQUARES)
# As intended: the table is printed rank 8 first from White's side; Black's is its mirror.
_WHITE_PST: tuple[int, ...] = tuple(PIECE_SQUARE_TABLE[7 - chess.square_rank(sq)][chess.square_file(sq)] for sq in chess.SQUARES)
_BLACK_PST: tuple[int, ...] = tuple(PIECE_SQUARE_TABLE[chess.square_rank(sq)][chess.square_file(sq)] for sq in chess.SQUARES)


def klein_eval_reference(board: chess.Board) -> int:
    """Klein's ``eval`` as printed: 64 ``piece_at`` calls, White minus Black.

    Slow; kept as the definition :func:`klein_eval` is tested against.
    """
    values = {"P": 100, "N": 310, "B": 320, "R": 500, "Q": 900}
    score_white = 0
    score_black = 0
    for i in range(8):
        for j in range(8):
            piece = str(board.piece_at(chess.square(i, j)))
            if piece in values:
                score_white += values[piece] + PIECE_SQUARE_TABLE[i][j]
            elif piece.upper() in values and piece != "None":
                score_black += values[piece.upper()] + PIECE_SQUARE_TABLE[i][j]
    return score_white - score_black


def _table_eval(board: chess.Board, white_pst: tuple[int, ...], black_pst: tuple[int, ...]) -> int:
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    score = 0
    for mask, value in (
        (board.pawns, 100),
        (board.knights, 310),
        (board.bishops, 320),
        (board.rooks, 500),
        (board.queens, 900),
    ):
        if mask:
            score += value * ((mask & white).bit_count() - (mask & black).bit_count())
    not_kings = ~board.kings
    for sq in chess.scan_forward(white & not_kings):
        score += white_pst[sq]
    for sq in chess.scan_forward(black & not_kings):
        score -= black_pst[sq]
    return score


def klein_eval(board: chess.Board) -> int:
    """Klein's evaluation (White's view), equal to :func:`klein_eval_reference` on every position.

    >>> klein_eval(chess.Board())
    0
    """
    return _table_eval(board, _KLEIN_PST, _KLEIN_PST)


def corrected_eval(board: chess.Board) -> int:
    """Klein's material and table, with the table indexed as intended (White's view).

    ``table[7 - rank][file]`` for White, ``table[rank][file]`` for Black
    (quirk 1); still one table for every piece, as in the book.

    >>> corrected_eval(chess.Board())
    0
    """
    return _table_eval(board, _WHITE_PST, _BLACK_PST)


def state_evaluation(board_eval: Callable[[chess.Board], int] = klein_eval) -> Callable[[Any, int], float]:
    """Turn a White's-view board evaluation into the protocol's ``evaluate(state, player)``."""

    def evaluate(state: Any, player: int) -> float:
        v = board_eval(state.board)
        return v if player == 0 else -v

    return evaluate


# ---------------------------------------------------------------- Klein's minimax and alpha-beta


@dataclasses.dataclass
class KleinResult:
    """``getNextMove``'s answer plus his ``NODECOUNT`` and our wall time."""

    move: chess.Move | None
    value: int
    nodes: int
    seconds: float


def klein_search(
    board: chess.Board,
    depth: int,
    algorithm: Literal["minimax", "alphabeta"] = "minimax",
    evaluate: Callable[[chess.Board], int] = klein_eval,
) -> KleinResult:
    """Klein's ``getNextMove(depth, board, maximize)`` with his ``minimax`` or ``alphaBeta``.

    Faithful to the listings, quirks 3–6 included; ``maximize`` is White to
    move. The board is restored before returning.
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    count = [0]

    def minimax(d: int, maximize: bool) -> int:
        if board.is_checkmate():
            return BLACK_MATES if board.turn == chess.WHITE else WHITE_MATES
        if board.is_stalemate() or board.is_insufficient_material():
            return 0
        if d == 0:
            return evaluate(board)
        if maximize:
            best = -NODE_INIT
            for move in board.legal_moves:
                board.push(move)
                count[0] += 1
                best = max(best, minimax(d - 1, False))
                board.pop()
        else:
            best = NODE_INIT
            for move in board.legal_moves:
                board.push(move)
                count[0] += 1
                best = min(best, minimax(d - 1, True))
                board.pop()
        return best

    def alphabeta(d: int, alpha: int, beta: int, maximize: bool) -> int:
        if board.is_checkmate():
            return BLACK_MATES if board.turn == chess.WHITE else WHITE_MATES
        if d == 0:
            return evaluate(board)
        if maximize:
            best = -NODE_INIT
            for move in board.legal_moves:
                board.push(move)
                count[0] += 1
                best = max(best, alphabeta(d - 1, alpha, beta, False))
                board.pop()
                alpha = max(alpha, best)
                if alpha >= beta:
                    return best
        else:
            best = NODE_INIT
            for move in board.legal_moves:
                board.push(move)
                count[0] += 1
                best = min(best, alphabeta(d - 1, alpha, beta, True))
                board.pop()
                beta = min(beta, best)
                if beta <= alpha:
                    return best
        return best

    if algorithm == "minimax":
        init = MINIMAX_ROOT_INIT

        def child(maximize: bool) -> int:
            return minimax(depth - 1, maximize)

    elif algorithm == "alphabeta":
        init = NODE_INIT

        def child(maximize: bool) -> int:
            return alphabeta(depth - 1, -ALPHABETA_WINDOW, ALPHABETA_WINDOW, maximize)

    else:
        raise ValueError(f"algorithm must be 'minimax' or 'alphabeta', got {algorithm!r}")

    start = time.perf_counter()
    maximize = board.turn == chess.WHITE
    best_move = None
    best_value = -init if maximize else init
    for move in list(board.legal_moves):
        board.push(move)
        value = child(not maximize)
        board.pop()
        if (value > best_value) if maximize else (value < best_value):
            best_value, best_move = value, move
    return KleinResult(best_move, best_value, count[0], time.perf_counter() - start)


# ---------------------------------------------------------------- Klein's MCTS


class _KleinNode:
    """Klein's ``TreeNode`` (listing 3.8): M (summed payout), V (visits), two move lists."""

    __slots__ = ("M", "V", "children", "untried", "board", "parent")

    def __init__(self, board: chess.Board, parent: "_KleinNode | None" = None) -> None:
        self.M = 0.0
        self.V = 0
        self.children: list[tuple[chess.Move, _KleinNode]] = []
        self.untried = list(board.legal_moves)
        self.board = board
        self.parent = parent


def klein_mcts(
    board: chess.Board,
    iterations: int,
    *,
    seed: int = 42,
    c: float = 1.4142,
    max_playout: int | None = None,
) -> list[tuple[str, float, int]]:
    """Klein's MCTS (listings 3.8–3.10), quirk 7 included; root moves as (uci, M, V), most visited first.

    ``random.seed(42)`` + ``random.choice`` in his listing becomes
    ``random.Random(seed).choice`` here: the same sequence. ``max_playout``
    (not in the book) stops a playout after that many moves and scores it as
    his draw (0); None plays to the end, as he does.
    """
    rng = random.Random(seed)
    root = _KleinNode(board.copy())
    for _ in range(iterations):
        node = root
        # select: descend while every move has been expanded and the node is not terminal
        while not node.untried and node.children:
            log_v = math.log(node.V)
            best, best_value = None, -1000000.0
            for _, ch in node.children:
                u = ch.M / ch.V + c * math.sqrt(log_v / ch.V)
                if u > best_value:
                    best, best_value = ch, u
            node = best  # type: ignore[assignment]
        # expand: the *last* untried move
        if node.untried:
            move = node.untried.pop()
            b = node.board.copy()
            b.push(move)
            ch = _KleinNode(b, node)
            node.children.append((move, ch))
            node = ch
        # simulate
        b = node.board.copy()
        plies = 0
        while b.outcome(claim_draw=True) is None and (max_playout is None or plies < max_playout):
            b.push(rng.choice(list(b.legal_moves)))
            plies += 1
        outcome = b.outcome(claim_draw=True)
        payout = 0.0  # a draw (or a cut-off playout): Klein's 0
        if outcome is not None and outcome.winner == chess.WHITE:
            payout = 1.0
        elif outcome is not None and outcome.winner == chess.BLACK:
            payout = 0.5
        # backpropagate: the same payout, for White, at every node
        while node is not None:
            node.M += payout
            node.V += 1
            node = node.parent  # type: ignore[assignment]
    stats = sorted(root.children, key=lambda mc: mc[1].V, reverse=True)
    return [(m.uci(), ch.M, ch.V) for m, ch in stats]


# ---------------------------------------------------------------- experiments


def _generic_depth_search(
    fen: str, depth: int, algorithm: str, board_eval: Callable[[chess.Board], int], *, klein_root: bool = True
) -> dict[str, Any]:
    """One generic search from :mod:`fuseki.search.minimax` on a :class:`ChessState`.

    ``klein_root=True`` uses Klein's alpha-beta root (every root move searched
    with the window (-10000, 10000)); False is the textbook root, which
    narrows the window as better root moves are found.
    """
    state = ChessState.from_fen(fen)
    evaluate = state_evaluation(board_eval)
    start = time.perf_counter()
    if algorithm == "minimax":
        r = minimax(state, depth, evaluate, win_value=WHITE_MATES)
    elif klein_root:
        r = alphabeta(
            state, depth, evaluate, window=(-ALPHABETA_WINDOW, ALPHABETA_WINDOW), full_window_at_root=True, win_value=WHITE_MATES
        )
    else:
        r = alphabeta(state, depth, evaluate, win_value=WHITE_MATES)
    seconds = time.perf_counter() - start
    sign = 1 if state.current_player == 0 else -1
    value = sign * r.value
    if float(value).is_integer():
        value = int(value)
    return {
        "move": r.move.uci() if r.move is not None else None,
        "value": value,  # White's view, like Klein's
        "nodes": r.nodes_from_ply(2),  # Klein's convention (quirk 5)
        "nodes_all": r.nodes,
        "seconds": round(seconds, 3),
    }


def _klein_depth_search(fen: str, depth: int, algorithm: str, board_eval: Callable[[chess.Board], int]) -> dict[str, Any]:
    r = klein_search(chess.Board(fen), depth, algorithm, board_eval)  # type: ignore[arg-type]
    return {"move": r.move.uci() if r.move else None, "value": r.value, "nodes": r.nodes, "seconds": round(r.seconds, 3)}


def experiment_depth3(*, generic: bool = True) -> dict[str, Any]:
    """Minimax vs alpha-beta at depth 3 on Figure 3.1 (Klein: 46,828 vs 8,050 nodes, h5f7)."""
    out: dict[str, Any] = {"fen": FIGURE_3_1_FEN, "depth": 3, "klein": KLEIN["depth3"]}
    for algorithm in ("minimax", "alphabeta"):
        out[algorithm] = _klein_depth_search(FIGURE_3_1_FEN, 3, algorithm, klein_eval)
        if generic:
            out[f"generic_{algorithm}"] = _generic_depth_search(FIGURE_3_1_FEN, 3, algorithm, klein_eval)
    if generic:
        out["generic_alphabeta_narrowing"] = _generic_depth_search(FIGURE_3_1_FEN, 3, "alphabeta", klein_eval, klein_root=False)
    return out


def experiment_legall(depth: int = 5, *, generic: bool = True, corrected: bool = True) -> dict[str, Any]:
    """Alpha-beta on the Legall position (Klein at depth 5: f3e5, 280, 2,121,700 nodes)."""
    out: dict[str, Any] = {"fen": LEGALL_FEN, "depth": depth, "klein": KLEIN["legall"]}
    out["alphabeta"] = _klein_depth_search(LEGALL_FEN, depth, "alphabeta", klein_eval)
    if corrected:
        out["alphabeta_corrected_eval"] = _klein_depth_search(LEGALL_FEN, depth, "alphabeta", corrected_eval)
    if generic:
        out["generic_alphabeta"] = _generic_depth_search(LEGALL_FEN, depth, "alphabeta", klein_eval)
        out["generic_alphabeta_narrowing"] = _generic_depth_search(LEGALL_FEN, depth, "alphabeta", klein_eval, klein_root=False)
    return out


def _target_stats(ranked: list[tuple[str, int, float]], target: str) -> dict[str, Any]:
    """Where ``target`` stands among root moves ranked by visits (rank 1 = most visited; ties share a rank)."""
    for move, visits, mean in ranked:
        if move == target:
            rank = 1 + sum(1 for _, v, _ in ranked if v > visits)
            return {"move": target, "visits": visits, "mean": round(mean, 3), "rank": rank}
    return {"move": target, "visits": 0, "mean": None, "rank": None}


def _generic_uct(fen: str, iterations: int, seed: int, max_playout: int | None, target: str) -> dict[str, Any]:
    from fuseki.games.chess import ChessState

    r = uct_search(ChessState.from_fen(fen), iterations=iterations, seed=seed, max_rollout_length=max_playout)
    top = sorted(r.stats, key=lambda s: s.visits, reverse=True)[:5]
    return {
        "move": r.move.uci() if r.move is not None else None,
        "top": [{"move": s.move.uci(), "visits": s.visits, "mean": round(s.value, 3)} for s in top],
        "target": _target_stats([(s.move.uci(), s.visits, s.value) for s in r.stats], target),
        "seconds": round(r.seconds, 2),
    }


def experiment_mcts(
    *,
    mate_iterations: int = 200,
    legall_iterations: int = 2000,
    seed: int = 42,
    max_playout: int | None = None,
    generic: bool = True,
) -> dict[str, Any]:
    """MCTS on Figure 3.1 (mate in one) and on the Legall position (Klein: no f3e5 at 2,000 iterations).

    Each run reports the most visited root move, the top five, and where the
    move that should win (``target``: h5f7, f3e5) ranks by visits.
    """
    out: dict[str, Any] = {"klein": {"mate": KLEIN["mcts"], "legall": KLEIN["legall"]["mcts"]}, "max_playout": max_playout}
    for name, fen, iterations, target in (
        ("mate", FIGURE_3_1_FEN, mate_iterations, "h5f7"),
        ("legall", LEGALL_FEN, legall_iterations, "f3e5"),
    ):
        if iterations <= 0:
            continue
        start = time.perf_counter()
        stats = klein_mcts(chess.Board(fen), iterations, seed=seed, max_playout=max_playout)
        entry: dict[str, Any] = {
            "iterations": iterations,
            "klein_style": {
                "move": stats[0][0],
                "top": [{"move": m, "visits": v, "mean": round(total / v, 3)} for m, total, v in stats[:5]],
                "target": _target_stats([(m, v, total / v) for m, total, v in stats], target),
                "seconds": round(time.perf_counter() - start, 2),
            },
        }
        if generic:
            entry["generic_uct"] = _generic_uct(fen, iterations, seed, max_playout, target)
        out[name] = entry
    return out
