"""One game loop for every game of the :mod:`fuseki.games.base` protocol: :func:`play_game`.

Two players (anything with ``select_move(state) -> move``) move in turn
until the game is over, a move cap is reached, a player forfeits or (with
``move_time``) overstays its time. The loop returns a structured
:class:`Outcome` (winner 0/1/``None``, a reason from :data:`REASONS`, the
returns, the moves), so no driver parses a result string back.

What differs between games plugs in instead of being written into the loop:

- a :class:`GamePlugin` says what players see of a state (Go agents see the
  rules engine's :class:`fuseki.go.state.GameState`, not the protocol
  adapter), how an illegal move is described, and how a finished or stopped
  game is judged (Go counts the board with a dead-stone estimate or asks a GTP
  referee: :class:`fuseki.arena.go_plugin.GoPlugin`). The base class is all
  that tic-tac-toe, Hexapawn and chess need: their states know their winner;
- :class:`Observer` objects see the start, every move and the end (an SGF
  recorder, a progress display).

>>> from fuseki.games import make_game
>>> class First:
...     def select_move(self, state):
...         return state.legal_moves()[0]
>>> outcome = play_game(make_game("tictactoe"), [First(), First()])
>>> outcome.winner, outcome.reason, outcome.returns, outcome.moves
(0, 'score', (1.0, -1.0), (0, 1, 2, 3, 4, 5, 6))
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from fuseki.arena.outcome import PlayerForfeit

__all__ = ["REASONS", "GamePlugin", "Observer", "Outcome", "Player", "Verdict", "play_game"]

#: Why a game ended. ``score``: by the game's rules with a winner (Go: counted);
#: ``draw``: by the rules without one; ``resign``; ``forfeit`` (an illegal move
#: or a failing player); ``time`` (a move took longer than ``move_time``);
#: ``move_cap``: stopped after the move cap (a judge may still name a winner).
REASONS = ("score", "resign", "forfeit", "time", "move_cap", "draw")


class Player(Protocol):
    """One side: it is shown a state (as its plug-in presents it) and answers a move."""

    def select_move(self, state: Any) -> Any: ...


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A judge's word on a finished or stopped game (:meth:`GamePlugin.judge`)."""

    winner: int | None
    reason: str  #: ``score``, ``draw`` or ``resign``
    margin: float | None = None  #: the winner's margin in points where the game counts them (Go)
    notes: tuple[str, ...] = ()  #: how the judge decided, for the record
    text: str | None = None  #: the judge's own statement, kept verbatim for records (Go: ``"B+3.5"``)

    def __post_init__(self) -> None:
        if self.reason not in ("score", "draw", "resign"):
            raise ValueError(f"a verdict's reason is score, draw or resign, got {self.reason!r}")
        if self.winner not in (0, 1, None):
            raise ValueError(f"a winner is 0, 1 or None, got {self.winner!r}")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How one game ended, as data."""

    winner: int | None  #: 0, 1 or ``None`` (a draw, or a capped game nobody judged)
    reason: str  #: one of :data:`REASONS`
    returns: tuple[float, float]  #: +1 for the winner, -1 for the loser, 0 each for no winner
    moves: tuple[Any, ...]  #: the moves played by this loop, in order
    state: Any  #: the last state (for a forfeit or a time loss: the state the loser was to move from)
    margin: float | None = None  #: the winner's margin in points where a judge counted them (Go)
    detail: str = ""  #: ``forfeit``/``time``: what the loser did
    notes: tuple[str, ...] = ()  #: the move cap, how the judge decided
    text: str | None = None  #: a judge's own statement of the result (Go: ``"B+3.5"``, ``"W+R"``)

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner


def _returns(winner: int | None) -> tuple[float, float]:
    if winner is None:
        return (0.0, 0.0)
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


class GamePlugin:
    """What a game adds to the loop. This base fits games whose states know their winner."""

    def view(self, state: Any) -> Any:
        """What players are shown of ``state`` (the protocol state itself here)."""
        return state

    def illegal_move(self, state: Any, move: Any, error: ValueError, ply: int) -> str:
        """Why ``move`` (the ``ply``-th of this game, 1-based) forfeits: it was illegal in ``state``."""
        return f"played the illegal move {move!r} at move {ply}: {error}"

    def judge(self, state: Any, *, capped: bool) -> Verdict | None:
        """A verdict on a game that is over (or ``capped``); ``None``: the state's own ``winner()`` decides."""
        return None


class Observer:
    """Sees a game as it is played; override what you need (an SGF recorder, a progress line)."""

    def on_start(self, state: Any) -> None:
        """Called once with the first state."""

    def on_move(self, before: Any, move: Any, after: Any) -> None:
        """Called after each legal move."""

    def on_end(self, outcome: Outcome) -> None:
        """Called once with the outcome, before :func:`play_game` returns it."""


def play_game(
    game_or_state: Any,
    players: Sequence[Player] | Mapping[int, Player],
    *,
    move_cap: int | None = None,
    plugin: GamePlugin | None = None,
    observers: Sequence[Observer] = (),
    move_time: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Outcome:
    """Play one game from ``game_or_state`` (a :class:`~fuseki.games.base.Game` or a state) to its end.

    ``players[0]`` moves for player 0, ``players[1]`` for player 1. A move
    the state refuses (``ValueError``) or a :class:`PlayerForfeit` raised by
    a player loses by ``forfeit``; with ``move_time`` (seconds, measured with
    ``clock``) a move that took longer loses on ``time``. After ``move_cap``
    moves of this loop the game stops (``move_cap``), and the plug-in's judge
    may still name a winner (Go counts the board as it stands).
    """
    if move_cap is not None and move_cap < 0:
        raise ValueError(f"move cap must not be negative, got {move_cap}")
    if move_time is not None and not move_time > 0:
        raise ValueError(f"move time must be positive, got {move_time}")
    state = game_or_state.initial_state() if hasattr(game_or_state, "initial_state") else game_or_state
    by_player = (players[0], players[1])
    plugin = plugin if plugin is not None else GamePlugin()
    moves: list[Any] = []

    def finish(outcome: Outcome) -> Outcome:
        for observer in observers:
            observer.on_end(outcome)
        return outcome

    def lost(loser: int, reason: str, detail: str) -> Outcome:
        winner = 1 - loser
        return finish(Outcome(winner, reason, _returns(winner), tuple(moves), state, detail=detail))

    for observer in observers:
        observer.on_start(state)
    capped = False
    while not state.is_over():
        if move_cap is not None and len(moves) >= move_cap:
            capped = True
            break
        mover = state.current_player
        started = clock()
        try:
            move = by_player[mover].select_move(plugin.view(state))
        except PlayerForfeit as f:
            return lost(f.player, "forfeit", f.reason)
        took = clock() - started
        if move_time is not None and took > move_time:
            return lost(mover, "time", f"took {took:.3g} s for move {len(moves) + 1} (limit {move_time:g} s)")
        try:
            after = state.play(move)
        except ValueError as e:
            return lost(mover, "forfeit", plugin.illegal_move(state, move, e, len(moves) + 1))
        moves.append(move)
        for observer in observers:
            observer.on_move(state, move, after)
        state = after
    verdict = plugin.judge(state, capped=capped)
    notes: tuple[str, ...] = ()
    if capped:
        how = " and scored as it stood" if verdict is not None else "; no winner"
        notes = (f"stopped at the move cap ({move_cap} moves){how}",)
    if verdict is None:
        winner = None if capped else state.winner()
        reason = "move_cap" if capped else ("draw" if winner is None else "score")
        return finish(Outcome(winner, reason, _returns(winner), tuple(moves), state, notes=notes))
    reason = "move_cap" if capped else verdict.reason
    return finish(
        Outcome(
            verdict.winner,
            reason,
            _returns(verdict.winner),
            tuple(moves),
            state,
            margin=verdict.margin,
            notes=notes + verdict.notes,
            text=verdict.text,
        )
    )
