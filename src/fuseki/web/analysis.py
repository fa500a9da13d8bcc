"""The bot's opinion of a position, for the review page: win rate, top moves, ownership (spec row B6, issue 22).

Each function here runs in the analysis worker (a pool of its own, so an
analysis never holds up a bot's move) and takes plain data: the source of the
position (an SGF's bytes, or a web game's settings and moves) and its number.

An analysis is run in **steps** (:func:`analyze_step`) of a fraction of a
second each. The server calls the worker step after step until the time asked
for is spent, and stops between two steps when the request was superseded
(the page stepped on) or its client went away; so analyses never queue up
behind one another. Each *channel* (one page, or one page's graph) keeps its
own :class:`~fuseki.search.go.gomcts.GoMCTS` engine in the worker: the steps
of one analysis grow one tree, and stepping through a game reuses the subtree
of the move played, even while other channels' steps run in between.

Win rates are fractions in [0, 1]. :func:`analyze_step` reports them for the
player to move (as GTP's ``lz-analyze`` does); :func:`winrate_at` reports
Black's, so that a graph over a game reads one way. Ownership is Black's: +1
a point Black owns at the end of every playout of the search, -1 White's.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from typing import Any

import numpy as np

from fuseki.go.coords import from_index, to_gtp
from fuseki.go.ownership import dead_stones
from fuseki.go.sgf import read_sgf
from fuseki.go.state import Color, GameState
from fuseki.web.games import replay, settings_from_json

__all__ = [
    "STEP_SECONDS",
    "TOP_MOVES",
    "analyze_step",
    "mistakes",
    "position",
    "winrate_at",
    "winrate_budget",
]

#: How many root moves an analysis lists.
TOP_MOVES = 10
#: The longest step of an analysis (seconds): how long a superseded analysis can still hold the worker.
STEP_SECONDS = 0.25
#: Work caps for a whole-game win-rate graph.
MAX_PLAYOUTS_PER_POSITION = 5_000
MAX_TOTAL_PLAYOUTS = 100_000
MAX_TOTAL_SECONDS = 30.0
#: Tree rows for each channel's engine (about 44 bytes each): 23 MB.
CAPACITY = 1 << 19
#: Channels whose engines a worker keeps, and parsed games.
CHANNELS = 4
GAMES = 8
#: A win-rate drop (for the player who moved) at least this large is a mistake on the graph.
MISTAKE_DROP = 0.05
MAX_MISTAKES = 5


class _Channel:
    """One channel's engine and the analysis it is running: its root, and the ownership summed over its steps."""

    def __init__(self) -> None:
        from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

        self.engine = GoMCTS(MCTSConfig(capacity=CAPACITY))
        self.key: Any = None
        self.own: np.ndarray | None = None
        self.playouts = 0
        self.seconds = 0.0


_CHANNELS: "OrderedDict[str, _Channel]" = OrderedDict()
_GAMES: "OrderedDict[str, list[GameState]]" = OrderedDict()


def _channel(name: str) -> _Channel:
    ch = _CHANNELS.get(name)
    if ch is None:
        ch = _CHANNELS[name] = _Channel()
        while len(_CHANNELS) > CHANNELS:
            _CHANNELS.popitem(last=False)
    _CHANNELS.move_to_end(name)
    return ch


def _review_states(sgf: bytes) -> list[GameState]:
    """Every position of an SGF game, parsed once per worker (the steps of an analysis send the same bytes)."""
    key = hashlib.sha1(sgf).hexdigest()
    states = _GAMES.get(key)
    if states is None:
        states = _GAMES[key] = list(read_sgf(sgf).states())
        while len(_GAMES) > GAMES:
            _GAMES.popitem(last=False)
    _GAMES.move_to_end(key)
    return states


def position(source: tuple[Any, ...], n: int | None = None) -> GameState:
    """The position an analysis is about: ``("sgf", bytes)`` and its move ``n``, or ``("game", settings, moves)``."""
    if source[0] == "sgf":
        states = _review_states(source[1])
        return states[len(states) - 1 if n is None else n]
    if source[0] == "game":
        return replay(settings_from_json(source[1]), list(source[2]))
    raise ValueError(f"unknown analysis source {source[0]!r}")


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 4)


def analyze_step(
    channel: str, source: tuple[Any, ...], n: int | None, seconds: float, fresh: bool
) -> dict[str, Any]:
    """Search the position for ``seconds`` more on ``channel``'s engine; the analysis so far.

    ``fresh`` starts a new analysis (the ownership and the counts start from
    zero; the tree keeps what it knows of this position). The answer holds the
    win rate for the player to move, up to :data:`TOP_MOVES` moves by visits,
    the ownership (Black's, one row of floats per board row, top first) and
    the playouts and seconds of this analysis so far.
    """
    state = position(source, n)
    if state.is_over():
        raise ValueError("the game is over at this position: there is nothing to analyze")
    ch = _channel(channel)
    key = (source[0], hashlib.sha1(repr(source[1:]).encode()).hexdigest() if source[0] == "game" else
           hashlib.sha1(source[1]).hexdigest(), n)
    if fresh or ch.key != key:
        ch.key, ch.own, ch.playouts, ch.seconds = key, None, 0, 0.0
    info = ch.engine.search(state, seconds=seconds)
    size = state.size
    own = np.asarray(info.ownership, dtype=np.float64) * info.playouts
    ch.own = own if ch.own is None else ch.own + own
    ch.playouts += info.playouts
    ch.seconds += info.seconds
    top = []
    for child in info.children[:TOP_MOVES]:
        if child.visits <= 0:
            break
        vertex = "pass" if child.move == size * size else to_gtp(from_index(child.move, size), size)
        top.append({"vertex": vertex, "visits": child.visits, "winrate": _finite(child.winrate)})
    ownership = (ch.own / max(ch.playouts, 1)).reshape(size, size)
    return {
        "winrate": _finite(info.winrate),
        "to_move": state.next_player.name.lower(),
        "top": top,
        "ownership": [[round(float(x), 2) for x in row] for row in ownership],
        "playouts": ch.playouts,
        "seconds": round(ch.seconds, 3),
    }


def _root_value(info: Any) -> float | None:
    """The position's value for the player to move: child win rates weighted by visits.

    With few playouts the best child's win rate is biased upwards (the
    maximum of noisy estimates), so each side would seem to be winning in
    turn; the visit-weighted mean is the root's own estimate.
    """
    visits = sum(c.visits for c in info.children if c.visits > 0)
    if visits == 0:
        return None
    return round(sum(c.visits * c.winrate for c in info.children if c.visits > 0) / visits, 4)


def winrate_budget(positions: int, playouts: int) -> tuple[int, float]:
    """Playouts and seconds per position so that the whole graph stays within the caps."""
    per = max(1, min(playouts, MAX_PLAYOUTS_PER_POSITION, MAX_TOTAL_PLAYOUTS // max(positions, 1)))
    return per, max(0.01, MAX_TOTAL_SECONDS / max(positions, 1))


def winrate_at(channel: str, sgf: bytes, n: int, playouts: int, seconds: float) -> dict[str, Any]:
    """Black's win rate at position ``n`` of an SGF game after a search step of ``playouts`` (or ``seconds``).

    The channel's engine keeps its tree, so further steps on the same position
    add to it; the answer is ``{"winrate", "playouts", "seconds", "final"}``
    (``playouts`` and ``seconds`` of this step; ``final`` when no search is
    needed). A finished position (two passes at the end) gets the counted
    result: 1, 0 or 0.5 for a draw, dead stones removed.
    """
    state = _review_states(sgf)[n]
    if state.is_over():
        winner = state.score(dead=dead_stones(state, seed=0)).winner
        return {"winrate": 0.5 if winner is None else float(winner is Color.BLACK), "playouts": 0, "seconds": 0.0,
                "final": True}
    info = _channel(channel).engine.search(state, playouts=playouts, seconds=seconds)
    w = _root_value(info)
    black = None if w is None else (w if state.next_player is Color.BLACK else round(1.0 - w, 4))
    return {"winrate": black, "playouts": info.playouts, "seconds": info.seconds, "final": False}


def mistakes(winrates: list[float | None], colors: list[str]) -> list[dict[str, Any]]:
    """The moves after which the mover's win rate fell most: ``{"n", "color", "drop"}``, largest first.

    ``winrates`` are Black's at positions 0..N, ``colors`` the colour of moves
    1..N. Only drops of at least :data:`MISTAKE_DROP` count, at most
    :data:`MAX_MISTAKES` of them.

    >>> for m in mistakes([0.5, 0.52, 0.8, 0.3, 0.9], ["black", "white", "black", "white"]):
    ...     print(m)
    {'n': 4, 'color': 'white', 'drop': 0.6}
    {'n': 3, 'color': 'black', 'drop': 0.5}
    {'n': 2, 'color': 'white', 'drop': 0.28}
    """
    found = []
    for i, color in enumerate(colors, start=1):
        before, after = winrates[i - 1], winrates[i] if i < len(winrates) else None
        if before is None or after is None:
            continue
        drop = (before - after) if color == "black" else (after - before)
        if drop >= MISTAKE_DROP:
            found.append({"n": i, "color": color, "drop": round(drop, 4)})
    found.sort(key=lambda m: (-m["drop"], m["n"]))
    return found[:MAX_MISTAKES]
