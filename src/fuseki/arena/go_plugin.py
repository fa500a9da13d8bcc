"""Go in the generic game loop: :class:`GoPlugin`, :class:`SgfRecorder` and :func:`play_go_game`.

The loop (:func:`fuseki.arena.loop.play_game`) knows nothing of Go. This
module plugs in what Go needs:

- agents (the :class:`~fuseki.agents.base.Agent` protocol, GTP engines as
  :class:`~fuseki.arena.gtp_player.GtpAgent`) are shown the rules engine's
  :class:`~fuseki.go.state.GameState`, not the protocol adapter;
- an illegal move is named by its GTP vertex and the move number;
- a game that ends by two passes, or at the move cap, is counted by a
  :class:`~fuseki.arena.scoring.Scorer` (our count with a dead-stone
  estimate, or a GTP referee); a resignation needs no count;
- :class:`SgfRecorder` turns the outcome into an SGF record.

The scorer speaks SGF result text (a referee is an outside program that
answers ``final_score`` with ``"B+3.5"``); it is read once, here, into the
outcome's ``winner`` and ``margin``, and kept verbatim as ``text`` for the
record's ``RE``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fuseki.arena.loop import GamePlugin, Observer, Outcome, Verdict, play_game
from fuseki.arena.scoring import Scorer
from fuseki.games.go import GoGame, GoGameState
from fuseki.go.sgf import GameRecord, parse_result, save_sgf
from fuseki.go.state import Color, GameState, Move

if TYPE_CHECKING:
    from fuseki.agents.base import Agent

__all__ = ["GoPlugin", "SgfRecorder", "color_of", "play_go_game", "player_of", "record_kind", "result_text"]


def player_of(color: Color) -> int:
    """Black is player 0, White player 1 (as in :mod:`fuseki.games.go`)."""
    return 0 if color is Color.BLACK else 1


def color_of(player: int) -> Color:
    return Color.BLACK if player == 0 else Color.WHITE


def _margin(text: str) -> float | None:
    """The number after ``+`` in ``"B+3.5"`` (``None`` for ``"B+R"``); 0 for a draw."""
    head, sep, tail = text.strip().partition("+")
    if not sep:
        return 0.0
    try:
        return float(tail)
    except ValueError:
        return None


class GoPlugin(GamePlugin):
    """Go's hooks for the loop: agents see the engine's state; a :class:`Scorer` counts finished games."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def view(self, state: GoGameState) -> GameState:
        return state.go

    def illegal_move(self, state: GoGameState, move: Move, error: ValueError, ply: int) -> str:
        go = state.go
        reason = getattr(error, "reason", str(error))
        return f"played the illegal move {move.gtp(go.size)} at move {go.move_number + 1}: {reason}"

    def judge(self, state: GoGameState, *, capped: bool) -> Verdict:
        go = state.go
        if go.is_over() and go.parent is not None and go.move_played().is_resign:
            winner = go.winner()
            assert winner is not None  # a resigned game always has one
            return Verdict(player_of(winner), "resign", text=go.result())
        result, note = self.scorer.score(go)
        color, _ = parse_result(result)
        winner_player = None if color is None else player_of(color)
        return Verdict(
            winner_player,
            "draw" if color is None else "score",
            margin=_margin(result),
            notes=(note,) if note else (),
            text=result,
        )


def result_text(outcome: Outcome) -> str:
    """The SGF ``RE`` of a Go outcome: the judge's words, or ``B+F``/``W+T`` for a forfeit or a time loss."""
    if outcome.reason in ("forfeit", "time"):
        assert outcome.winner is not None
        return f"{color_of(outcome.winner).letter}+{'F' if outcome.reason == 'forfeit' else 'T'}"
    if outcome.text is None:
        raise ValueError(f"a Go outcome ({outcome.reason}) without a judge's result text")
    return outcome.text


def record_kind(outcome: Outcome) -> str:
    """The ``kind`` of a match or evaluation record: ``score``, ``draw``, ``resign``, ``forfeit`` or ``time``.

    A game stopped at the move cap and counted is a ``score`` (or ``draw``)
    there, as it always was; its note says it was capped.
    """
    if outcome.reason in ("resign", "forfeit", "time"):
        return outcome.reason
    return "draw" if outcome.winner is None else "score"


class SgfRecorder(Observer):
    """Builds the SGF record of a Go game when it ends (and writes it to ``path`` when given).

    ``comment`` makes the root comment from the outcome (a forfeit's reason,
    the judge's notes). The record is kept in :attr:`record`.
    """

    def __init__(
        self,
        *,
        black: str,
        white: str,
        event: str = "",
        game_name: str = "",
        comment: Callable[[Outcome], str] | None = None,
        date: str | None = None,
        path: str | Path | None = None,
    ) -> None:
        self.black, self.white = black, white
        self.event, self.game_name = event, game_name
        self.comment = comment
        self.date = date
        self.path = None if path is None else Path(path)
        self.record: GameRecord | None = None

    def on_end(self, outcome: Outcome) -> None:
        record = GameRecord.from_state(
            outcome.state.go,
            black=self.black,
            white=self.white,
            result=result_text(outcome),
            date=self.date if self.date is not None else datetime.date.today().isoformat(),
        )
        if self.comment is not None:
            record.comment = self.comment(outcome)
        record.event = self.event
        record.game_name = self.game_name
        self.record = record
        if self.path is not None:
            save_sgf(self.path, record)


def play_go_game(
    agents: Mapping[Color, Agent],
    state: GameState,
    *,
    move_cap: int,
    scorer: Scorer,
    observers: Sequence[Observer] = (),
) -> Outcome:
    """Let Go agents move in turn from ``state`` through the generic loop, scored by ``scorer``.

    The outcome's ``state`` is a :class:`~fuseki.games.go.GoGameState`
    (``outcome.state.go`` is the engine's state); ``text`` is the SGF
    result of a game that was scored or resigned.
    """
    players = (agents[Color.BLACK], agents[Color.WHITE])
    return play_game(GoGame.wrap(state), players, move_cap=move_cap, plugin=GoPlugin(scorer), observers=observers)
