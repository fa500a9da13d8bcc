"""The bot's opinion of a position, for the review page: win rate and top moves (spec row B6).

Each function here runs in a worker process and takes plain data (the SGF
bytes, the game's settings and moves), so the MCTS search never blocks the
web server. One :class:`~fuseki.search.go.gomcts.GoMCTS` engine is kept per
worker; walking through a game one position at a time reuses its tree.

Win rates are fractions in [0, 1]. :func:`analyze_state` reports them for the
player to move (as GTP's ``lz-analyze`` does); :func:`winrates` reports
Black's, so that a graph over a game reads one way.
"""

from __future__ import annotations

import math
from typing import Any

from fuseki.go.coords import from_index, to_gtp
from fuseki.go.ownership import dead_stones
from fuseki.go.sgf import read_sgf
from fuseki.go.state import Color
from fuseki.web.games import replay, settings_from_json

__all__ = ["analyze_state", "analyze_game", "analyze_review", "winrates", "winrate_budget", "TOP_MOVES"]

#: How many root moves an analysis lists.
TOP_MOVES = 10
#: Work caps for a whole-game win-rate graph.
MAX_PLAYOUTS_PER_POSITION = 5_000
MAX_TOTAL_PLAYOUTS = 100_000
MAX_TOTAL_SECONDS = 30.0
#: Tree rows for the analysis engine (about 44 bytes each): 46 MB.
CAPACITY = 1 << 20

_ENGINE: Any = None


def _engine() -> Any:
    global _ENGINE
    if _ENGINE is None:
        from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

        _ENGINE = GoMCTS(MCTSConfig(capacity=CAPACITY))
    return _ENGINE


def analyze_state(state: Any, *, seconds: float | None = None, playouts: int | None = None) -> dict[str, Any]:
    """Search ``state`` and report the win rate for the player to move and the most visited moves."""
    if state.is_over():
        raise ValueError("the game is over at this position: there is nothing to analyze")
    info = _engine().search(state, seconds=seconds, playouts=playouts)
    n = state.size
    top = []
    for child in info.children[:TOP_MOVES]:
        if child.visits <= 0:
            break
        vertex = "pass" if child.move == n * n else to_gtp(from_index(child.move, n), n)
        top.append({"vertex": vertex, "visits": child.visits, "winrate": _finite(child.winrate)})
    return {
        "winrate": _finite(info.winrate),
        "to_move": state.next_player.name.lower(),
        "top": top,
        "playouts": info.playouts,
        "seconds": round(info.seconds, 3),
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


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 4)


def analyze_game(settings_data: dict[str, Any], moves: list[str], seconds: float) -> dict[str, Any]:
    """:func:`analyze_state` on the current position of a web game."""
    return analyze_state(replay(settings_from_json(settings_data), moves), seconds=seconds)


def _review_states(sgf: bytes) -> list[Any]:
    return list(read_sgf(sgf).states())


def analyze_review(sgf: bytes, n: int, seconds: float) -> dict[str, Any]:
    """:func:`analyze_state` on the position after ``n`` moves of an SGF game."""
    states = _review_states(sgf)
    return analyze_state(states[n], seconds=seconds)


def winrate_budget(positions: int, playouts: int) -> tuple[int, float]:
    """Playouts and seconds per position so that the whole graph stays within the caps."""
    per = max(1, min(playouts, MAX_PLAYOUTS_PER_POSITION, MAX_TOTAL_PLAYOUTS // max(positions, 1)))
    return per, max(0.01, MAX_TOTAL_SECONDS / max(positions, 1))


def winrates(sgf: bytes, playouts: int) -> dict[str, Any]:
    """Black's win rate at every position of an SGF game (0 = before the first move).

    A finished position (two passes at the end) gets the counted result: 1,
    0 or 0.5 for a draw, dead stones removed.
    """
    states = _review_states(sgf)
    per, seconds = winrate_budget(len(states), playouts)
    out: list[float | None] = []
    for state in states:
        if state.is_over():
            winner = state.score(dead=dead_stones(state, seed=0)).winner
            out.append(0.5 if winner is None else float(winner is Color.BLACK))
            continue
        info = _engine().search(state, playouts=per, seconds=seconds)
        w = _root_value(info)
        out.append(None if w is None else (w if state.next_player is Color.BLACK else round(1.0 - w, 4)))
    return {"winrates": out, "playouts": per}
