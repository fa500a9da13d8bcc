"""Minimax, negamax and alpha-beta on any :class:`fuseki.games.base.GameState`.

These are the textbook algorithms of the book (ch. 4, ``best_result`` and
``alpha_beta_result``) and of Klein (ch. 3, ``minimax`` and ``alphaBeta``),
written once for every game. They are meant to be read and to reproduce
published numbers, so they stay plain recursive functions.

Conventions (the same for every function here):

- **Values** in a :class:`SearchResult` are from the point of view of the
  player to move at the root. A finished game is worth
  ``returns()[player] * win_value``; a position at the depth limit is worth
  ``evaluate(state, player)``, both from ``player``'s point of view.
  ``win_value`` defaults to 1 for a search to the end of the game
  (``depth=None``: exact values -1/0/+1) and to 1e9 for a depth-limited one,
  so that a forced win outweighs any evaluation.
- **Move order**: with ``order=None`` moves are tried exactly in
  ``state.legal_moves()`` order, and a later move replaces the best one only
  if it is strictly better, so ties keep the *first* best move. Together this
  makes node counts and chosen moves reproducible, which is what lets Klein's
  published node counts be reproduced (see below).
- **Node counts**: ``nodes`` is the number of states the search created with
  ``play()`` (the root is not counted: the caller made it). ``nodes_by_ply[k]``
  is how many of them lie ``k`` moves below the root (``nodes_by_ply[0]`` is
  always 0), so ``sum(nodes_by_ply) == nodes``. A state reached again and
  answered from the transposition table still counts: it was created.
- **Quicker wins**: off by default, so values are the textbook ones. With
  ``prefer_quick_wins=True`` every value is multiplied by
  :data:`QUICK_WIN_DISCOUNT` for each ply it travels up, so a win found sooner
  is worth more and a loss found later hurts less. A multiplicative discount
  (rather than "win_value minus ply") keeps a value a function of the position
  alone, so it is still safe to store in a transposition table.

Reproducing Klein's counts (46,828 for minimax and 8,050 for alpha-beta at
depth 3 on his Figure 3.1 position): his ``NODECOUNT`` is incremented for each
``board.push`` inside ``minimax``/``alphaBeta``, but not for the root moves
that ``getNextMove`` pushes, so it counts the positions at plies 2 and deeper:
``result.nodes_from_ply(2)``. His ``getNextMove`` also searches every root move
with the same window ``(-10000, 10000)``, never narrowing it between root
moves; ``alphabeta(..., window=(-10000, 10000), full_window_at_root=True)``
does the same. His ``alphaBeta`` is fail-soft and cuts on ``alpha >= beta``,
as :func:`alphabeta` does.

>>> from fuseki.games.tictactoe import TicTacToeState
>>> s = TicTacToeState.from_string("XX. OO. ...")   # X to move wins at 2
>>> r = alphabeta(s)
>>> r.move, r.value, r.pv
(2, 1.0, [2])
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from fuseki.games.base import GameState

#: ``evaluate(state, player) -> float``: how good ``state`` is for ``player``.
Evaluation = Callable[[Any, int], float]
#: ``order(state, moves) -> moves in the order to try them``.
Ordering = Callable[[Any, Sequence[Any]], Iterable[Any]]

#: Per-ply factor applied to values when ``prefer_quick_wins`` is on.
QUICK_WIN_DISCOUNT = 0.999

#: Default ``win_value`` for depth-limited searches: larger than any sane evaluation.
DEPTH_LIMITED_WIN_VALUE = 1e9

INF = math.inf

# Transposition-table bound flags: what a stored value means.
EXACT = 0  #: the value is exact
LOWER = 1  #: the true value is at least the stored one (the search failed high)
UPPER = 2  #: the true value is at most the stored one (the search failed low)


@dataclasses.dataclass
class SearchResult:
    """What a search found.

    ``move`` is the best root move (``None`` when the root is already over),
    ``value`` its value for the player to move at the root, ``pv`` the
    principal variation starting with ``move`` (it may stop early where a
    transposition-table entry answered a subtree), ``nodes`` and
    ``nodes_by_ply`` the node counts described in the module docstring.
    """

    move: Any | None
    value: float
    nodes: int
    pv: list[Any]
    nodes_by_ply: list[int] = dataclasses.field(default_factory=lambda: [0])
    depth: int | None = None
    tt_hits: int = 0

    def nodes_from_ply(self, ply: int) -> int:
        """States created ``ply`` or more moves below the root.

        ``nodes_from_ply(1) == nodes``; ``nodes_from_ply(2)`` is Klein's count,
        which leaves out the root's children.
        """
        return sum(self.nodes_by_ply[ply:])


@dataclasses.dataclass(slots=True)
class TTEntry:
    """One transposition-table entry: a search result for a position at some depth."""

    depth: float  #: remaining depth searched below the position (``inf``: to the end)
    value: float  #: value for the player to move there
    flag: int  #: :data:`EXACT`, :data:`LOWER` or :data:`UPPER`
    move: Any  #: the best (or refuting) move found, tried first next time


class TranspositionTable:
    """Search results keyed by ``state.key``: a plain dict, with hit statistics.

    Pass one instance to several searches (iterative deepening) to reuse what
    the shallower ones found; its best moves then order the deeper search.
    An entry is replaced when the new search went at least as deep.
    """

    def __init__(self) -> None:
        self.entries: dict[Hashable, TTEntry] = {}
        self.hits = 0

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: Hashable) -> TTEntry | None:
        return self.entries.get(key)

    def store(self, key: Hashable, depth: float, value: float, flag: int, move: Any) -> None:
        old = self.entries.get(key)
        if old is None or depth >= old.depth:
            self.entries[key] = TTEntry(depth, value, flag, move)

    def clear(self) -> None:
        self.entries.clear()
        self.hits = 0


def by_key(key: Callable[[Any, Any], float], *, reverse: bool = True) -> Ordering:
    """An ordering that sorts moves by ``key(state, move)``, highest first by default.

    The sort is stable, so moves with equal keys stay in ``legal_moves()`` order.

    >>> order = by_key(lambda s, m: m == 4)   # try the centre first
    >>> order(None, [0, 1, 4, 8])
    [4, 0, 1, 8]
    """

    def order(state: Any, moves: Sequence[Any]) -> list[Any]:
        return sorted(moves, key=lambda m: key(state, m), reverse=reverse)

    return order


def _settings(depth: int | None, evaluate: Evaluation | None, win_value: float | None) -> tuple[float, float]:
    """Check the depth/evaluation pair; return (depth as a number, win_value)."""
    if depth is None:
        return INF, 1.0 if win_value is None else float(win_value)
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be a non-negative int or None (search to the end), got {depth!r}")
    if evaluate is None and depth > 0:
        raise ValueError("a depth-limited search needs an evaluate(state, player) function")
    if evaluate is None:
        raise ValueError("depth=0 means evaluating the root: pass evaluate(state, player)")
    return float(depth), DEPTH_LIMITED_WIN_VALUE if win_value is None else float(win_value)


def _no_moves(state: Any) -> ValueError:
    return ValueError(f"{type(state).__name__} is not over but has no legal moves: the game adapter is inconsistent")


# ---------------------------------------------------------------- minimax


def minimax(
    state: GameState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    win_value: float | None = None,
    prefer_quick_wins: bool = False,
) -> SearchResult:
    """Plain minimax in its max/min form: player 0 maximizes, player 1 minimizes.

    ``depth=None`` searches to the end of the game (exact values, the book's
    ``best_result``); otherwise the search stops ``depth`` plies below the
    root and calls ``evaluate`` (Klein's ``minimax``). Every node is visited:
    this is the baseline the other searches must agree with.

    >>> from fuseki.games.tictactoe import TicTacToeState
    >>> r = minimax(TicTacToeState.from_string("X.. ... ..."))   # O must take the centre
    >>> r.move, r.value
    (4, 0.0)
    """
    max_depth, win = _settings(depth, evaluate, win_value)
    disc = QUICK_WIN_DISCOUNT if prefer_quick_wins else 1.0
    counts = [0]

    def search(s: Any, d: float, ply: int) -> tuple[float, tuple]:
        # Values here are from player 0's point of view.
        if s.is_over():
            return s.returns()[0] * win, ()
        if d == 0:
            return evaluate(s, 0), ()  # type: ignore[misc]
        moves = s.legal_moves()
        if not moves:
            raise _no_moves(s)
        if len(counts) <= ply + 1:
            counts.append(0)
        counts[ply + 1] += len(moves)
        maximize = s.current_player == 0
        best = -INF if maximize else INF
        line: tuple = ()
        for m in moves:
            v, sub = search(s.play(m), d - 1, ply + 1)
            v *= disc
            if (v > best) if maximize else (v < best):
                best, line = v, (m, *sub)
        return best, line

    value, line = search(state, max_depth, 0)
    sign = 1.0 if state.current_player == 0 else -1.0
    return SearchResult(
        move=line[0] if line else None,
        value=sign * value + 0.0,
        nodes=sum(counts),
        pv=list(line),
        nodes_by_ply=counts,
        depth=depth,
    )


# ---------------------------------------------------------------- negamax


def negamax(
    state: GameState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    win_value: float | None = None,
    prefer_quick_wins: bool = False,
) -> SearchResult:
    """Minimax in negamax form: a position's value is minus its best child's.

    The same values and node counts as :func:`minimax`, written as the book
    writes ``best_result`` (ch. 4, listing 4.9): every value is from the point
    of view of the player to move, so one branch serves both players.
    ``evaluate(state, state.current_player)`` scores the leaves.

    >>> from fuseki.games.tictactoe import TicTacToeState
    >>> negamax(TicTacToeState.from_string("X.. ... ...")).move   # O must take the centre
    4
    """
    max_depth, win = _settings(depth, evaluate, win_value)
    disc = QUICK_WIN_DISCOUNT if prefer_quick_wins else 1.0
    counts = [0]

    def search(s: Any, d: float, ply: int) -> tuple[float, tuple]:
        if s.is_over():
            return s.returns()[s.current_player] * win, ()
        if d == 0:
            return evaluate(s, s.current_player), ()  # type: ignore[misc]
        moves = s.legal_moves()
        if not moves:
            raise _no_moves(s)
        if len(counts) <= ply + 1:
            counts.append(0)
        counts[ply + 1] += len(moves)
        best = -INF
        line: tuple = ()
        for m in moves:
            v, sub = search(s.play(m), d - 1, ply + 1)
            v = -disc * v
            if v > best:
                best, line = v, (m, *sub)
        return best, line

    value, line = search(state, max_depth, 0)
    return SearchResult(
        move=line[0] if line else None,
        value=value + 0.0,
        nodes=sum(counts),
        pv=list(line),
        nodes_by_ply=counts,
        depth=depth,
    )


# ---------------------------------------------------------------- alpha-beta


def alphabeta(
    state: GameState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    order: Ordering | None = None,
    tt: TranspositionTable | bool | None = None,
    window: tuple[float, float] = (-INF, INF),
    full_window_at_root: bool = False,
    root_moves: Sequence[Any] | None = None,
    win_value: float | None = None,
    prefer_quick_wins: bool = False,
) -> SearchResult:
    """Alpha-beta in negamax form, fail-soft: the minimax value with fewer nodes.

    *Fail-soft* means a node whose value falls outside ``(alpha, beta)``
    returns the best value it actually saw, not the window edge; that bound
    is tighter, and it is what Klein's ``alphaBeta`` does. A node stops
    searching as soon as ``alpha >= beta`` (a cutoff). The root value is exact
    as long as it lies inside ``window``.

    ``order(state, moves)`` reorders the moves at every node (see
    :func:`by_key`); ``None`` keeps ``legal_moves()`` order. ``tt`` is a
    :class:`TranspositionTable` (reused across calls), ``True`` for a fresh
    one, or ``None`` for none. With a table, positions reached again are
    answered from it when it holds a deep enough result, and its best move is
    tried first (before ``order``'s choice).

    ``full_window_at_root=True`` searches every root move with the initial
    ``window`` instead of narrowing it as better root moves are found: that
    wastes nodes, but it is what Klein's ``getNextMove`` does, so his node
    count needs it.

    ``root_moves`` restricts the root to these moves, tried in the given order
    (as UCI's ``go searchmoves``): an agent uses it to leave out moves it
    never wants to play (a Go bot's pass) or to break ties randomly by
    shuffling them. ``order`` and the table's move do not reorder them.

    >>> from fuseki.games.hexapawn import Hexapawn
    >>> alphabeta(Hexapawn().initial_state(), tt=True).value   # Black wins Hexapawn
    -1.0
    """
    max_depth, win = _settings(depth, evaluate, win_value)
    disc = QUICK_WIN_DISCOUNT if prefer_quick_wins else 1.0
    # Not ``tt or None``: an empty table is falsy (``__len__``) but must still be used.
    table = TranspositionTable() if tt is True else tt if isinstance(tt, TranspositionTable) else None
    hits_before = table.hits if table is not None else 0
    counts = [0]

    def ordered(s: Any, moves: Sequence[Any], tt_move: Any) -> list[Any]:
        # A new list: the game's own list of legal moves is never reordered in place.
        out = list(order(s, moves)) if order is not None else list(moves)
        if tt_move is not None and tt_move in out:
            out.remove(tt_move)
            out.insert(0, tt_move)
        return out

    def search(s: Any, d: float, alpha: float, beta: float, ply: int) -> tuple[float, tuple]:
        if s.is_over():
            return s.returns()[s.current_player] * win, ()
        if d == 0:
            return evaluate(s, s.current_player), ()  # type: ignore[misc]
        alpha0 = alpha
        tt_move = None
        if table is not None:
            key = s.key
            e = table.entries.get(key)
            if e is not None:
                tt_move = e.move
                if e.depth >= d:
                    v, flag = e.value, e.flag
                    if flag == EXACT:
                        table.hits += 1
                        return v, (e.move,)
                    if flag == LOWER and v > alpha:
                        alpha = v
                    elif flag == UPPER and v < beta:
                        beta = v
                    if alpha >= beta:
                        table.hits += 1
                        return v, (e.move,)
        moves = s.legal_moves()
        if not moves:
            raise _no_moves(s)
        if order is not None or tt_move is not None:
            moves = ordered(s, moves, tt_move)
        if len(counts) <= ply + 1:
            counts.append(0)
        best = -INF
        line: tuple = ()
        played = 0
        for m in moves:
            played += 1
            # Child window: we want -disc * v in (alpha, beta).
            v, sub = search(s.play(m), d - 1, -beta / disc, -alpha / disc, ply + 1)
            v = -disc * v
            if v > best:
                best, line = v, (m, *sub)
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        counts[ply + 1] += played
        if table is not None:
            flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            table.store(key, d, best, flag, line[0])
        return best, line

    # The root: like any node, but it keeps the best move and may skip narrowing.
    if state.is_over():
        value = state.returns()[state.current_player] * win
        return SearchResult(None, value + 0.0, 0, [], [0], depth)
    if max_depth == 0:
        return SearchResult(None, evaluate(state, state.current_player) + 0.0, 0, [], [0], depth)  # type: ignore[misc]
    alpha, beta = window
    root_alpha = alpha
    tt_move = None
    if table is not None:
        e = table.get(state.key)
        tt_move = e.move if e is not None else None
    moves: Sequence[Any]
    if root_moves is not None:
        moves = list(root_moves)
        if not moves:
            raise ValueError("root_moves is empty: there is nothing to search")
    else:
        moves = state.legal_moves()
        if not moves:
            raise _no_moves(state)
        if order is not None or tt_move is not None:
            moves = ordered(state, moves, tt_move)
    counts.append(0)
    best = -INF
    line: tuple[Any, ...] = ()
    for m in moves:
        counts[1] += 1
        a = root_alpha if full_window_at_root else alpha
        v, sub = search(state.play(m), max_depth - 1, -beta / disc, -a / disc, 1)
        v = -disc * v
        if v > best:
            best, line = v, (m, *sub)
            if v > alpha and not full_window_at_root:
                alpha = v
                if alpha >= beta:
                    break
    if table is not None and root_moves is None:  # a restricted root's value is not the position's
        flag = UPPER if best <= root_alpha else LOWER if best >= beta else EXACT
        table.store(state.key, max_depth, best, flag, line[0])
    return SearchResult(
        move=line[0],
        value=best + 0.0,
        nodes=sum(counts),
        pv=list(line),
        nodes_by_ply=counts,
        depth=depth,
        tt_hits=(table.hits - hits_before) if table is not None else 0,
    )
