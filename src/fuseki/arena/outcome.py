"""What games end as: :class:`Forfeit`, :class:`PlayedGame`, :class:`GameOutcome` and the tallies.

A game between two sides A and B (a match of GTP engines, an evaluation of
agents) ends as a :class:`PlayedGame` (the final position, its result and
how it ended) or by a :class:`Forfeit` of one colour. The driver turns that
into a :class:`GameOutcome` from A's and B's point of view; a
:class:`MatchSummary` sums the outcomes (wins, draws, forfeits, A's win rate
with a Wilson 95 % interval) and an :class:`EvalSummary` adds what the record
says (binomial test, Elo). These records are shared by ``fuseki match``,
``fuseki eval`` and the RL loop, so they live apart from the drivers.

>>> [round(x, 4) for x in MatchSummary((), "A", "B").ci95]
[0.0, 1.0]
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Iterable
from typing import Any, NamedTuple

from fuseki.go.state import Color, GameState
from fuseki.util.progress import Progress
from fuseki.util.stats import (
    binomial_test,
    clip_score,
    elo_difference,
    elo_interval,
    wilson_interval,
)

__all__ = [
    "EvalSummary",
    "Forfeit",
    "PlayerForfeit",
    "TimeLoss",
    "GameOutcome",
    "MatchSummary",
    "PairResult",
    "moves_digest",
    "PlayedGame",
    "a_color",
    "game_progress",
    "side_of",
]


class PlayerForfeit(Exception):
    """Raised by a player (or the game loop): player ``player`` (0 or 1) loses by forfeit for ``reason``.

    Any game's player can fail (an outside engine crashes, a network file is
    unreadable mid-game); the loop (:func:`fuseki.arena.loop.play_game`)
    turns this into an outcome with ``reason="forfeit"`` instead of a crash.
    """

    def __init__(self, player: int, reason: str) -> None:
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player!r}")
        super().__init__(reason)
        self.player = player
        self.reason = reason


class Forfeit(PlayerForfeit):
    """Raised inside a Go game: ``color`` loses by forfeit for ``reason`` (Black is player 0)."""

    def __init__(self, color: Color, reason: str) -> None:
        super().__init__(0 if color is Color.BLACK else 1, reason)
        self.color = color


class TimeLoss(Forfeit):
    """``color``'s flag fell: the move came after its clock ran out (``killed``: no move at all in the grace time)."""

    def __init__(self, color: Color, reason: str, *, killed: bool = False) -> None:
        super().__init__(color, reason)
        self.killed = killed
        #: The position when the flag fell (set by the game loop), so that the record keeps the moves.
        self.state: GameState | None = None


@dataclasses.dataclass(frozen=True)
class PlayedGame:
    """What :func:`play_gtp_game` returns."""

    state: GameState  #: the final position (its history holds every move)
    result: str  #: ``"B+3.5"``, ``"W+R"``, ``"0"``
    kind: str  #: ``"score"``, ``"resign"`` or ``"draw"``
    notes: tuple[str, ...] = ()  #: the move cap, referee trouble



@dataclasses.dataclass(frozen=True)
class GameOutcome:
    """One game of a match, from A's and B's point of view."""

    number: int  #: 1-based
    a_color: Color  #: A's colour in this game
    result: str  #: as in the SGF ``RE``: ``"B+3.5"``, ``"W+R"``, ``"B+F"``, ``"0"``
    winner: str | None  #: ``"A"``, ``"B"`` or ``None`` for a draw
    kind: str  #: ``"score"``, ``"resign"``, ``"forfeit"``, ``"time"``, ``"draw"``
    reason: str = (
        ""  #: for a forfeit: what the loser did; else notes (move cap, referee trouble)
    )
    moves: int = 0
    reused: bool = False  #: read back from an SGF file of an earlier run
    #: The dead-stone estimate of our own count when it scored the game
    #: (``none``, ``playouts``, ``network``); ``None``: a referee scored it, or nobody (resign, forfeit).
    dead_stones: str | None = None
    #: :func:`moves_digest` of the game's moves: games with the same digest are the same game. ``""``: unknown.
    digest: str = ""

    @property
    def forfeit(self) -> bool:
        return self.kind == "forfeit"

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.number,
            "a_color": self.a_color.name.lower(),
            "result": self.result,
            "winner": self.winner,
            "kind": self.kind,
            "reason": self.reason,
            "moves": self.moves,
            "reused": self.reused,
            "dead_stones": self.dead_stones,
        }



def a_color(number: int) -> Color:
    """A is Black in games 1, 3, 5, ... (even 0-based index), in matches and evaluations alike."""
    return Color.BLACK if (number - 1) % 2 == 0 else Color.WHITE


def side_of(winner: Color | None, a: Color) -> str | None:
    """``"A"`` or ``"B"`` for the winning colour when A played ``a``; ``None`` for a draw."""
    return None if winner is None else ("A" if winner is a else "B")


def game_progress(outcome: GameOutcome, games: int, tally: Iterable[GameOutcome]) -> Progress:
    """The event of a finished game: who had Black, the result, the running score (``tally`` includes ``outcome``)."""
    outs = list(tally)
    a = sum(o.winner == "A" for o in outs)
    b = sum(o.winner == "B" for o in outs)
    d = sum(o.winner is None for o in outs)
    colours = "A black, B white" if outcome.a_color is Color.BLACK else "B black, A white"
    who = "draw" if outcome.winner is None else f"{outcome.winner} wins"
    extra = f" ({outcome.reason})" if outcome.kind in ("forfeit", "time") and outcome.reason else ""
    reused = " [from an earlier run]" if outcome.reused else ""
    line = (
        f"game {outcome.number}/{games}: {colours}: {outcome.result}, {who}{extra}{reused}"
        f" | A {a} - B {b}" + (f" - draws {d}" if d else "")
    )
    return Progress(len(outs), games, "game", line, {**outcome.to_dict(), "a_wins": a, "b_wins": b, "draws": d})


def moves_digest(moves: Iterable[Any]) -> str:
    """A fingerprint of a game's main line (each move's colour and point): equal digests, the same game.

    ``moves`` are :class:`~fuseki.go.sgf.RecordedMove` s, as a played game's
    record and the same game read back from its SGF file both hold them, so
    a resumed match counts its earlier games the same way.
    """
    h = hashlib.sha1()
    for m in moves:
        h.update(f"{m.color.letter}{m.move!r};".encode())
    return h.hexdigest()[:16]


@dataclasses.dataclass(frozen=True)
class MatchSummary:
    """The tally of a match. Forfeits count as wins for the other engine, draws half for each."""

    outcomes: tuple[GameOutcome, ...]
    engine_a: str = "A"
    engine_b: str = "B"

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def a_wins(self) -> int:
        return sum(o.winner == "A" for o in self.outcomes)

    @property
    def b_wins(self) -> int:
        return sum(o.winner == "B" for o in self.outcomes)

    @property
    def draws(self) -> int:
        return sum(o.winner is None for o in self.outcomes)

    @property
    def forfeits(self) -> int:
        return sum(o.forfeit for o in self.outcomes)

    @property
    def time_losses(self) -> int:
        """Games lost on time (a real clock, ``--time-control``)."""
        return sum(o.kind == "time" for o in self.outcomes)

    @property
    def distinct_games(self) -> int | None:
        """How many games differ in their moves; ``None`` when a game's moves are unknown (no digest).

        Two deterministic engines, or a deterministic agent against an engine
        whose seed barely changes its play, repeat games: a repeated game is
        not new evidence, so a match's report says how many were distinct.
        """
        if any(not o.digest for o in self.outcomes):
            return None
        return len({o.digest for o in self.outcomes})

    @property
    def a_win_rate(self) -> float | None:
        """A's score per game (draws half); ``None`` with no games."""
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else None

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.a_wins + 0.5 * self.draws, self.games)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object; the first seven keys are fixed, in this order."""
        lo, hi = self.ci95
        rate = self.a_win_rate
        return {
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "forfeits": self.forfeits,
            "a_win_rate": None if rate is None else round(rate, 6),
            "ci95": [round(lo, 6), round(hi, 6)],
            "a_forfeits": sum(o.forfeit and o.winner == "B" for o in self.outcomes),
            "b_forfeits": sum(o.forfeit and o.winner == "A" for o in self.outcomes),
            "a_time_losses": sum(o.kind == "time" and o.winner == "B" for o in self.outcomes),
            "b_time_losses": sum(o.kind == "time" and o.winner == "A" for o in self.outcomes),
            "distinct_games": self.distinct_games,
            "engine_a": self.engine_a,
            "engine_b": self.engine_b,
            "results": [o.to_dict() for o in self.outcomes],
        }

    def describe(self) -> str:
        """Two human lines for the end of a match."""
        lines = [
            (
                f"A = {self.engine_a}, B = {self.engine_b}: {self.games} games, A {self.a_wins} wins, "
                f"B {self.b_wins} wins, {self.draws} draws ({self.forfeits} by forfeit"
                + (f", {self.time_losses} on time)" if self.time_losses else ")")
                + ("" if self.distinct_games is None else f"; {self.distinct_games} distinct")
            )
        ]
        if self.games:
            lo, hi = self.ci95
            lines.append(
                f"A's win rate {100 * (self.a_win_rate or 0):.1f} % "
                f"(Wilson 95 % interval {100 * lo:.1f}-{100 * hi:.1f} %; a draw counts half a win)"
            )
        return "\n".join(lines)



class PairResult(NamedTuple):
    """A head-to-head record: ``a`` scored ``a_wins`` and ``b`` scored ``b_wins`` (draws half each)."""

    a: str
    b: str
    a_wins: float
    b_wins: float


@dataclasses.dataclass(frozen=True)
class EvalSummary:
    """The record of A against B and what it says: score, interval, p-value, Elo."""

    match: MatchSummary

    @property
    def games(self) -> int:
        return self.match.games

    @property
    def score(self) -> float | None:
        """A's score per game (draws half); ``None`` with no games."""
        return self.match.a_win_rate

    @property
    def ci95(self) -> tuple[float, float]:
        return self.match.ci95

    @property
    def p_value(self) -> float:
        """Two-sided exact binomial test of A's wins against B's (draws left out) at 50 %."""
        return binomial_test(self.match.a_wins, self.match.a_wins + self.match.b_wins)

    @property
    def p_value_greater(self) -> float:
        """One-sided: the chance that an equal A wins at least this many of the decided games."""
        return binomial_test(self.match.a_wins, self.match.a_wins + self.match.b_wins, alternative="greater")

    @property
    def elo(self) -> float | None:
        """A's Elo advantage over B (clipped at a 0 % or 100 % score; ``None`` with no games)."""
        if self.score is None:
            return None
        return elo_difference(clip_score(self.score, self.games))

    @property
    def elo_ci95(self) -> tuple[float, float]:
        return elo_interval(self.match.a_wins + 0.5 * self.match.draws, self.games)

    @property
    def elo_clipped(self) -> bool:
        """The score was 0 % or 100 %: the Elo numbers are bounds ("at least"), not estimates."""
        return self.score is not None and self.score in (0.0, 1.0)

    def as_result(self) -> PairResult:
        m = self.match
        return PairResult(m.engine_a, m.engine_b, m.a_wins + 0.5 * m.draws, m.b_wins + 0.5 * m.draws)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: the match runner's keys plus ``p_value``, ``elo`` and ``elo_ci95``."""
        out = self.match.to_dict()
        lo, hi = self.elo_ci95
        extra = {
            "p_value": self.p_value,
            "p_value_one_sided": self.p_value_greater,
            "elo": _json_float(self.elo),
            "elo_ci95": [_json_float(lo), _json_float(hi)],
            "elo_clipped": self.elo_clipped,
        }
        results = out.pop("results")
        return {**out, **extra, "results": results}

    def describe(self) -> str:
        """Human lines: the record, the score with its interval, the p-value, the Elo difference."""
        m = self.match
        lines = [
            f"A = {m.engine_a}, B = {m.engine_b}: {m.games} games, A {m.a_wins} wins, B {m.b_wins} wins, "
            f"{m.draws} draws ({m.forfeits} by forfeit)"
        ]
        if not m.games:
            return lines[0]
        lo, hi = self.ci95
        lines.append(
            f"A's score {m.a_wins + 0.5 * m.draws:g}/{m.games} = {100 * (self.score or 0):.1f} % "
            f"(Wilson 95 % interval {100 * lo:.1f}-{100 * hi:.1f} %)"
        )
        decided = m.a_wins + m.b_wins
        if self.p_value >= 0.05:
            verdict = "no significant difference at 5 %"
        else:
            verdict = "A is stronger" if m.a_wins > m.b_wins else "B is stronger"
        lines.append(
            f"binomial test against 50 % ({m.a_wins}/{decided} decided games): p = {self.p_value:.4g} "
            f"two-sided ({verdict})"
        )
        elo = self.elo or 0.0
        elo_lo, elo_hi = self.elo_ci95
        mark = ""
        if self.elo_clipped:
            mark = ">= " if elo > 0 else "<= "
        lines.append(
            f"Elo difference A - B: {mark}{elo:+.0f} (95 % interval {_fmt_elo(elo_lo)} to {_fmt_elo(elo_hi)}"
            + (
                "; clipped: a 0 % or 100 % score has no finite Elo, so as if half a game had gone the other way)"
                if self.elo_clipped
                else ")"
            )
        )
        return "\n".join(lines)


def _json_float(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, 2)


def _fmt_elo(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")

