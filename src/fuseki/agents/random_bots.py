"""Random bots: the book's eye-respecting bot and a plain uniform one.

:class:`RandomBot` is ``dlgo.agent.naive.RandomBot`` (book ch. 3): a random
legal move that does not fill one of its own eyes, passing when no such move
is left. Not filling eyes is what lets two random bots finish a game: without
it they keep filling their own eyes, getting captured and refilling the space.

:class:`UniformRandomBot` is uniform over all legal points and passes only
when none is left. It is the baseline that shows why the eye rule matters,
and a playout policy with no Go knowledge at all.

Both draw from their own :class:`numpy.random.Generator`, so a seed makes a
game reproducible, and both work on the state's int array of legal points
(``state.legal_points()``) instead of building a ``Move`` for every candidate.

>>> from fuseki.go.state import GameState
>>> bot = RandomBot(seed=7)
>>> state = GameState.new(9)
>>> state.is_legal(bot.select_move(state))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.go.coords import Point
from fuseki.go.state import Move

if TYPE_CHECKING:
    from fuseki.go.state import GameState

#: Random draws (with replacement) tried before falling back to a full shuffle.
#: Early in a game nearly every point is a candidate and the first draw
#: succeeds; late in a game most legal points are eyes and a shuffle of the
#: few left is cheaper than drawing blindly.
_QUICK_TRIES = 4


def _as_move(index: int, size: int) -> Move:
    """An int move index (``size * size`` is pass) as a :class:`Move`."""
    if index == size * size:
        return Move.pass_turn()
    return Move.play(Point(index // size, index % size))


def _check_playable(state: GameState) -> None:
    if state.is_over():
        raise ValueError("the game is over: there is no move to select")


class UniformRandomBot:
    """Uniform over the legal points; passes only when there is none.

    Pass itself is not one of the choices: a bot that passed with probability
    ``1 / (legal moves + 1)`` would end most games after a few dozen moves
    with the board nearly empty.
    """

    name = "uniform"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def select_index(self, state: GameState) -> int:
        """The chosen move as an int index (``size * size`` for pass): the fast path."""
        _check_playable(state)
        points = state.legal_points()
        k = len(points) - 1  # the last entry is always pass
        if k <= 0:
            return state.size * state.size
        return int(points[int(self._rng.random() * k)])

    def select_move(self, state: GameState) -> Move:
        return _as_move(self.select_index(state), state.size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomBot:
    """The book's random bot: a random legal move that does not fill its own eye.

    "Eye" is the book's ``is_point_an_eye`` (:meth:`GameState.is_eye`): an
    empty point whose four neighbours are the bot's stones (or the edge) and
    enough of whose diagonals are too. The choice is uniform over the legal
    points that are not such eyes; with none left the bot passes.
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def select_index(self, state: GameState) -> int:
        """The chosen move as an int index (``size * size`` for pass): the fast path.

        Rejection sampling: draw a legal point uniformly and keep it unless it
        is an own eye. Conditioned on acceptance each non-eye point is equally
        likely, and the fallback (the first non-eye of a random permutation)
        is uniform too, so the mixture is uniform over non-eye legal points
        while costing one eye test per move in the common case.
        """
        _check_playable(state)
        size = state.size
        points = state.legal_points()
        k = len(points) - 1  # the last entry is always pass
        if k <= 0:
            return size * size
        color = state.next_player
        is_eye = state.is_eye
        rng = self._rng
        for _ in range(_QUICK_TRIES):
            p = int(points[int(rng.random() * k)])
            if not is_eye((p // size, p % size), color):
                return p
        for i in rng.permutation(k).tolist():
            p = int(points[i])
            if not is_eye((p // size, p % size), color):
                return p
        return size * size

    def select_move(self, state: GameState) -> Move:
        return _as_move(self.select_index(state), state.size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
