"""A GTP engine as one side of a game: :class:`Engine`.

An outside program can crash, hang, refuse a command or answer nonsense at
any moment. :class:`Engine` keeps its command line, starts it on first use
and again after a failure, and turns every failure into a
:class:`~fuseki.arena.outcome.Forfeit` by the colour it plays, so that a
driver (a match, an evaluation, the corpus generator) records a lost game
instead of stopping.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from typing import Any

from fuseki.arena.outcome import Forfeit
from fuseki.engines.gtp_client import (
    GtpClient,
    GtpClientError,
    GtpEngineDied,
    GtpError,
    GtpProtocolError,
    GtpTimeout,
)
from fuseki.go.state import Color

__all__ = ["SEED_PLACEHOLDER", "Engine", "describe_failure", "fill_seed", "new_game"]

#: Written in an engine's command line, it is replaced by a seed for each game
#: (``michi -z{seed} gtp``, ``fuseki gtp --seed {seed}``): GTP has no standard
#: seed command, and an engine started once per match with one seed plays
#: every game from the same random stream.
SEED_PLACEHOLDER = "{seed}"


def fill_seed(argv: list[str], seed: int) -> list[str]:
    """``argv`` with every :data:`SEED_PLACEHOLDER` replaced by ``seed`` (inside words too)."""
    return [word.replace(SEED_PLACEHOLDER, str(int(seed))) for word in argv]


def describe_failure(e: GtpClientError) -> str:
    if isinstance(e, GtpTimeout):
        return f"no answer to {e.command!r} within {e.timeout:g} s (hung; killed)"
    if isinstance(e, GtpEngineDied):
        first = str(e).splitlines()[0]
        return f"crashed: {first}"
    if isinstance(e, GtpProtocolError):
        return f"broke the protocol: {e}"
    if isinstance(e, GtpError):
        return f"answered {e.command!r} with a failure: ? {e.message}"
    return f"stopped answering: {e}"


def new_game(gtp: GtpClient, size: int, komi: float, handicap: int) -> None:
    """``boardsize``, ``clear_board``, ``komi`` and, with a handicap, ``fixed_handicap``."""
    gtp.boardsize(size)
    gtp.clear_board()
    gtp.komi(komi)
    if handicap:
        gtp.send(f"fixed_handicap {handicap}")


class Engine:
    """One side of a game: its command line and, while it runs, its client.

    ``label`` names it in forfeit reasons (``"A"``, ``"B"``, ``"black"``).
    ``setup_timeout`` bounds every command but ``genmove`` (start-up included).
    """

    def __init__(self, label: str, argv: list[str], setup_timeout: float) -> None:
        self.label = label  # "A", "B", "black", ...
        #: The command as given; with :data:`SEED_PLACEHOLDER` in it, :meth:`reseed` fills it per game.
        self.template = list(argv)
        self.argv = list(argv)
        self.setup_timeout = setup_timeout
        self.client: GtpClient | None = None
        self.display_name: str | None = (
            None  # "GNU Go 3.8", learnt on the first start that answers
        )
        self.starts = 0

    def ensure(self) -> GtpClient:
        """The running client; starts (or restarts) the engine when needed. OSError if it cannot start."""
        if self.client is None or not self.client.is_alive:
            self.stop()
            self.client = GtpClient(self.argv, timeout=self.setup_timeout)
            self.starts += 1
            if self.display_name is None:
                try:
                    name = self.client.name().strip()
                    try:
                        version = self.client.version().strip()
                    except GtpError:
                        version = ""
                    self.display_name = f"{name} {version}".strip() or shlex.join(
                        self.template
                    )
                except GtpClientError:
                    pass  # the game will find out; the name stays unknown for now
        return self.client

    @property
    def seeded(self) -> bool:
        """True when the command holds :data:`SEED_PLACEHOLDER`, so each game can get its own seed."""
        return any(SEED_PLACEHOLDER in word for word in self.template)

    def reseed(self, seed: int) -> None:
        """Fill the seed placeholder for the next game, restarting the engine when its command changes.

        A command without the placeholder is left alone (and keeps running).
        """
        if not self.seeded:
            return
        argv = fill_seed(self.template, seed)
        if argv != self.argv:
            self.stop()
            self.argv = argv

    @property
    def name(self) -> str:
        return self.display_name or shlex.join(self.template)

    def stop(self) -> None:
        if self.client is not None:
            self.client.close(timeout=1.0)
            self.client = None

    def call(self, color: Color, what: Callable[[GtpClient], Any]) -> Any:
        """Run ``what`` on the (started) engine; any failure is a :class:`Forfeit` by ``color``."""
        try:
            client = self.ensure()
        except OSError as e:
            raise Forfeit(color, f"could not be started: {e}") from None
        try:
            return what(client)
        except GtpClientError as e:
            raise Forfeit(color, describe_failure(e)) from None

    def setup(
        self,
        color: Color,
        *,
        size: int,
        komi: float,
        move_time: float,
        handicap: int = 0,
        clock: bool = False,
        time_settings: list[str] | None = None,
    ) -> None:
        """Start a game: board size, empty board, komi, fixed handicap, and the clock.

        With ``clock``, ``time_settings 0 T 1`` (T = ``move_time``, the
        timeout only). ``time_settings`` is a real clock's commands, best
        first (:meth:`fuseki.arena.clock.GameClock.settings_commands`): the
        first the engine accepts is kept. A failure is a :class:`Forfeit` by
        ``color``; an engine that knows no time command just ignores the
        clock. Without either no time command is sent, so an engine plays at
        its own fixed strength (see :attr:`fuseki.arena.match.MatchSettings.clock`
        for why that matters with GNU Go).
        """
        commands = list(time_settings or ())
        if clock and not commands:
            commands = [f"time_settings 0 {max(1, math.ceil(move_time))} 1"]

        def setup(gtp: GtpClient) -> None:
            new_game(gtp, size, komi, handicap)
            for command in commands:
                try:  # optional: an engine that does not know it just ignores the clock
                    gtp.send(command)
                    return
                except GtpError:
                    continue

        self.call(color, setup)
