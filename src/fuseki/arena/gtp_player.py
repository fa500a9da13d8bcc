"""An outside GTP engine as an in-process agent: :class:`GtpAgent`.

So that one game loop serves every pairing in an evaluation, a GTP program
is wrapped behind the :class:`~fuseki.agents.base.Agent` protocol, on the
match runner's :class:`~fuseki.arena.gtp_engines.Engine`: crashes, hangs and
nonsense answers are forfeits exactly as in ``fuseki match``.
"""

from __future__ import annotations

from fuseki.arena.gtp_engines import Engine
from fuseki.arena.outcome import Forfeit
from fuseki.engines.programs import resolve_command
from fuseki.go.coords import CoordinateError
from fuseki.go.state import Color, GameState, Move

__all__ = ["GtpAgent"]


class GtpAgent:
    """An outside GTP engine behind the :class:`~fuseki.agents.base.Agent` protocol.

    Built on the match runner's :class:`~fuseki.arena.gtp_engines.Engine`: it is
    started on first use and restarted after a failure, and every failure
    (a crash, a hang past ``move_time``, a refused command, an answer that is
    not a move) raises :class:`~fuseki.arena.outcome.Forfeit` for the side it
    plays. Before each ``genmove`` it brings the engine up to date: the
    opponent's new moves are sent with ``play``; a position from another game
    starts the engine afresh (board size, ``clear_board``, komi, the moves).
    """

    #: The engine passes and resigns by itself; no wrapper should decide for it.
    self_terminating = True

    def __init__(
        self,
        command: str,
        *,
        label: str = "gtp",
        move_time: float = 10.0,
        setup_timeout: float = 30.0,
        clock: bool = False,
    ) -> None:
        self.engine = Engine(label, resolve_command(command), setup_timeout)
        self.move_time = float(move_time)
        self.clock = clock
        self.label = label
        self._root: GameState | None = None
        self._known: list[Move] = []
        self._starts = 0  #: the engine's start count when it last learnt the position

    @property
    def name(self) -> str:
        return self.engine.name

    def _sync(self, state: GameState, color: Color) -> None:
        line = list(state.ancestors())[::-1]
        moves = [child.move_played() for child in line[1:]]
        # A restarted process knows nothing; another game's position needs a new board.
        restarted = self.engine.client is None or not self.engine.client.is_alive or self.engine.starts != self._starts
        fresh = restarted or self._root is not line[0] or moves[: len(self._known)] != self._known
        if fresh:
            self.engine.setup(
                color,
                size=state.size,
                komi=state.rules.komi,
                move_time=self.move_time,
                handicap=state.handicap,
                clock=self.clock,
            )
            self._root, self._known, self._starts = line[0], [], self.engine.starts
        for parent, move in zip(line[len(self._known) : -1], moves[len(self._known) :], strict=True):
            vertex = move.gtp(state.size)
            self.engine.call(color, lambda gtp, c=parent.next_player, v=vertex: gtp.play(c, v))
            self._known.append(move)

    def select_move(self, state: GameState) -> Move:
        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        color = state.next_player
        self._sync(state, color)
        reply = self.engine.call(color, lambda gtp: gtp.genmove(color, timeout=self.move_time))
        try:
            move = Move.from_gtp(reply, state.size)
        except (CoordinateError, ValueError) as e:
            raise Forfeit(color, f"answered genmove with {reply[:40]!r}: {e}") from None
        self._known.append(move)
        return move

    def stop(self) -> None:
        """End the engine process (it is restarted, fresh, on the next move)."""
        self.engine.stop()
        self._root, self._known = None, []
