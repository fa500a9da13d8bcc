"""How often does our dead-stone scoring agree with GNU Go's ``final_score``?

Games between two of the book's random bots (``make_agent("random")``) are
played to the end (two passes) under Chinese rules (area scoring, positional
superko, no suicide) and komi 7.5. Each finished game is counted three ways:

- ``ours``: ``state.score(dead=dead_stones(state, playouts=...))``, the G8
  estimate that our GTP engine's ``final_score`` uses;
- ``plain``: ``state.score()``, every stone alive (Tromp-Taylor), for reference;
- GNU Go: the moves are replayed into ``gnugo --mode gtp --chinese-rules``
  with ``play``, then ``final_score``.

A result agrees on the *winner* when both name the same side (or both a draw),
and *exactly* when the result strings are equal (``"B+12.5"``).

>>> r = score_agreement(3, size=9, seed=0, playouts=100)  # doctest: +SKIP
>>> r["games"], r["same_winner"] <= 3
(3, True)
"""

from __future__ import annotations

import shlex
import time
from typing import Any

from fuseki.agents import make_agent
from fuseki.go.ownership import dead_stones
from fuseki.go.state import Color, GameState, Move
from fuseki.engines.gtp_client import GtpClient, GtpError

__all__ = ["GNUGO", "play_random_game", "score_agreement"]

#: The referee command (the Debian package's binary).
GNUGO = "/usr/games/gnugo --mode gtp --chinese-rules"


def play_random_game(size: int, seed: int, *, komi: float = 7.5, max_moves: int | None = None) -> GameState:
    """One game between two of the book's random bots, to two passes (or ``max_moves``)."""
    black = make_agent("random", seed=2 * seed)
    white = make_agent("random", seed=2 * seed + 1)
    state = GameState.new(size, rules="chinese", komi=komi)
    cap = max_moves if max_moves is not None else 6 * size * size
    while not state.is_over() and state.move_number < cap:
        bot = black if state.next_player is Color.BLACK else white
        state = state.play(bot.select_move(state))
    return state


def _winner(result: str) -> str:
    result = result.strip().upper()
    return result[0] if result[:1] in ("B", "W") else "0"


def _norm(result: str) -> str:
    """``"B+12.0"`` -> ``"B+12"``: GNU Go and we may print numbers differently."""
    result = result.strip().upper()
    if result[:2] in ("B+", "W+"):
        try:
            return f"{result[:2]}{float(result[2:]):g}"
        except ValueError:
            return result
    return "0" if result in ("0", "DRAW") else result


def score_agreement(
    games: int = 200,
    size: int = 9,
    seed: int = 0,
    playouts: int = 200,
    *,
    komi: float = 7.5,
    stop_at: int | None = None,
    gnugo: str = GNUGO,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Play ``games`` random-bot games and compare our counts with GNU Go's.

    Returns counts: ``games`` (scored by both), ``same_winner``,
    ``same_score`` (exact result), the same two for ``plain`` (no dead
    stones removed), ``errors`` (games GNU Go refused), ``seconds`` and up to
    20 ``disagreements`` as ``{"game", "ours", "plain", "gnugo", "dead"}``.
    Game ``i`` uses seed ``seed + i``, so a run is reproducible.

    ``stop_at``: end each game after that many moves with two passes, leaving
    unsettled groups and dead stones on the board (the harder test: random
    bots that play to the end leave only single-point eyes, so every stone
    is alive and any count agrees).
    """
    out: dict[str, Any] = {
        "games": 0,
        "size": size,
        "komi": komi,
        "playouts": playouts,
        "stop_at": stop_at,
        "same_winner": 0,
        "same_score": 0,
        "plain_same_winner": 0,
        "plain_same_score": 0,
        "errors": 0,
        "disagreements": [],
    }
    t0 = time.perf_counter()
    with GtpClient(shlex.split(gnugo), timeout=timeout) as gtp:
        for i in range(games):
            state = play_random_game(size, seed + i, komi=komi, max_moves=stop_at)
            while not state.is_over():
                state = state.play(Move.pass_turn())
            try:
                gtp.boardsize(size)
                gtp.clear_board()
                gtp.komi(komi)
                for is_black, move in zip(_colors_of(state), state.moves()):
                    gtp.play("black" if is_black else "white", move.gtp(size))
                theirs = _norm(gtp.final_score())
            except GtpError:
                out["errors"] += 1
                continue
            dead = dead_stones(state, playouts=playouts, seed=seed + i)
            ours = _norm(state.score(dead=dead).result)
            plain = _norm(state.score().result)
            out["games"] += 1
            out["same_winner"] += _winner(ours) == _winner(theirs)
            out["same_score"] += ours == theirs
            out["plain_same_winner"] += _winner(plain) == _winner(theirs)
            out["plain_same_score"] += plain == theirs
            if ours != theirs and len(out["disagreements"]) < 20:
                out["disagreements"].append(
                    {"game": seed + i, "ours": ours, "plain": plain, "gnugo": theirs, "dead": len(dead)}
                )
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def _colors_of(state: GameState) -> list[bool]:
    """True for Black, per move from the root (moves alternate; handicap games start with White)."""
    first_black = state.root().next_player is Color.BLACK
    return [(k % 2 == 0) == first_black for k in range(state.move_number)]
