"""The games of an evaluation: one game of two agents (:func:`play_game`), one numbered game, many in workers.

In-process agents are built fresh for every game with seeds derived from
``(seed, game number, side)``, and the Numba kernels' generator is reseeded
before each game, so a game's moves depend only on the settings and its
number: the same seed gives the same games with 1 or 8 worker processes
(:func:`play_numbered_game`, :func:`run_games`). GTP engines and referees are
kept per process between games, since starting GNU Go costs time.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from fuseki.agents.termination import Terminating
from fuseki.arena.eval_settings import EvalSettings, game_seed, referee_argv
from fuseki.arena.gtp_player import GtpAgent
from fuseki.arena.outcome import Forfeit, GameOutcome, PlayedGame, a_color, side_of
from fuseki.arena.scoring import Referee, Scorer, scored_by
from fuseki.arena.specs import AgentSpec, build_agent
from fuseki.go import kernels as K
from fuseki.go.rules import Rules
from fuseki.go.sgf import GameRecord, parse_result, save_sgf
from fuseki.go.state import Color, GameState, IllegalMoveError
from fuseki.util.runs import WorkerPool

if TYPE_CHECKING:
    from fuseki.agents.base import Agent

__all__ = ["Job", "close_engines", "play_game", "play_numbered_game", "run_games"]


def play_game(agents: Mapping[Color, Agent], state: GameState, *, move_cap: int, scorer: Scorer) -> PlayedGame:
    """Let the agents move in turn from ``state`` until two passes, a resignation or ``move_cap`` moves.

    Every move is checked on our :class:`GameState`: an illegal one loses
    the game by :class:`~fuseki.arena.outcome.Forfeit` (raised, for the caller to
    record), as does any failure of a :class:`GtpAgent`. A game that did not
    end by resignation is scored by ``scorer``.
    """
    notes: list[str] = []
    while not state.is_over() and state.move_number < move_cap:
        color = state.next_player
        move = agents[color].select_move(state)
        try:
            state = state.play(move)
        except IllegalMoveError as e:
            raise Forfeit(
                color, f"played the illegal move {move.gtp(state.size)} at move {state.move_number + 1}: {e.reason}"
            ) from None
        if move.is_resign:
            return PlayedGame(state, state.result(), "resign", tuple(notes))
    if not state.is_over():
        notes.append(f"stopped at the move cap ({move_cap} moves) and scored as it stood")
    result, note = scorer.score(state)
    if note:
        notes.append(note)
    winner, _ = parse_result(result)
    return PlayedGame(state, result, "draw" if winner is None else "score", tuple(notes))


# ---- a numbered game in a worker ---------------------------------------------------

#: GTP engines and referees of this process, kept between games (starting GNU Go costs time).
_ENGINES: dict[tuple[str, str, float, bool], GtpAgent] = {}
_REFEREES: dict[str, Referee] = {}


def _gtp_agent(side: str, spec: AgentSpec, move_time: float, clock: bool) -> GtpAgent:
    key = (side, spec.target, move_time, clock)
    agent = _ENGINES.get(key)
    if agent is None:
        agent = _ENGINES[key] = GtpAgent(spec.target, label=side, move_time=move_time, clock=clock)
    return agent


def close_engines() -> None:
    """Stop the GTP engines and referees this process started."""
    for agent in _ENGINES.values():
        agent.stop()
    for referee in _REFEREES.values():
        referee.close()
    _ENGINES.clear()
    _REFEREES.clear()


def _seed_everything(seed: int) -> None:
    """Reseed every shared generator an agent might draw from: Numba's, NumPy's global one, ``random``."""
    K.seed_kernels(seed)
    np.random.seed(seed)
    random.seed(seed)


def play_numbered_game(settings: EvalSettings, number: int) -> tuple[GameOutcome, bytes]:
    """Play game ``number`` (1-based) of ``settings``: its outcome and its SGF bytes.

    Runs in worker processes; everything it depends on is in its arguments,
    so the same arguments give the same game wherever it runs (GTP engines
    aside: they have their own randomness).
    """
    spec_a, spec_b = settings.specs()
    color_a = a_color(number)
    agents: dict[Color, Any] = {}
    labels: dict[Color, str] = {}
    for side, spec, color, salt in (("A", spec_a, color_a, 0), ("B", spec_b, color_a.other, 1)):
        if spec.in_process:
            agent: Any = build_agent(spec, game_seed(settings.seed, number, salt))
            if settings.terminate and not getattr(agent, "self_terminating", False):
                agent = Terminating(agent)
        else:
            agent = _gtp_agent(side, spec, settings.move_time, settings.clock)
        agents[color] = agent
        labels[color] = spec.label
    own = settings.own_count(number)
    if settings.referee is None:
        scorer: Scorer = own
    else:
        scorer = _REFEREES.get(settings.referee) or _REFEREES.setdefault(
            settings.referee, Referee(referee_argv(settings))
        )
        scorer.fallback = own  # this game's count of ours, should the referee fail
    _seed_everything(game_seed(settings.seed, number, 3))
    state = GameState.new(settings.size, Rules.preset(settings.rules).replace(komi=float(settings.komi)))
    forfeited: Color | None = None
    reason = ""
    notes: tuple[str, ...] = ()
    try:
        game = play_game(agents, state, move_cap=settings.move_cap, scorer=scorer)
        state, result, kind, notes = game.state, game.result, game.kind, game.notes
    except Forfeit as f:
        forfeited = f.color
        side = "A" if f.color is color_a else "B"
        reason = f"{f.color.name.lower()} ({side}: {labels[f.color]}) {f.reason}"
        result, kind = f"{f.color.other.letter}+F", "forfeit"
        loser = agents[f.color]
        if isinstance(loser, GtpAgent):
            loser.stop()
    winner, _ = parse_result(result)
    record = GameRecord.from_state(
        state,
        black=labels[Color.BLACK],
        white=labels[Color.WHITE],
        result=result,
        date=datetime.date.today().isoformat(),
    )
    lines = [
        f"fuseki eval game {number}: A = {spec_a.label} ({color_a.name.lower()}), "
        f"B = {spec_b.label} ({color_a.other.name.lower()}), seed {settings.seed}"
    ]
    if forfeited is not None:
        lines.append(f"forfeit: {reason}")
    lines += [f"note: {n}" for n in notes]
    record.comment = "\n".join(lines)
    record.event = "fuseki eval"
    record.game_name = f"game {number}"
    outcome = GameOutcome(
        number,
        color_a,
        result,
        side_of(winner, color_a),
        kind,
        reason if forfeited is not None else "; ".join(notes),
        len(record.moves),
        dead_stones=None if forfeited is not None else scored_by("\n".join(notes)),
    )
    return outcome, record.to_sgf()


def _job(job: tuple[int, dict[str, Any], int]) -> tuple[int, GameOutcome, bytes]:
    """The picklable entry point of a worker: (index, settings as a plain dict, game number) -> (index, outcome, SGF)."""
    index, settings_dict, number = job
    return (index, *play_numbered_game(EvalSettings.from_dict(settings_dict), number))


class Job(NamedTuple):
    """One game to play: the settings, its number and where its SGF goes (``None``: nowhere)."""

    settings: EvalSettings
    number: int
    path: Path | None


def run_games(
    jobs: Sequence[Job],
    *,
    workers: int = 1,
    on_done: Callable[[Job, GameOutcome], None] | None = None,
) -> list[GameOutcome]:
    """Play ``jobs`` (in worker processes when ``workers > 1``); outcomes in the jobs' order.

    Each game's SGF is written atomically as soon as it is finished, so an
    interrupted run keeps every finished game. ``on_done`` is called in the
    main process, in the order games finish.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    results: dict[int, GameOutcome] = {}

    def finish(index: int, outcome: GameOutcome, sgf: bytes) -> None:
        job = jobs[index]
        if job.path is not None:
            save_sgf(job.path, sgf)
        results[index] = outcome
        if on_done is not None:
            on_done(job, outcome)

    if workers == 1 or len(jobs) <= 1:
        try:
            for index, job in enumerate(jobs):
                finish(index, *play_numbered_game(job.settings, job.number))
        finally:
            close_engines()
    else:
        # A killed pool leaves its finished games on disk; the next run goes on from there.
        with WorkerPool(min(workers, len(jobs))) as pool:
            work = ((i, job.settings.to_dict(), job.number) for i, job in enumerate(jobs))
            for index, outcome, sgf in pool.map_unordered(_job, work, window=len(jobs)):
                finish(index, outcome, sgf)
    return [results[i] for i in range(len(jobs))]
