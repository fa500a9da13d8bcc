"""The games of an evaluation: one numbered game of two agents, many in worker processes.

One game is played by the generic loop with Go's plug-in
(:func:`fuseki.arena.go_plugin.play_go_game`); this module sets it up
(agents, scorer, seeds) and turns its outcome into a record.

In-process agents are built fresh for every game with seeds derived from
``(seed, game number, side)``, and the Numba kernels' generator is reseeded
before each game, so a game's moves depend only on the settings and its
number: the same seed gives the same games with 1 or 8 worker processes
(:func:`play_numbered_game`, :func:`run_games`). GTP engines and referees are
kept per process between games, since starting GNU Go costs time, except
that an engine whose command holds ``{seed}`` is restarted with each game's
seed (:meth:`fuseki.arena.gtp_engines.Engine.reseed`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from fuseki.agents.termination import Terminating
from fuseki.arena.eval_settings import EvalSettings, game_seed, referee_argv
from fuseki.arena.go_plugin import (
    SgfRecorder,
    color_of,
    play_go_game,
    record_kind,
    result_text,
)
from fuseki.arena.gtp_player import GtpAgent
from fuseki.arena.loop import Outcome
from fuseki.arena.outcome import GameOutcome, a_color, moves_digest, side_of
from fuseki.arena.scoring import Referee, Scorer, scored_by
from fuseki.arena.specs import AgentSpec, build_agent
from fuseki.go import kernels as K
from fuseki.go.rules import Rules
from fuseki.go.sgf import save_sgf
from fuseki.go.state import Color, GameState
from fuseki.util.runs import WorkerPool
from fuseki.util.errors import InputError

__all__ = ["Job", "close_engines", "play_numbered_game", "run_games"]


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
            # ``{seed}`` in the command (``gnugo --seed {seed}``): this game's own seed, so that a deterministic
            # opponent does not make every game with the same colours the same game; restarts the engine.
            agent.engine.reseed(game_seed(settings.seed, number, salt))
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

    def comment(outcome: Outcome) -> str:
        lines = [
            f"fuseki eval game {number}: A = {spec_a.label} ({color_a.name.lower()}), "
            f"B = {spec_b.label} ({color_a.other.name.lower()}), seed {settings.seed}"
        ]
        if outcome.reason == "forfeit":
            lines.append(f"forfeit: {forfeit_reason(outcome)}")
        return "\n".join(lines + [f"note: {n}" for n in outcome.notes])

    def forfeit_reason(outcome: Outcome) -> str:
        loser = color_of(outcome.loser)  # type: ignore[arg-type]  # a forfeit has a loser
        side = "A" if loser is color_a else "B"
        return f"{loser.name.lower()} ({side}: {labels[loser]}) {outcome.detail}"

    recorder = SgfRecorder(
        black=labels[Color.BLACK],
        white=labels[Color.WHITE],
        event="fuseki eval",
        game_name=f"game {number}",
        comment=comment,
    )
    outcome = play_go_game(agents, state, move_cap=settings.move_cap, scorer=scorer, observers=[recorder])
    forfeited = outcome.reason == "forfeit"
    if forfeited:
        loser = agents[color_of(outcome.loser)]  # type: ignore[arg-type]
        if isinstance(loser, GtpAgent):
            loser.stop()  # restarted, fresh, for the next game
    record = recorder.record
    assert record is not None  # the recorder saw the end
    winner = None if outcome.winner is None else color_of(outcome.winner)
    game = GameOutcome(
        number,
        color_a,
        result_text(outcome),
        side_of(winner, color_a),
        record_kind(outcome),
        forfeit_reason(outcome) if forfeited else "; ".join(outcome.notes),
        len(record.moves),
        dead_stones=None if forfeited else scored_by("\n".join(outcome.notes)),
        digest=moves_digest(record.moves),
    )
    return game, record.to_sgf()


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
        raise InputError(f"workers must be at least 1, got {workers}")
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
