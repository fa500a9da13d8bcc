"""Evaluating agents by playing them against each other (book ch. 10 and 12, spec row R3): :func:`evaluate`, :func:`round_robin`.

The book judges every training round the same way: the new bot plays N games
against the old one, colours alternating, and the record (``60/100``,
``51/100``, ``62/100`` in ch. 12) decides whether the new bot is better. A
record alone says little: 53/100 happens to two identical bots 62 % of the
time. So this module reports, for A against B:

- wins, losses and draws, and A's score (a draw counts half a win);
- the Wilson 95 % interval of that score (:func:`fuseki.util.stats.wilson_interval`);
- the exact two-sided binomial test against 50 % (:func:`binomial_test`, the
  book's ``scipy.stats.binom_test``): how often two equal bots would produce
  a record at least this lopsided. Draws are left out of the test, as in a
  sign test;
- the Elo difference that the score implies (:func:`elo_difference`) and its
  95 % interval (:func:`elo_interval`, the Wilson interval mapped to Elo).
  These live in :mod:`fuseki.util.stats`; :class:`~fuseki.arena.outcome.EvalSummary`
  reports them.

Agents are given as *specs* (:func:`~fuseki.arena.specs.parse_agent_spec`): a registered agent
with options (``random``, ``mcts:playouts=200,resign_below=none``), an agent
file or model name (``bots/ac_v2.safetensors``), or an outside GTP engine
(``gtp:gnugo --mode gtp --level 1``).

In-process agents are built fresh for every game with seeds derived from
``(seed, game number, side)``, and the Numba kernels' generator is reseeded
before each game, so a game's moves depend only on the settings and its
number: the same seed gives the same games with 1 or 8 worker processes. A
GTP engine is wrapped as an agent (:class:`~fuseki.arena.gtp_player.GtpAgent`) on the match
runner's :class:`~fuseki.arena.gtp_engines.Engine`, so crashes, hangs and nonsense answers are
forfeits exactly as in ``fuseki match``, and one game loop
(:func:`~fuseki.arena.eval_games.play_game`) serves every pairing.

Finished games are scored by area with dead stones removed
(:class:`~fuseki.arena.scoring.OwnershipScorer`): as :func:`fuseki.go.ownership.dead_stones` judges
them (``dead_stones="playouts"``, the default) or as the thesis's classifier
does (``"network"``, :mod:`fuseki.deadstones.scorer`, spec T4); or by a GTP
referee (:class:`~fuseki.arena.scoring.Referee`, GNU Go's ``final_score``), with
the same count of ours when the referee fails. A game our count scored names
its estimate in a ``note:`` of its SGF comment and in ``dead_stones`` of its
JSON result. Every game is written as ``game_0001.sgf`` ... next to an
``eval.json`` with the settings; running the same evaluation again reuses the
finished games, as ``fuseki match`` does, and a second evaluation on a folder
that one is playing into is refused (:mod:`fuseki.util.runs`).

>>> from fuseki.util.stats import binomial_test, elo_difference
>>> round(binomial_test(53, 100), 4)  # the book's example
0.6173
>>> round(elo_difference(0.75), 1)
190.8
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuseki.arena.eval_games import Job, run_games
from fuseki.arena.eval_settings import SETTINGS_FILE, EvalSettings
from fuseki.arena.outcome import EvalSummary, GameOutcome, MatchSummary, game_progress
from fuseki.arena.records import game_file, games_folder, locked, prepare_games_folder, read_finished
from fuseki.util.progress import ProgressCallback
from fuseki.util.runs import ChunkPlan, RunFolder
from fuseki.util.errors import InputError

__all__ = ["evaluate", "pair_dir", "plan_games", "prepare_dir", "round_robin"]


def eval_folder(sgf_dir: str | os.PathLike[str]) -> RunFolder:
    """An evaluation's SGF folder: ``eval.json``, its check and its lock."""
    return games_folder(sgf_dir, SETTINGS_FILE, "an evaluation")


def prepare_dir(settings: EvalSettings, sgf_dir: Path) -> None:
    """Create ``sgf_dir`` with an ``eval.json`` of ``settings``, or check the one there (under its lock).

    Raises :class:`~fuseki.util.runs.RunMismatch` when it holds another
    evaluation, :class:`~fuseki.util.runs.RunFolderBusy` when one is playing into it.
    """
    folder = eval_folder(sgf_dir)
    with folder.locked():
        prepare_games_folder(folder, settings, {"fuseki_eval": 1})


def plan_games(settings: EvalSettings, games: int, sgf_dir: Path | None) -> tuple[dict[int, GameOutcome], list[Job]]:
    """The games already finished in ``sgf_dir`` (by number) and the jobs still to play.

    The caller holds the folder's lock (:func:`evaluate`, :func:`round_robin`).
    """
    if games < 0:
        raise InputError(f"number of games must not be negative, got {games}")
    if sgf_dir is None:
        return {}, [Job(settings, number, None) for number in range(1, games + 1)]
    prepare_games_folder(eval_folder(sgf_dir), settings, {"fuseki_eval": 1})
    plan = ChunkPlan.scan(range(1, games + 1), lambda number: read_finished(game_file(sgf_dir, number), number))
    return plan.done, [Job(settings, number, game_file(sgf_dir, number)) for number in plan.todo]


def evaluate(
    settings: EvalSettings,
    games: int,
    *,
    sgf_dir: str | os.PathLike[str] | None = None,
    workers: int = 1,
    progress: ProgressCallback | None = None,
) -> EvalSummary:
    """Play (or reuse from ``sgf_dir``) games 1 to ``games`` of A against B and sum them up.

    ``progress`` gets a :class:`~fuseki.util.progress.Progress` per game
    (reused games first). Raises :class:`~fuseki.util.runs.RunMismatch` when
    ``sgf_dir`` holds another evaluation and
    :class:`~fuseki.util.runs.RunFolderBusy` when one is playing into it.
    """
    folder = None if sgf_dir is None else Path(sgf_dir)
    report = progress or (lambda event: None)
    with locked(None if folder is None else eval_folder(folder)):
        done, todo = plan_games(settings, games, folder)
        finished: list[GameOutcome] = []
        for number in sorted(done):
            finished.append(done[number])
            report(game_progress(done[number], games, finished))

        def on_done(job: Job, outcome: GameOutcome) -> None:
            finished.append(outcome)
            report(game_progress(outcome, games, finished))

        for outcome in run_games(todo, workers=workers, on_done=on_done):
            done[outcome.number] = outcome
    outcomes = tuple(done[n] for n in range(1, games + 1))
    return EvalSummary(MatchSummary(outcomes, settings.agent_a, settings.agent_b))


def pair_dir(sgf_dir: Path, i: int, j: int) -> Path:
    """The SGF folder of the pair of agents ``i`` and ``j`` (0-based) in a round robin: ``pair_01_02``."""
    return sgf_dir / f"pair_{i + 1:02d}_{j + 1:02d}"


def round_robin(
    agents: Sequence[str],
    games: int,
    *,
    sgf_dir: str | os.PathLike[str] | None = None,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> list[EvalSummary]:
    """Every pair of ``agents`` plays ``games`` games (colours alternating); one summary per pair.

    Pairs are ``(i, j)`` with ``i < j`` in the order given, agent ``i`` as
    A. ``options`` are the other :class:`EvalSettings` fields (size, komi,
    seed, ...), the same for every pair. All games of all pairs share one
    pool of ``workers`` processes. With ``sgf_dir`` each pair has its own
    folder (:func:`pair_dir`), so a round robin resumes like a single
    evaluation, and agents added at the end reuse the earlier pairs' games;
    every pair's folder is locked while the round robin runs.
    """
    specs = [a.strip() if isinstance(a, str) else a for a in agents]
    if len(specs) < 2:
        raise InputError(f"a round robin needs at least two agents, got {len(specs)}")
    seen: set[str] = set()
    for spec in specs:
        if spec in seen:
            raise InputError(f"agent {spec!r} is given twice; each agent once")
        seen.add(spec)
    folder = None if sgf_dir is None else Path(sgf_dir)
    pairs: list[tuple[int, int, EvalSettings]] = []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            pairs.append((i, j, EvalSettings(agent_a=specs[i], agent_b=specs[j], **options)))
    report = progress or (lambda event: None)
    done_by_pair: dict[tuple[str, str], dict[int, GameOutcome]] = {}
    finished: dict[tuple[str, str], list[GameOutcome]] = {}
    labels: dict[tuple[str, str], str] = {}
    jobs: list[Job] = []
    with contextlib.ExitStack() as held:
        for i, j, settings in pairs:
            key = (settings.agent_a, settings.agent_b)
            labels[key] = f"pair {i + 1}-{j + 1} ({settings.agent_a} vs {settings.agent_b})"
            pair_folder = None if folder is None else pair_dir(folder, i, j)
            if pair_folder is not None:
                held.enter_context(eval_folder(pair_folder).locked())
            done, todo = plan_games(settings, games, pair_folder)
            done_by_pair[key] = done
            finished[key] = []
            for number in sorted(done):
                finished[key].append(done[number])
                report(game_progress(done[number], games, finished[key]).within(f"{labels[key]}: ", pair=labels[key]))
            jobs.extend(todo)

        def on_done(job: Job, outcome: GameOutcome) -> None:
            key = (job.settings.agent_a, job.settings.agent_b)
            finished[key].append(outcome)
            report(game_progress(outcome, games, finished[key]).within(f"{labels[key]}: ", pair=labels[key]))

        for job, outcome in zip(jobs, run_games(jobs, workers=workers, on_done=on_done), strict=True):
            done_by_pair[(job.settings.agent_a, job.settings.agent_b)][outcome.number] = outcome
    summaries = []
    for _, _, settings in pairs:
        done = done_by_pair[(settings.agent_a, settings.agent_b)]
        outcomes = tuple(done[n] for n in range(1, games + 1))
        summaries.append(EvalSummary(MatchSummary(outcomes, settings.agent_a, settings.agent_b)))
    return summaries
