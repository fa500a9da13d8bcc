"""Where the dead-stone labels come from: GNU Go's ``final_status_list``, or marks in an SGF file (spec T3).

The thesis learnt from KGS games whose players had marked the dead stones when
they agreed the score. There is no KGS here, so we have two sources:

- **GNU Go** (:class:`GnuGoLabeller`). A finished game is replayed into
  ``gnugo --mode gtp`` and ``final_status_list dead`` names the dead stones.
  GNU Go's end-of-game status is the strongest estimate available offline, and
  it is the reference our GTP engine is compared with, but it is an *engine's*
  judgement, not the players' agreement, so labels can be wrong in unsettled
  positions (see docs/deadstones.md).
- **Marks in the SGF** (:func:`marked_dead_points`). Servers write the agreed
  result in the last node: ``TB``/``TW`` (territory of Black/White, which on
  KGS and OGS includes the points of dead stones) and sometimes ``DD``. A
  white stone on a ``TB`` point, or a black one on a ``TW`` point, is dead.

A block's label is *dead* when most of its stones are named dead; a block
split by the labeller (which should never happen) is counted so that the
caller can report it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from fuseki.engines.gtp_client import GtpClient, GtpClientError
from fuseki.engines.programs import resolve_command
from fuseki.go.coords import Point, from_gtp, to_gtp
from fuseki.go.sgf import read_points

if TYPE_CHECKING:
    from fuseki.engines.gtp_client import GtpClient
    from fuseki.go.sgf import GameRecord
    from fuseki.go.state import GameState

__all__ = ["DEFAULT_GNUGO", "GnuGoLabeller", "block_labels", "marked_dead_points", "parse_vertices"]

#: The labelling engine: GNU Go's default level; ``final_status_list`` does its own reading.
DEFAULT_GNUGO = "gnugo --mode gtp --chinese-rules"


def parse_vertices(reply: str, size: int) -> frozenset[Point]:
    """The points of a GTP vertex list (``final_status_list`` answers one string per line, vertices by spaces).

    >>> sorted(parse_vertices("A1 B2\\nC3", 5))
    [Point(row=2, col=2), Point(row=3, col=1), Point(row=4, col=0)]
    """
    points = set()
    for token in reply.split():
        point = from_gtp(token, size)
        if point is None:
            raise ValueError(f"{token!r} is not a board point in a vertex list")
        points.add(point)
    return frozenset(points)


class GnuGoLabeller:
    """Replays finished games into one GNU Go process and asks which stones are dead.

    The engine is started on first use and again after a failure, so one bad
    game does not end a long run. Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, command: str = DEFAULT_GNUGO, *, timeout: float = 60.0) -> None:
        self.argv = resolve_command(command)
        self.timeout = timeout
        self._client: GtpClient | None = None
        #: ``name`` and ``version`` of the engine, once it has run.
        self.engine = ""

    def _engine(self) -> "GtpClient":
        if self._client is None or not self._client.is_alive:
            self._client = GtpClient(self.argv, timeout=self.timeout)
            self.engine = f"{self._client.name()} {self._client.version()}"
        return self._client

    def dead_points(self, state: "GameState") -> frozenset[Point]:
        """GNU Go's dead stones in the final position of the game that led to ``state``.

        Setup stones (handicap or ``AB``/``AW``) are sent with ``set_free_handicap``
        when they are all black and White is to move, as handicap games are;
        any other setup raises ``ValueError``. Engine trouble raises
        :class:`~fuseki.engines.gtp_client.GtpClientError` or ``OSError`` and restarts
        the engine for the next call.
        """
        line = list(state.ancestors())[::-1]
        root = line[0]
        black, white = _stones(root)
        if white or (black and root.next_player.name != "WHITE"):
            raise ValueError("the game starts from a setup position that GTP cannot send")
        try:
            gtp = self._engine()
            gtp.boardsize(state.size)
            gtp.clear_board()
            gtp.komi(state.rules.komi)
            if black:
                gtp.send("set_free_handicap " + " ".join(to_gtp(p, state.size) for p in sorted(black)))
            for parent, child in itertools.pairwise(line):
                move = child.move_played()
                if move.is_resign:
                    break
                gtp.play(parent.next_player, move.gtp(state.size))
            return parse_vertices(gtp.send("final_status_list dead"), state.size)
        except (OSError, GtpClientError):
            self.close()
            raise

    def close(self) -> None:
        if self._client is not None:
            self._client.close(timeout=1.0)
            self._client = None

    def __enter__(self) -> "GnuGoLabeller":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stones(state: "GameState") -> tuple[list[Point], list[Point]]:
    """(black, white) stones on the board of ``state``."""
    import numpy as np

    board = state.stones()
    rows, cols = np.nonzero(board == 1)
    black = [Point(int(r), int(c)) for r, c in zip(rows, cols)]
    rows, cols = np.nonzero(board == 2)
    white = [Point(int(r), int(c)) for r, c in zip(rows, cols)]
    return black, white


def marked_dead_points(record: "GameRecord", state: "GameState") -> frozenset[Point] | None:
    """Dead stones from the marks in the last node of ``record``'s main line, or ``None`` if it has none.

    ``DD`` points holding a stone are dead. A white stone on a ``TB`` point or a
    black stone on a ``TW`` point is dead (KGS and OGS count the points of
    dead stones as the capturer's territory). ``state`` is the final position.
    """
    tree = record.tree
    if tree is None:
        return None
    last = tree.get_root()
    while len(last):  # the main line: first child at each step (a leaf node is falsy in sgfmill)
        last = last[0]
    props = {ident: last.get_raw_list(ident) for ident in ("TB", "TW", "DD") if last.has_property(ident)}
    if not props:
        return None

    board = state.stones()
    dead: set[Point] = set()
    for ident, owner_of_dead in (("TB", 2), ("TW", 1), ("DD", 0)):
        if ident not in props:
            continue
        for p in read_points(last, ident):
            stone = int(board[p.row, p.col])
            if stone and (owner_of_dead == 0 or stone == owner_of_dead):
                dead.add(p)
    return frozenset(dead)


def block_labels(blocks: Iterable[Iterable[Point]], dead: frozenset[Point]) -> tuple[list[bool], int]:
    """(dead or not for each block, how many blocks the labeller split): dead when most of its stones are."""
    labels = []
    split = 0
    for points in blocks:
        pts = list(points)
        named = sum(p in dead for p in pts)
        if 0 < named < len(pts):
            split += 1
        labels.append(2 * named > len(pts))
    return labels, split
