"""When to stop: passing and resigning around any agent (spec row B5).

The book's bots never resign and pass only when nothing else is left, so their
games drag on and end with stones played into settled areas. :class:`Terminating`
wraps any :class:`~fuseki.agents.base.Agent` and adds the two decisions a
real opponent expects:

- **Pass back.** When the opponent has just passed and the position, scored
  with :func:`fuseki.go.ownership.dead_stones` under the state's rules and
  komi, is a win or a draw for the player to move, it passes (and so ends the
  game). In a lost position it plays on.
- **Resign.** Its win estimate is the fraction of random playouts (the book's
  no-own-eye policy, :func:`fuseki.go.ownership.ownership_and_winrate`) that
  the player to move wins on the area count against komi, draws counting half.
  When that is below ``resign_below`` and at least ``min_moves`` moves have
  been played, it resigns. ``resign_below=None`` never resigns.
- Otherwise the wrapped agent chooses.

With ``settled_only=True`` (the web UI's bots) it passes back only on a
settled board as well (:func:`fuseki.go.borders.settled`: no open border, no
string whose fate the playouts leave open). One early pass on an almost empty
board then does not end the game at White's komi: the bot plays on. An agent
that passes by its own search (MCTS) is overruled the same way: on an
unsettled board its best move other than a pass is played instead
(``best_non_pass``), when it offers one.

Random playouts are a crude judge of a middle game, so keep ``resign_below``
low (the default 0.1) and ``min_moves`` at half the board or more.

>>> from fuseki.agents import make_agent
>>> bot = Terminating(make_agent("random", seed=1), resign_below=None)
>>> bot.name
'random'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fuseki.go.borders import settled
from fuseki.go.ownership import dead_stones, ownership, ownership_and_winrate
from fuseki.go.state import Color, Move
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    from fuseki.agents.base import Agent
    from fuseki.go.state import GameState, Move

__all__ = ["Terminating"]


class Terminating:
    """Wrap ``agent`` with pass-when-ahead and resign-when-hopeless decisions.

    Parameters: ``resign_below`` (win-estimate threshold, ``None`` = never
    resign), ``min_moves`` (no resignation before this move number; ``None`` =
    half the board's points), ``playouts`` (for both the dead-stone estimate
    and the win estimate), ``pass_when_ahead`` (turn off the pass-back rule),
    ``seed`` (reseeds the playout generator on every decision; ``None``, the
    default, lets it run on so that a wrapped playout-based search is not
    disturbed), ``settled_only`` (pass back only on a settled board).
    """

    def __init__(
        self,
        agent: "Agent",
        *,
        resign_below: float | None = 0.1,
        min_moves: int | None = None,
        playouts: int = 100,
        pass_when_ahead: bool = True,
        seed: int | None = None,
        settled_only: bool = False,
    ) -> None:
        if resign_below is not None and not 0.0 <= resign_below <= 1.0:
            raise InputError(f"resign_below must be in [0, 1] or None, got {resign_below!r}")
        if playouts < 1:
            raise InputError(f"playouts must be at least 1, got {playouts}")
        self.agent = agent
        self.name: str = getattr(agent, "name", type(agent).__name__)
        self.resign_below = resign_below
        self.min_moves = min_moves
        self.playouts = int(playouts)
        self.pass_when_ahead = pass_when_ahead
        self.seed = seed
        self.settled_only = settled_only
        #: The last win estimate for the player to move (None until one was computed).
        self.last_winrate: float | None = None

    @property
    def board_size(self) -> int | None:
        """The wrapped agent's one board size (``None``: any), so that size checks see through the wrapper."""
        return getattr(self.agent, "board_size", None)

    @property
    def board_sizes(self) -> tuple[int, ...] | None:
        """The wrapped agent's sizes when it holds one network per size (``ShippedPolicyAgent``)."""
        return getattr(self.agent, "board_sizes", None)

    def win_estimate(self, state: "GameState") -> float:
        """Fraction of playouts that the player to move wins (draws count half)."""
        _, black = ownership_and_winrate(state, playouts=self.playouts, seed=self.seed)
        mine = black if state.next_player is Color.BLACK else 1.0 - black
        self.last_winrate = mine
        return mine

    def should_pass(self, state: "GameState") -> bool:
        """The opponent just passed and passing now does not lose."""
        if not self.pass_when_ahead or state.parent is None:
            return False
        last = state.last_move
        if last is None or not last.is_pass:
            return False
        dead = dead_stones(state, playouts=self.playouts, seed=self.seed)
        score = state.score(dead=dead)
        if not (score.winner is None or score.winner is state.next_player):
            return False
        return not self.settled_only or self.is_settled(state, dead)

    def is_settled(self, state: "GameState", dead: list | None = None) -> bool:
        """No open border and no uncertain string (:func:`fuseki.go.borders.settled`)."""
        if dead is None:
            dead = dead_stones(state, playouts=self.playouts, seed=self.seed)
        return settled(state, dead, ownership(state, playouts=self.playouts, seed=self.seed))

    def should_resign(self, state: "GameState") -> bool:
        """The win estimate is below ``resign_below`` after ``min_moves`` moves."""
        if self.resign_below is None:
            return False
        min_moves = self.min_moves if self.min_moves is not None else state.size * state.size // 2
        if state.move_number < min_moves:
            return False
        return self.win_estimate(state) < self.resign_below

    def select_move(self, state: "GameState") -> "Move":
        # An agent that passes and resigns by its own search (MCTS) judges the
        # position better than random playouts do: leave those decisions to it.
        if not state.is_over() and not getattr(self.agent, "self_terminating", False):
            if self.should_pass(state):
                return Move.pass_turn()
            if self.should_resign(state):
                return Move.resign()
        move = self.agent.select_move(state)
        if (
            self.settled_only
            and move.is_pass
            and state.last_move is not None
            and state.last_move.is_pass
            and getattr(self.agent, "self_terminating", False)
            and not self.is_settled(state)
        ):
            alternative = getattr(self.agent, "best_non_pass", None)
            other = alternative(state) if callable(alternative) else None
            if other is not None:
                return other
        return move

    def analyze(self, state: "GameState") -> dict[str, Any]:
        """The wrapped agent's analysis (if any) plus this wrapper's win estimate."""
        out: dict[str, Any] = {}
        inner = getattr(self.agent, "analyze", None)
        if callable(inner):
            out.update(inner(state))
        out["termination_winrate"] = self.win_estimate(state)
        return out

    def __repr__(self) -> str:
        return (
            f"Terminating({self.agent!r}, resign_below={self.resign_below!r}, "
            f"min_moves={self.min_moves!r}, playouts={self.playouts})"
        )
