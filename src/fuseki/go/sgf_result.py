"""Game results (SGF ``RE``, GTP ``final_score``) in every form servers write.

FF[4] writes ``B+3.5``, ``W+R`` (``W+Resign``), ``B+T`` (``B+Time``), ``W+F``
(``W+Forfeit``), ``0`` or ``Draw`` for a draw, ``Void`` for no result and
``?`` for an unknown one. Servers add their own: lower case (``b+r``,
``draw``), a score in quarter stones under Chinese counting (``B+0.25``), a
bare winner (``B+``), ``Jigo``. :func:`read_result` reads them all;
:func:`parse_result` is the narrower question "who won, and how", asked of
games that have a winner or are drawn.

>>> read_result("W+12.5")
GameResult(winner=<Color.WHITE: 2>, kind='score', margin=12.5)
>>> read_result("void").kind, read_result("?").kind, read_result("b+0.25").margin
('void', 'unknown', 0.25)
"""

from __future__ import annotations

import re
from typing import NamedTuple

from fuseki.go.state import Color

__all__ = ["RESULT_KINDS", "GameResult", "parse_result", "read_result"]

#: What a result can say: a winner by one of the first four, a draw, no game, or nothing known.
RESULT_KINDS = ("score", "resign", "time", "forfeit", "draw", "void", "unknown")

#: ``B+3.5``, ``W+R`` or ``W+Resign``, ``B+T`` or ``B+Time``, ``W+F`` or ``W+Forfeit``, ``B+`` (no margin).
_WIN = re.compile(r"\A([BW])\s*\+\s*(Resign|Forfeit|Time|R|F|T|\d+(?:\.\d+)?|\.\d+)?\Z", re.IGNORECASE)
_DRAWS = frozenset({"0", "draw", "jigo", "d"})
_VOID = frozenset({"void", "no result", "noresult"})
_UNKNOWN = frozenset({"?", "unknown", "unfinished"})


class GameResult(NamedTuple):
    """A result: the winner (``None`` for a draw, a void or an unknown result), how, and the margin.

    ``margin`` is the score difference for ``kind == "score"`` (in the unit the
    file writes: points, or stones under Chinese counting on some servers),
    0 for a draw, else ``None``.
    """

    winner: Color | None
    kind: str
    margin: float | None = None


def read_result(text: str) -> GameResult:
    """Any result a server writes -> :class:`GameResult`; ``ValueError`` for anything else (and empty).

    A score of 0 (``B+0``) is a draw.

    >>> read_result("B+R"), read_result("Draw")
    (GameResult(winner=<Color.BLACK: 1>, kind='resign', margin=None), GameResult(winner=None, kind='draw', margin=0.0))
    """
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered in _DRAWS:
        return GameResult(None, "draw", 0.0)
    if lowered in _VOID:
        return GameResult(None, "void")
    if lowered in _UNKNOWN:
        return GameResult(None, "unknown")
    m = _WIN.match(stripped)
    if m is None:
        raise ValueError(f"not a game result: {text!r}")
    winner = Color.BLACK if m.group(1).upper() == "B" else Color.WHITE
    tail = m.group(2) or ""
    if tail[:1].isdigit() or tail[:1] == ".":
        margin = float(tail)
        return GameResult(None, "draw", 0.0) if margin == 0 else GameResult(winner, "score", margin)
    kind = {"R": "resign", "F": "forfeit", "T": "time"}.get(tail[:1].upper(), "score")
    return GameResult(winner, kind)


def parse_result(result: str) -> tuple[Color | None, str]:
    """An SGF/GTP result of a finished game -> (winner or ``None`` for a draw, kind).

    Kinds: ``"score"``, ``"resign"``, ``"forfeit"``, ``"time"``, ``"draw"``.
    Raises ``ValueError`` for a result with neither a winner nor a draw
    (``"?"``, ``"Void"``, empty) and for anything that is no result: the
    match code asks this of the games it played, which must have one.
    :func:`read_result` reads those too.

    >>> parse_result("W+7.5"), parse_result("B+F"), parse_result("0"), parse_result("W+Resign")
    ((<Color.WHITE: 2>, 'score'), (<Color.BLACK: 1>, 'forfeit'), (None, 'draw'), (<Color.WHITE: 2>, 'resign'))
    """
    read = read_result(result)
    if read.kind in ("void", "unknown"):
        raise ValueError(f"not a finished game's result: {result!r}")
    return read.winner, read.kind
