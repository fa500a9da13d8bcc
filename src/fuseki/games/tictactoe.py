"""Tic-tac-toe: the smallest game every search in :mod:`fuseki.search` is tested on.

The book (ch. 4) uses it to introduce minimax because the whole game tree
(549,946 nodes) fits in a search, and the answer is known: with best play
the game is a draw. That makes it the first correctness check for minimax,
alpha-beta, transposition tables and MCTS.

Moves are ints ``0..8`` (``row * 3 + col``, top row first), so a move is as
cheap as possible and ``legal_moves()`` in ascending order is deterministic.

>>> s = TicTacToe().initial_state()
>>> s = s.play(4).play(0)
>>> print(s)
O . .
. X .
. . .
>>> s.current_player, s.legal_moves()
(0, [1, 2, 3, 5, 6, 7, 8])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fuseki.games.base import mask_of, returns_of
from fuseki.games.symmetry import Symmetry, board_symmetries

#: The eight lines of three; a player owning one of them has won.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)

_SYMBOLS = ".XO"  # cell value 0 (empty), 1 (player 0, X), 2 (player 1, O)


#: For each square, the lines through it: after a move only those can be new wins.
_LINES_THROUGH: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(line for line in LINES if sq in line) for sq in range(9)
)


def _line_winner(cells: tuple[int, ...]) -> int | None:
    for a, b, c in LINES:
        v = cells[a]
        if v and v == cells[b] == cells[c]:
            return v - 1
    return None


class TicTacToeState:
    """An immutable tic-tac-toe position. Player 0 is X and moves first.

    ``cells`` holds 0 (empty), 1 (X) or 2 (O) for the nine squares. The player
    to move follows from the number of stones, so ``key`` is just ``cells``.
    """

    __slots__ = ("cells", "current_player", "_winner", "_over")

    def __init__(self, cells: Sequence[int] = (0,) * 9) -> None:
        cells = tuple(int(v) for v in cells)
        if len(cells) != 9 or any(v not in (0, 1, 2) for v in cells):
            raise ValueError(f"a tic-tac-toe board is nine cells of 0, 1 or 2, got {cells!r}")
        x, o = cells.count(1), cells.count(2)
        if o not in (x, x - 1):
            raise ValueError(f"X moves first, so O has as many marks as X or one fewer; got X={x}, O={o}")
        self.cells = cells
        self.current_player = 0 if x == o else 1
        self._winner = _line_winner(cells)
        self._over = self._winner is not None or 0 not in cells

    @classmethod
    def from_string(cls, text: str) -> "TicTacToeState":
        """Parse nine cells of ``X``, ``O`` and ``.`` (whitespace ignored).

        >>> TicTacToeState.from_string("XX. OO. ...").legal_moves()
        [2, 5, 6, 7, 8]
        """
        chars = [ch for ch in text if not ch.isspace()]
        try:
            return cls([_SYMBOLS.index(ch.upper()) for ch in chars])
        except ValueError:
            raise ValueError(f"a tic-tac-toe board uses only X, O and '.', got {text!r}") from None

    @property
    def key(self) -> tuple[int, ...]:
        return self.cells

    def legal_moves(self) -> list[int]:
        if self._over:
            return []
        return [i for i, v in enumerate(self.cells) if v == 0]

    def play(self, move: int) -> "TicTacToeState":
        if self._over:
            raise ValueError(f"cannot play {move!r}: the game is over")
        if not isinstance(move, int) or not 0 <= move < 9:
            raise ValueError(f"a tic-tac-toe move is an int from 0 to 8, got {move!r}")
        if self.cells[move]:
            raise ValueError(f"illegal move {move}: square {move} is already taken")
        # Fast path (no re-validation): the search calls this half a million
        # times for the full game tree, so only the lines through ``move`` are checked.
        mark = self.current_player + 1
        cells = self.cells[:move] + (mark,) + self.cells[move + 1 :]
        new = _new(TicTacToeState)
        new.cells = cells
        new.current_player = 1 - self.current_player
        new._winner = None
        for a, b, c in _LINES_THROUGH[move]:
            if cells[a] == cells[b] == cells[c]:
                new._winner = mark - 1
                break
        new._over = new._winner is not None or 0 not in cells
        return new

    def is_over(self) -> bool:
        return self._over

    def winner(self) -> int | None:
        return self._winner

    def returns(self) -> tuple[float, float]:
        return returns_of(self._winner)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TicTacToeState) and other.cells == self.cells

    def __hash__(self) -> int:
        return hash(self.cells)

    def __str__(self) -> str:
        rows = ["".join(_SYMBOLS[v] for v in self.cells[r * 3 : r * 3 + 3]) for r in range(3)]
        return "\n".join(" ".join(row) for row in rows)

    def __repr__(self) -> str:
        return f"TicTacToeState.from_string({''.join(_SYMBOLS[v] for v in self.cells)!r})"


_new = object.__new__


class TicTacToe:
    """The game object: a name, the empty board and the action encoding.

    Actions are the squares, ``0..8`` (a move is its own index). The planes are
    ``(2, 3, 3)``: the marks of the player to move, then the opponent's. The
    symmetries are the eight of the square.

    >>> game = TicTacToe()
    >>> s = TicTacToeState.from_string("X.. .O. ...")
    >>> game.planes(s)[:, 0, 0].tolist(), int(game.legal_mask(s).sum())  # X to move owns the corner
    ([1.0, 0.0], 7)
    """

    name = "tictactoe"
    num_actions: int = 9
    planes_shape: tuple[int, int, int] = (2, 3, 3)
    symmetries: tuple[Symmetry, ...] = board_symmetries(3)

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState()

    def action_index(self, state: TicTacToeState, move: int) -> int:
        if not isinstance(move, int) or not 0 <= move < 9:
            raise ValueError(f"a tic-tac-toe move is an int from 0 to 8, got {move!r}")
        return move

    def index_to_move(self, state: TicTacToeState, index: int) -> int:
        index = int(index)
        if not 0 <= index < 9:
            raise ValueError(f"tic-tac-toe action {index} is out of range 0..8")
        return index

    def legal_actions(self, state: TicTacToeState) -> np.ndarray:
        return np.array(state.legal_moves(), dtype=np.int64)

    def legal_mask(self, state: TicTacToeState) -> np.ndarray:
        return mask_of(9, self.legal_actions(state))

    def planes(self, state: TicTacToeState) -> np.ndarray:
        cells = np.array(state.cells, dtype=np.int8)
        me = state.current_player + 1
        out = np.empty((2, 9), dtype=np.float32)
        out[0] = cells == me
        out[1] = cells == 3 - me
        return out.reshape(2, 3, 3)

    def __repr__(self) -> str:
        return "TicTacToe()"
