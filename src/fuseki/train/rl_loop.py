"""The reinforcement-learning loop of book ch. 12: self-play, train, evaluate, keep the better agent.

Section 12.4 runs the loop by hand: the current agent plays itself 5,000
games, a new version is trained on that experience, the new version plays the
old one 100 games (60/100, then 51/100, then 62/100 in the book), and the new
version replaces the old one only when it is clearly stronger; after a draw
like 51/100 the book plays more games with the *old* agent and tries again.
:func:`run_loop` does the same, round after round, in one folder::

    DIR/loop.json                      settings, every round's results, the step reached
    DIR/start.safetensors              a copy of the starting agent (round 1's champion)
    DIR/round-001/selfplay/            fuseki selfplay output (chunks, experience.npz)
    DIR/round-001/candidate.safetensors
    DIR/round-001/eval/                the evaluation's SGF files and eval.json
    DIR/ratings.png                    Bradley-Terry Elo of every version over the rounds

Each round:

1. *self-play*: ``games`` games of the champion against itself
   (:func:`fuseki.train.selfplay.selfplay`);
2. *train*: a candidate starting from the champion's weights, trained by the
   method's learner (``pg``, ``q`` or ``ac``) on the experience of the latest
   ``window`` rounds (1: the book's, only the new games);
3. *evaluate*: the candidate (A) against the champion (B) over
   ``eval_games`` games with colours alternating
   (:func:`fuseki.arena.evaluate.evaluate`);
4. *gate*: the candidate becomes the champion only when it is significantly
   better (:func:`promotes`): a one-sided exact binomial test of its wins
   against its losses gives ``p < alpha`` *and* its score is above 50 %. With
   ``keep_latest`` every candidate is promoted (AlphaZero's choice: no gate).

Why a test and not "more than half": two equal agents win 55/100 or more
18 % of the time, so a gate at 50 % would replace the champion by an equal
(or weaker) agent about every other round, and noise would accumulate. The
book's 60/100 passes (one-sided p = 0.028), its 51/100 does not (p = 0.46).

Everything is resumable. ``loop.json`` is rewritten atomically after every
step, and each round records the step it reached. Rerunning the same command
after a kill goes on from there: self-play and evaluation resume from their
folders by themselves (finished chunks and games are kept), and training,
which is short, is done again unless its agent file is there and was trained
on exactly this round's experience. Every random choice derives from
``(seed, round, step)``, so a resumed run ends in the same state as an
uninterrupted one. A folder made with other settings, or from another start
file, is refused; only the number of rounds may change (a finished loop is
continued with a larger ``rounds``). A second loop on a folder that a loop
is running in is refused too (:mod:`fuseki.util.runs`).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fuseki.agents.agent_file import read_agent_info, resolve_agent_path
from fuseki.arena.ratings import rating_curve
from fuseki.train.policy_gradient import RLTrainConfig
from fuseki.train.selfplay import SelfPlaySettings, selfplay
from fuseki.util.atomic import sha256_file, write_atomic
from fuseki.util.errors import InputError
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import RunFolder, RunMismatch, derive_seed, field_defaults
from fuseki.util.stats import binomial_test, clip_score, elo_difference, elo_interval

__all__ = [
    "LOOP_FILE",
    "METHODS",
    "RATINGS_FILE",
    "START_FILE",
    "comparable",
    "EvalRecord",
    "LoopMismatch",
    "LoopSettings",
    "format_table",
    "promotes",
    "round_dir",
    "run_loop",
    "version_name",
]

LOOP_FILE = "loop.json"
RATINGS_FILE = "ratings.png"
START_FILE = "start.safetensors"
CANDIDATE_FILE = "candidate.safetensors"
FORMAT = "fuseki-rl-loop"
VERSION = 1

#: method -> (the agent-file kind it trains, the learner's module and function).
METHODS: dict[str, tuple[str, str, str]] = {
    "pg": ("policy", "fuseki.train.policy_gradient", "train_policy_gradient"),
    "q": ("q", "fuseki.train.q_learning", "train_q_learning"),
    "ac": ("ac", "fuseki.train.actor_critic", "train_actor_critic"),
}

#: The exploration ε each kind evaluates with unless told otherwise. Policy and
#: actor-critic agents sample their moves, so two games are never alike; a greedy
#: Q agent is deterministic, and 100 games would be 2 games repeated, which makes
#: the binomial test meaningless. 5 % random moves is our choice, not the book's.
DEFAULT_EVAL_TEMPERATURE = {"policy": 0.0, "ac": 0.0, "q": 0.05}

#: The steps of a round, in order; a round's ``step`` is the next one to do (``done`` at the end).
STEPS = ("selfplay", "train", "eval", "done")


#: The loop folder holds a loop made with other settings or another start file (the one run-folder mismatch).
LoopMismatch = RunMismatch


def run_folder(out_dir: str | os.PathLike[str]) -> RunFolder:
    """The loop folder: ``loop.json``, its check and its lock."""
    return RunFolder(
        Path(out_dir),
        LOOP_FILE,
        holds="a loop made with other settings",
        file_kind="a fuseki rl-loop state file",
    )


def round_dir(out_dir: str | os.PathLike[str], number: int) -> Path:
    """``DIR/round-003`` for round 3."""
    return Path(out_dir) / f"round-{number:03d}"


def version_name(index: int) -> str:
    """The name of a version in tables and plots: ``v0`` is the start, ``vN`` round N's candidate."""
    return f"v{index}"


@dataclasses.dataclass(frozen=True)
class LoopSettings:
    """Everything that decides a loop's games and agents (not the number of rounds, workers or device).

    ``lr``, ``clipnorm``, ``batch_size`` and ``epochs`` default (``None``) to
    the learner's book settings; ``temperature`` to self-play's default for
    the agent's kind, ``eval_temperature`` to :data:`DEFAULT_EVAL_TEMPERATURE`.
    ``komi`` ``None`` is the rule set's; ``max_moves`` ``None`` is three times
    the board's area, for self-play and evaluation alike.
    """

    method: str
    agent: str  #: the starting agent file (path or models name)
    games: int = 5000  #: self-play games per round (ch. 12)
    eval_games: int = 100  #: evaluation games per round (ch. 12)
    alpha: float = 0.05
    keep_latest: bool = False
    window: int = 1  #: train on the experience of this many latest rounds
    seed: int = 0
    lr: float | None = None
    clipnorm: float | None = None
    batch_size: int | None = None
    epochs: int | None = None
    temperature: float | None = None
    eval_temperature: float | None = None
    max_moves: int | None = None
    komi: float | None = None
    rules: str = "chinese"
    chunk_size: int = 100
    dead_playouts: int = 200

    def __post_init__(self) -> None:
        from fuseki.go.rules import Rules

        if self.method not in METHODS:
            raise InputError(f"unknown method {self.method!r}; one of {', '.join(METHODS)}")
        for name in ("games", "eval_games", "window", "chunk_size", "dead_playouts"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name.replace('_', ' ')} must be a whole number of at least 1, got {value!r}")
        if not (isinstance(self.alpha, (int, float)) and 0 < self.alpha < 1):
            raise InputError(f"alpha (the significance level) must be between 0 and 1, got {self.alpha!r}")
        for name in ("temperature", "eval_temperature"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and 0 <= value <= 1):
                raise InputError(f"{name.replace('_', ' ')} (the chance of a random move) must be from 0 to 1, got {value}")
        if self.lr is not None and not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"the learning rate must be a positive number, got {self.lr}")
        if self.clipnorm is not None and not (math.isfinite(self.clipnorm) and self.clipnorm >= 0):
            raise InputError(f"clipnorm must be a number at least 0 (0: off), got {self.clipnorm}")
        for name in ("batch_size", "epochs", "max_moves"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InputError(f"{name.replace('_', ' ')} must be at least 1, got {value}")
        if self.komi is not None and not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi}")
        Rules.preset(self.rules)

    @property
    def kind(self) -> str:
        """The agent-file kind the method trains (``policy``, ``q``, ``ac``)."""
        return METHODS[self.method][0]

    def identity(self, start_sha256: str) -> dict[str, Any]:
        """What a loop folder must match: every setting but the start file's path, plus its checksum."""
        data = dataclasses.asdict(self)
        data.pop("agent")
        data["start_sha256"] = start_sha256
        return data


# ---- the gate ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EvalRecord:
    """A candidate's record against its champion and what it says.

    ``p_value`` is the one-sided exact binomial test (``alternative="greater"``)
    of the wins among the decided games: the chance that a candidate no
    stronger than the champion wins at least this many. Draws count half in
    the score and are left out of the test (a sign test).
    """

    wins: int
    losses: int
    draws: int = 0

    def __post_init__(self) -> None:
        for name in ("wins", "losses", "draws"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{name} must be a whole number of 0 or more, got {value!r}")

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """The candidate's score per game (draws half); 0.5 with no games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def p_value(self) -> float:
        return binomial_test(self.wins, self.wins + self.losses, alternative="greater")

    @property
    def elo(self) -> float:
        """The candidate's Elo advantage; at 0 % or 100 % as if half a game had gone the other way (finite)."""
        return elo_difference(clip_score(self.score, self.games)) if self.games else 0.0

    @property
    def elo_ci95(self) -> tuple[float, float]:
        return elo_interval(self.wins + 0.5 * self.draws, self.games)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.elo_ci95
        return {
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "games": self.games,
            "win_rate": round(self.score, 6),
            "p_value": self.p_value,
            "elo": _finite(self.elo),
            "elo_ci95": [_finite(lo), _finite(hi)],
            "elo_clipped": self.games > 0 and self.score in (0.0, 1.0),
        }


def _finite(x: float) -> float | None:
    return round(x, 2) if math.isfinite(x) else None


def promotes(record: EvalRecord, alpha: float, *, keep_latest: bool = False) -> bool:
    """Whether the candidate replaces the champion: ``p < alpha`` and a score above 50 % (or always, ``keep_latest``).

    >>> promotes(EvalRecord(60, 40), 0.05)   # the book's first round: p = 0.028
    True
    >>> promotes(EvalRecord(51, 49), 0.05)   # its second: p = 0.46
    False
    >>> promotes(EvalRecord(40, 60), 0.05, keep_latest=True)
    True
    """
    if keep_latest:
        return True
    return record.score > 0.5 and record.p_value < alpha


# ---- the state file ---------------------------------------------------------------------


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _save(out: Path, state: dict[str, Any]) -> None:
    run_folder(out).write(state)


def _load_state(folder: RunFolder) -> dict[str, Any] | None:
    state = folder.read()
    if state is None:
        return None
    path = folder.settings_path
    if state.get("format") != FORMAT or not isinstance(state.get("settings"), dict):
        raise LoopMismatch(f"{path} is not a fuseki rl-loop state file (not a loop state); use another --out")
    if not isinstance(state.get("rounds"), list):
        raise LoopMismatch(f"{path} is not a fuseki rl-loop state file (no rounds); use another --out")
    if state.get("version", 0) > VERSION:
        raise LoopMismatch(f"{path} was written by a newer fuseki (version {state['version']}); update fuseki")
    return state


def _start_agent(settings: LoopSettings) -> tuple[Path, Any, str]:
    """The start agent's file, its info and its SHA-256; ``ValueError`` when it is not of the method's kind."""
    start = resolve_agent_path(settings.agent)
    info = read_agent_info(start)
    if info.kind != settings.kind:
        raise InputError(
            f"{start} is a {info.kind!r} agent file; --method {settings.method} trains {settings.kind!r} agents "
            f"(make one with `fuseki train {settings.method} --init`)"
        )
    return start, info, sha256_file(start)


def _prepare(settings: LoopSettings, folder: RunFolder, rounds: int, start: tuple[Path, Any, str]) -> dict[str, Any]:
    """Start the (locked) loop folder (copying the start agent) or check the one there; returns the state."""
    path, info, sha = start
    out = folder.path
    mine = settings.identity(sha)
    state = _load_state(folder)
    if state is not None:
        theirs = state["settings"]
        defaults = {**field_defaults(LoopSettings), "start_sha256": None}
        only_start = [k for k in mine if theirs.get(k, defaults.get(k)) != mine[k]] == ["start_sha256"]
        folder.check(theirs, mine, defaults=defaults,
                     holds="a loop made with another start agent" if only_start else None)
        copy = out / START_FILE
        if not copy.exists() or sha256_file(copy) != sha:
            raise LoopMismatch(f"{copy} is missing or changed since the loop began; the loop cannot go on")
        state["rounds_target"] = rounds
        return state
    copy = out / START_FILE
    if not copy.exists() or sha256_file(copy) != sha:
        write_atomic(copy, path.read_bytes())
    state = {
        "format": FORMAT,
        "version": VERSION,
        "created": _now(),
        "settings": mine,
        "start": {"path": str(path), "sha256": sha, "copy": START_FILE, "board_size": info.board_size,
                  "encoder": info.encoder, "network": info.network},
        "rounds_target": rounds,
        "champion": START_FILE,
        "champion_name": version_name(0),
        "step": {"round": 1, "step": "selfplay"},
        "rounds": [],
    }
    _save(out, state)
    return state


def _seed(settings: LoopSettings, number: int, step: str) -> int:
    """The seed of one step of one round: a function of ``(seed, round, step)`` alone."""
    return derive_seed(settings.seed, number, STEPS.index(step) + 1)


# ---- the steps ----------------------------------------------------------------------------

class _Reporter:
    """The loop's progress: its own lines as ``round`` events, and its steps' events with the round in front."""

    def __init__(self, progress: ProgressCallback | None, rounds: int) -> None:
        self.progress = progress or (lambda event: None)
        self.rounds = rounds
        self.finished = 0  #: rounds done

    def __call__(self, line: str, **extra: Any) -> None:
        self.progress(Progress(self.finished, self.rounds, "round", line, extra))

    def step(self, number: int, step: str, prefix: str) -> ProgressCallback:
        """The callback for a step's own job (self-play, evaluation): its events, ``prefix`` before each line."""
        return lambda event: self.progress(event.within(prefix, round=number, step=step))


def _selfplay(settings: LoopSettings, out: Path, rec: dict[str, Any], workers: int, say: _Reporter) -> dict[str, Any]:
    number = rec["round"]
    sp = SelfPlaySettings(
        agent=str(out / rec["champion"]),
        seed=_seed(settings, number, "selfplay"),
        temperature=settings.temperature,
        chunk_size=settings.chunk_size,
        max_moves=settings.max_moves,
        komi=settings.komi,
        rules=settings.rules,
    )
    say(f"round {number}: self-play, {settings.games} games of {rec['champion_name']} against itself")
    summary = selfplay(sp, round_dir(out, number) / "selfplay", settings.games, workers=workers,
                       progress=say.step(number, "selfplay", f"round {number} self-play: "))
    j = summary.to_dict()
    keep = ("games", "positions", "black_wins", "white_wins", "draws", "capped", "mean_moves")
    rec["timing"]["selfplay_seconds"] = j["seconds"]
    return {"experience": os.path.relpath(summary.experience, out), "seed": sp.seed, **{k: j[k] for k in keep}}


def _experience(out: Path, state: dict[str, Any], number: int, window: int) -> list[str]:
    """The experience files of the latest ``window`` rounds up to ``number``, oldest first."""
    first = max(1, number - window + 1)
    return [str(out / state["rounds"][r - 1]["selfplay"]["experience"]) for r in range(first, number + 1)]


def _trained_on(path: Path, experience: list[str], seed: int) -> bool:
    """Whether ``path`` is an agent file trained on exactly these experience files with this seed (a finished step)."""
    from fuseki.agents.agent_file import AgentFileError, read_agent_info
    from fuseki.util.atomic import sha256_file

    if not path.exists():
        return False
    try:
        training = read_agent_info(path).training
    except (AgentFileError, OSError):
        return False
    files = training.get("experience") or []
    try:
        return training.get("seed") == seed and [f.get("sha256") for f in files] == [sha256_file(p) for p in experience]
    except OSError:
        return False


def _train_candidate(
    settings: LoopSettings, out: Path, state: dict[str, Any], rec: dict[str, Any], device: str, say: _Reporter
) -> dict[str, Any]:
    """Train the round's candidate from the champion (or keep the one a killed run finished)."""
    import importlib

    from fuseki.agents.agent_file import read_agent_info

    number = rec["round"]
    experience = _experience(out, state, number, settings.window)
    seed = _seed(settings, number, "train")
    target = round_dir(out, number) / CANDIDATE_FILE
    if _trained_on(target, experience, seed):
        say(f"round {number}: {target} is already trained on this round's experience; keeping it")
        training = read_agent_info(target).training
        return _train_record(out, target, experience, training)
    config = RLTrainConfig(
        experience=tuple(experience),
        out=str(target),
        start=str(out / rec["champion"]),
        lr=settings.lr,
        clipnorm=settings.clipnorm,
        batch_size=settings.batch_size,
        epochs=settings.epochs,
        seed=seed,
        device=device,
    )
    _, module, function = METHODS[settings.method]
    train = getattr(importlib.import_module(module), function)
    say(f"round {number}: training {version_name(number)} from {rec['champion_name']} ({settings.method}) "
        f"on {len(experience)} round(s) of experience")

    def show(event: dict[str, Any]) -> None:
        if event.get("event") == "epoch":
            parts = ", ".join(f"{k} {event[k]:.4f}" for k in ("loss", "policy_loss", "value_loss") if k in event)
            say(f"round {number} training: epoch {event['epoch']}/{event['epochs']}: {parts}")

    result = train(config, progress=show)
    rec["timing"]["train_seconds"] = round(result.seconds, 3)
    return _train_record(out, target, experience, read_agent_info(target).training)


def _train_record(out: Path, target: Path, experience: list[str], training: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "candidate": os.path.relpath(target, out),
        "experience": [os.path.relpath(p, out) for p in experience],
        "positions": training.get("positions"),
        "games": training.get("games"),
        "lr": training.get("lr"),
        "clipnorm": training.get("clipnorm"),
        "batch_size": training.get("batch_size"),
        "epochs": training.get("epochs"),
        "seed": training.get("seed"),
        "losses": training.get("losses"),
    }


def _spec(path: Path, epsilon: float) -> str:
    """The agent spec of an agent file for :mod:`fuseki.arena.evaluate` (``file:`` so that any path works)."""
    text = f"file:{path.resolve()}"
    return f"{text}:epsilon={epsilon:g}" if epsilon > 0 else text


def _play_eval(settings: LoopSettings, out: Path, rec: dict[str, Any], workers: int, say: _Reporter) -> EvalRecord:
    """Play the candidate (A) against the champion (B); the candidate's record. Tests replace this to force outcomes."""
    from fuseki.arena.eval_settings import EvalSettings
    from fuseki.arena.evaluate import evaluate
    from fuseki.go.rules import Rules

    number = rec["round"]
    size = int(rec["board_size"])
    epsilon = DEFAULT_EVAL_TEMPERATURE[settings.kind] if settings.eval_temperature is None else settings.eval_temperature
    komi = Rules.preset(settings.rules).komi if settings.komi is None else settings.komi
    es = EvalSettings(
        agent_a=_spec(out / rec["train"]["candidate"], epsilon),
        agent_b=_spec(out / rec["champion"], epsilon),
        size=size,
        komi=float(komi),
        rules=settings.rules,
        max_moves=settings.max_moves,
        seed=_seed(settings, number, "eval"),
        dead_playouts=settings.dead_playouts,
    )
    say(f"round {number}: evaluating {version_name(number)} (A) against {rec['champion_name']} (B), "
        f"{settings.eval_games} games, colours alternating")
    summary = evaluate(es, settings.eval_games, sgf_dir=round_dir(out, number) / "eval", workers=workers,
                       progress=say.step(number, "eval", f"round {number} eval: "))
    m = summary.match
    return EvalRecord(int(m.a_wins), int(m.b_wins), int(m.draws))


# ---- ratings and the table --------------------------------------------------------------


def _ratings(out: Path, state: dict[str, Any]) -> dict[str, Any] | None:
    """Fit and plot every finished round's record (candidate against champion); the fit as JSON."""
    done = [r for r in state["rounds"] if r["step"] == "done"]
    if not done:
        return None
    by_round = {
        r["round"]: [(version_name(r["round"]), r["champion_name"],
                      r["eval"]["wins"] + 0.5 * r["eval"]["draws"], r["eval"]["losses"] + 0.5 * r["eval"]["draws"])]
        for r in done
    }
    ratings = rating_curve(by_round, out / RATINGS_FILE, title=f"fuseki rl-loop ({state['settings']['method']})")
    return ratings.to_dict()


def format_table(state: Mapping[str, Any]) -> str:
    """One line per finished round: candidate vs champion W/L(/D), win rate, one-sided p, Elo, promoted."""
    lines = [f"{'round':>5}  {'candidate vs champion':<22} {'W-L':>9}  {'win rate':>8}  {'p':>8}  "
             f"{'Elo':>7}  {'95 % interval':>15}  promoted"]
    ratings = {r["agent"]: r["elo"] for r in (state.get("ratings") or {}).get("ratings", [])}
    for r in state["rounds"]:
        pair = f"{version_name(r['round'])} vs {r['champion_name']}"
        if r["step"] != "done":
            lines.append(f"{r['round']:>5}  {pair:<22} (next step: {r['step']})")
            continue
        e = r["eval"]
        wl = f"{e['wins']}-{e['losses']}" + (f"-{e['draws']}" if e["draws"] else "")
        lo, hi = e["elo_ci95"]
        mark = (">=" if e["wins"] else "<=") if e["elo_clipped"] else ""
        elo = "-" if e["elo"] is None else f"{mark}{e['elo']:+.0f}"
        interval = f"{_fmt(lo)} {_fmt(hi)}"
        promoted = "yes" if r["promoted"] else "no"
        lines.append(f"{r['round']:>5}  {pair:<22} {wl:>9}  {100 * e['win_rate']:7.1f}%  {e['p_value']:8.3g}  "
                     f"{elo:>7}  {interval:>15}  {promoted}")
    s = state["settings"]
    gate = "always (--keep-latest)" if s["keep_latest"] else f"one-sided binomial p < {s['alpha']:g} and win rate > 50 %"
    champion = state["champion_name"]
    rating = ratings.get(champion)
    lines.append(f"promotion: {gate}; champion now {champion} ({state['champion']}"
                 + ("" if rating is None else f", Elo {rating:+.0f} against v0 = 0") + ")")
    return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "inf" if x is None else f"{x:+.0f}"


# ---- the loop -----------------------------------------------------------------------------


def run_loop(
    settings: LoopSettings,
    out_dir: str | os.PathLike[str],
    rounds: int,
    *,
    workers: int = 1,
    device: str = "auto",
    progress: ProgressCallback | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) rounds 1 to ``rounds`` of the loop in ``out_dir``; returns the state (``loop.json``).

    Raises :class:`LoopMismatch` for a folder of another loop,
    :class:`~fuseki.util.runs.RunFolderBusy` when a loop is running in it,
    :class:`~fuseki.agents.agent_file.AgentFileError` for a bad start file,
    and ``ValueError`` for bad numbers or a start file of the wrong kind.
    After every finished round ``DIR/ratings.png`` is redrawn and
    ``progress`` gets the table of :func:`format_table`; it gets a
    :class:`~fuseki.util.progress.Progress` for each line of the loop and,
    passed on with the round in front, each event of its self-play and
    evaluation.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise InputError(f"rounds must be a whole number of at least 1, got {rounds!r}")
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    say = _Reporter(progress, rounds)
    out = Path(out_dir)
    start = _start_agent(settings)
    folder = run_folder(out)
    with folder.locked():
        state = _prepare(settings, folder, rounds, start)
        if command is not None:
            state["command"] = command
        _save(out, state)
        return _run_rounds(settings, out, rounds, state, workers, device, say)


def _run_rounds(
    settings: LoopSettings, out: Path, rounds: int, state: dict[str, Any], workers: int, device: str, say: _Reporter
) -> dict[str, Any]:
    """Rounds 1 to ``rounds`` from the step each reached (the folder is locked); returns the state."""
    from fuseki.agents.agent_file import read_agent_info

    finished = sum(r["step"] == "done" for r in state["rounds"])
    say.finished = finished
    if finished:
        say(f"{out}: {finished} round(s) finished earlier; champion {state['champion_name']}")
    for number in range(1, rounds + 1):
        if number <= len(state["rounds"]):
            rec = state["rounds"][number - 1]
        else:
            rec = {
                "round": number,
                "champion": state["champion"],
                "champion_name": state["champion_name"],
                "board_size": read_agent_info(out / state["champion"]).board_size,
                "step": "selfplay",
                "started": _now(),
                "timing": {},
            }
            state["rounds"].append(rec)
        if rec["step"] == "done":
            continue
        if rec["step"] != "selfplay":
            say(f"round {number}: resuming at step {rec['step']}")
        state["step"] = {"round": number, "step": rec["step"]}
        _save(out, state)
        t0 = time.monotonic()
        if rec["step"] == "selfplay":
            rec["selfplay"] = _selfplay(settings, out, rec, workers, say)
            _advance(out, state, rec, "train")
        if rec["step"] == "train":
            rec["train"] = _train_candidate(settings, out, state, rec, device, say)
            _advance(out, state, rec, "eval")
        if rec["step"] == "eval":
            record = _play_eval(settings, out, rec, workers, say)
            promoted = promotes(record, settings.alpha, keep_latest=settings.keep_latest)
            rec["eval"] = {**record.to_dict(), "seed": _seed(settings, number, "eval"),
                           "sgf_dir": os.path.relpath(round_dir(out, number) / "eval", out)}
            rec["promoted"] = promoted
            if promoted:
                state["champion"] = rec["train"]["candidate"]
                state["champion_name"] = version_name(number)
            rec["champion_after"] = state["champion"]
            rec["champion_after_name"] = state["champion_name"]
            rec["timing"]["finished"] = _now()
            rec["timing"]["round_seconds_this_run"] = round(time.monotonic() - t0, 3)
            _advance(out, state, rec, "done")
            e = rec["eval"]
            verdict = "promoted: it is the new champion" if promoted else f"not promoted: {state['champion_name']} stays"
            say(f"round {number}: {version_name(number)} vs {rec['champion_name']}: {e['wins']}-{e['losses']}"
                + (f"-{e['draws']}" if e["draws"] else "")
                + f", win rate {100 * e['win_rate']:.1f} %, one-sided p = {e['p_value']:.3g}; {verdict}")
            state["ratings"] = _ratings(out, state)
            _save(out, state)
            say.finished = sum(r["step"] == "done" for r in state["rounds"])
            say(format_table(state))
    # Every round up to ``rounds`` is done here (a smaller ``rounds`` than before leaves later rounds as they are).
    last = state["rounds"][-1]
    state["step"] = {"round": last["round"], "step": last["step"]}
    _save(out, state)
    return state


def _advance(out: Path, state: dict[str, Any], rec: dict[str, Any], step: str) -> None:
    """Record that the round's next step is ``step`` and write the state (atomically) before going on."""
    rec["step"] = step
    state["step"] = {"round": rec["round"], "step": step}
    _save(out, state)


def comparable(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state without times, commands and paths outside the folder: what two runs of the same loop share.

    A resumed loop and an uninterrupted one with the same settings give equal ``comparable`` states.
    """
    data = json.loads(json.dumps(state))
    for key in ("created", "command"):
        data.pop(key, None)
    data.get("start", {}).pop("path", None)
    for r in data.get("rounds", []):
        r.pop("timing", None)
        r.pop("started", None)
    return data
