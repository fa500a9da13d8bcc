"""Self-play game corpora, made offline: :func:`generate`.

Supervised learning needs games. Without internet there are no KGS archives,
so we make our own (the book does the same in chapter 6 with
``generate_mcts_games.py``):

- ``engine="gnugo"``: GNU Go plays itself. Each game draws the levels of Black
  and White from ``levels``, starts with up to ``random_opening`` random moves
  (sent to both engines with ``play``) and gives each engine its own random
  seed (GTP ``set_random_seed``), so that games differ. No clock is sent
  (unless ``clock``): GNU Go with a clock ignores its level and plays
  every game at level 10. The moves are checked
  by our rules engine and the finished game is scored by a GNU Go referee's
  ``final_score``: all of this is the match runner's machinery
  (:class:`~fuseki.arena.gtp_engines.Engine`, :func:`~fuseki.arena.match.play_gtp_game`,
  :class:`~fuseki.arena.scoring.Referee`).
- ``engine="mcts"``: our MCTS plays itself in-process, ``playouts`` per move,
  after the same random opening; finished games are scored by our area count.

Everything random in game ``n`` comes from :func:`derive_seed` of ``(seed, n)``,
so a corpus is a function of its settings. Each game is written atomically as
``game_000001.sgf`` ...; a ``recipe.json`` next to them holds the settings,
the command that makes the corpus, the versions (fuseki's git commit, GNU
Go's version) and one entry per run with its duration. Games whose SGF is
already there and finished are skipped, so a killed run is continued by
running the same command again; a second run on a folder that a run is
writing to is refused (:mod:`fuseki.util.runs`). Games are played in parallel
by worker processes, each with its own engines.

The root comment of each SGF holds ``key: value`` lines; ``opening: K random
moves`` tells a data pipeline which first moves were not chosen by an engine.

>>> parse_levels("1-3,7")
(1, 2, 3, 7)
>>> derive_seed(0, 1) == derive_seed(0, 1) != derive_seed(1, 1)
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import multiprocessing.util
import os
import random
import secrets
import shlex
import subprocess
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from fuseki import __version__
from fuseki.agents import make_agent
from fuseki.arena.gtp_engines import Engine
from fuseki.arena.match import play_gtp_game
from fuseki.arena.outcome import Forfeit
from fuseki.arena.scoring import Referee
from fuseki.data.stats import RECIPE_FILE
from fuseki.engines.gtp_client import GtpClient, GtpClientError
from fuseki.engines.programs import resolve_command
from fuseki.go.coords import check_size
from fuseki.go.rules import KoRule, Rules, Scoring
from fuseki.go.sgf import GameRecord, SgfError, load_sgf, parse_result, save_sgf
from fuseki.go.state import Color, GameState, Move
from fuseki.util.errors import InputError
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import ChunkPlan, RunFolder, RunMismatch, WorkerPool, derive_seed, field_defaults

__all__ = [
    "ENGINES",
    "RECIPE_FILE",
    "GameDone",
    "GamePlan",
    "GenerateSettings",
    "GenerateSummary",
    "RecipeMismatch",
    "derive_seed",
    "game_path",
    "generate",
    "parse_levels",
    "random_opening",
    "recipe_command",
]

ENGINES = ("gnugo", "mcts")
#: How often a GNU Go game that ends in an engine failure is tried again (with new seeds).
ATTEMPTS = 3
#: Seconds GNU Go (and the referee) may take to start and to answer anything but ``genmove``.
SETUP_TIMEOUT = 30.0


#: The output folder holds a corpus made with other settings (the one mismatch error of every run folder).
RecipeMismatch = RunMismatch


# ---- small pure helpers -------------------------------------------------------------


def parse_levels(text: str) -> tuple[int, ...]:
    """``"1-10"``, ``"1,5,10"``, ``"3"`` or a mix -> sorted distinct GNU Go levels (0 to 10).

    >>> parse_levels("10,1,5")
    (1, 5, 10)
    """
    levels: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        lo, dash, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if dash else a
        except ValueError:
            raise InputError(f"levels: {part!r} is not a level or a range like 1-10") from None
        if a > b:
            raise InputError(f"levels: empty range {part!r}")
        if a < 0 or b > 10:
            raise InputError(f"levels: GNU Go levels are 0 to 10, got {part!r}")
        levels.update(range(a, b + 1))
    return tuple(sorted(levels))


def format_levels(levels: Sequence[int]) -> str:
    """The shortest text for :func:`parse_levels`: ``(1, 2, 3, 7)`` -> ``"1-3,7"``."""
    parts: list[str] = []
    run: list[int] = []
    for level in sorted(levels):
        if run and level == run[-1] + 1:
            run.append(level)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [level]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def game_path(out_dir: str | os.PathLike[str], number: int) -> Path:
    """``OUT/game_000123.sgf`` for game 123 (1-based)."""
    return Path(out_dir) / f"game_{number:06d}.sgf"


def random_opening(state: GameState, count: int, rng: random.Random) -> list[Move]:
    """Up to ``count`` uniformly random moves that are legal and not obviously bad.

    Not obviously bad: off the first line (on boards of 5 and more), not into
    an own eye, and not a self-atari (the new string keeps two liberties).
    Stops early when no such move is left. The moves alternate colours from
    ``state.next_player``; the state itself is not changed.

    >>> s = GameState.new(9)
    >>> moves = random_opening(s, 3, random.Random(1))
    >>> len(moves), all(1 <= m.point.row <= 7 and 1 <= m.point.col <= 7 for m in moves)
    (3, True)
    """
    n = state.size
    edge = 1 if n >= 5 else 0
    moves: list[Move] = []
    for _ in range(count):
        color = state.next_player
        candidates = []
        for index in sorted(int(p) for p in state.legal_points()[:-1]):  # the order of legal_points is unspecified
            row, col = divmod(index, n)
            if not (edge <= row < n - edge and edge <= col < n - edge):
                continue
            if state.is_eye(index, color):
                continue
            move = Move.play((row, col))
            if state.play(move).liberties((row, col)) < 2:
                continue
            candidates.append(move)
        if not candidates:
            break
        move = rng.choice(candidates)
        moves.append(move)
        state = state.play(move)
    return moves


# ---- settings and plans -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GenerateSettings:
    """Everything that decides a corpus (not the number of games or workers)."""

    engine: str = "gnugo"  #: ``"gnugo"`` or ``"mcts"``
    size: int = 9
    komi: float = 7.5
    levels: tuple[int, ...] = tuple(range(1, 11))  #: GNU Go levels to draw from (gnugo only)
    random_opening: int = 0  #: at most this many random moves first; the number is drawn from 0..K
    playouts: int = 1000  #: per move (mcts only)
    seed: int = 0
    max_moves: int | None = None  #: ``None``: three times the board's area
    move_time: float = 60.0  #: seconds a genmove may take before the engine counts as hung
    rules: str = "chinese"
    gnugo: str = "gnugo"  #: GNU Go's program (found in /usr/games too)
    #: Send GNU Go ``time_settings 0 move_time 1``. Off by default: with a clock
    #: GNU Go ignores its level: every game would be a level-10 game, and the
    #: corpus took 1.6 times as long to make (docs/corpus.md).
    clock: bool = False

    #: Corpora made before ``clock`` existed were played with a clock.
    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise InputError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        check_size(self.size)
        Rules.preset(self.rules)
        object.__setattr__(self, "levels", tuple(sorted(set(int(x) for x in self.levels))))
        if not self.levels or not all(0 <= x <= 10 for x in self.levels):
            raise InputError(f"levels must be GNU Go levels from 0 to 10, got {self.levels}")
        if not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi}")
        if self.random_opening < 0:
            raise InputError(f"random opening must not be negative, got {self.random_opening}")
        if self.playouts < 1:
            raise InputError(f"playouts must be at least 1, got {self.playouts}")
        if self.max_moves is not None and self.max_moves < 1:
            raise InputError(f"max moves must be at least 1, got {self.max_moves}")
        if not (math.isfinite(self.move_time) and self.move_time > 0):
            raise InputError(f"move time must be a positive number of seconds, got {self.move_time}")

    @property
    def move_cap(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size

    @property
    def game_rules(self) -> Rules:
        return Rules.preset(self.rules).replace(komi=float(self.komi))

    def gnugo_argv(self) -> list[str]:
        """GNU Go in GTP mode with our scoring and ko rule (``--chinese-rules``, ``--positional-superko``)."""
        argv = resolve_command(self.gnugo) + ["--mode", "gtp"]
        rules = self.game_rules
        if rules.scoring is Scoring.AREA:
            argv.append("--chinese-rules")
        if rules.ko is KoRule.POSITIONAL:
            argv.append("--positional-superko")
        elif rules.ko is KoRule.SITUATIONAL:
            argv.append("--situational-superko")
        return argv

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["levels"] = list(self.levels)
        if self.engine == "gnugo":
            data.pop("playouts")
        else:
            for key in ("levels", "move_time", "gnugo", "clock"):
                data.pop(key)
        return data

    @classmethod
    def with_legacy(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A recipe's stored settings, plus the values a GNU Go recipe stands for where it predates a setting."""
        return {**(cls.LEGACY if data.get("engine", cls.engine) == "gnugo" else {}), **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GenerateSettings:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in cls.with_legacy(data).items() if k in fields}
        if "levels" in values:
            values["levels"] = tuple(values["levels"])
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class GamePlan:
    """What the seed decides for one game (and one attempt at it)."""

    number: int
    attempt: int
    seed: int  #: the game's own seed, from :func:`derive_seed`
    black_level: int | None  #: GNU Go levels (``None`` for mcts)
    white_level: int | None
    opening: int  #: number of random opening moves (fewer if no good move is left)

    @classmethod
    def make(cls, settings: GenerateSettings, number: int, attempt: int = 0) -> GamePlan:
        seed = derive_seed(settings.seed, number, attempt)
        rng = random.Random(seed)
        if settings.engine == "gnugo":
            black, white = rng.choice(settings.levels), rng.choice(settings.levels)
        else:
            black = white = None
        return cls(number, attempt, seed, black, white, rng.randint(0, settings.random_opening))

    def rng(self) -> random.Random:
        """The generator for the opening moves (separate from the one that drew the plan)."""
        return random.Random(derive_seed(self.seed, 1))


@dataclasses.dataclass(frozen=True)
class GameDone:
    """One game of a run: written (or found) in the output folder, or failed."""

    number: int
    result: str  #: ``RE``; ``""`` when the game failed
    moves: int
    black: str
    white: str
    seconds: float = 0.0
    reused: bool = False
    error: str = ""  #: why no game was written (every attempt failed)
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class GenerateSummary:
    """The tally of a run: games in the folder, games played now, failures, speed."""

    out_dir: str
    games: tuple[GameDone, ...]
    seconds: float  #: wall time of this run

    @property
    def played(self) -> int:
        return sum(g.ok and not g.reused for g in self.games)

    @property
    def reused(self) -> int:
        return sum(g.reused for g in self.games)

    @property
    def failed(self) -> int:
        return sum(not g.ok for g in self.games)

    @property
    def games_per_minute(self) -> float | None:
        return 60.0 * self.played / self.seconds if self.played and self.seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        done = [g for g in self.games if g.ok]
        black = sum(g.result.upper().startswith("B+") for g in done)
        white = sum(g.result.upper().startswith("W+") for g in done)
        rate = self.games_per_minute
        return {
            "out": self.out_dir,
            "games": len(done),
            "played": self.played,
            "reused": self.reused,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
            "games_per_minute": None if rate is None else round(rate, 3),
            "black_wins": black,
            "white_wins": white,
            "draws": len(done) - black - white,
            "resignations": sum(g.result.upper().endswith("+R") for g in done),
            "mean_moves": round(sum(g.moves for g in done) / len(done), 2) if done else None,
            "failures": [{"game": g.number, "error": g.error} for g in self.games if not g.ok],
        }

    def describe(self) -> str:
        j = self.to_dict()
        rate = "" if j["games_per_minute"] is None else f", {j['games_per_minute']:.2f} games/min"
        return (
            f"{self.out_dir}: {j['games']} games ({j['played']} played now in {self.seconds:.1f} s{rate}, "
            f"{j['reused']} from earlier runs, {j['failed']} failed); Black won {j['black_wins']}, "
            f"White {j['white_wins']}, {j['resignations']} by resignation, {j['mean_moves']} moves on average"
        )


# ---- recipe ------------------------------------------------------------------------


def recipe_command(settings: GenerateSettings, games: int, out_dir: str | os.PathLike[str], workers: int) -> str:
    """The ``fuseki data generate`` command line that makes (or continues) this corpus."""
    s = settings
    args = ["fuseki", "data", "generate", "--engine", s.engine, "--games", str(games), "--size", str(s.size)]
    args += ["--out", os.fspath(out_dir), "--workers", str(workers)]
    if s.engine == "gnugo":
        args += ["--levels", format_levels(s.levels)]
    else:
        args += ["--playouts", str(s.playouts)]
    args += ["--random-opening", str(s.random_opening), "--komi", f"{s.komi:g}", "--seed", str(s.seed)]
    if s.max_moves is not None:
        args += ["--max-moves", str(s.max_moves)]
    if s.rules != "chinese":
        args += ["--rules", s.rules]
    if s.engine == "gnugo":
        if s.move_time != GenerateSettings.move_time:
            args += ["--move-time", f"{s.move_time:g}"]
        if s.gnugo != GenerateSettings.gnugo:
            args += ["--gnugo", s.gnugo]
        if s.clock:
            args.append("--clock")
    return shlex.join(args)


def _git_commit() -> str | None:
    """fuseki's commit (``git rev-parse HEAD``, read-only), or ``None`` outside a checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and commit else None


def _gnugo_version(settings: GenerateSettings) -> str | None:
    """``"GNU Go 3.8"`` as the engine answers ``name`` and ``version``; ``None`` if it does not start."""
    try:
        with GtpClient(settings.gnugo_argv(), timeout=30) as gtp:
            return f"{gtp.name().strip()} {gtp.version().strip()}".strip()
    except (OSError, ValueError, GtpClientError):
        return None


def _versions(settings: GenerateSettings) -> dict[str, Any]:
    import platform

    versions: dict[str, Any] = {"fuseki": __version__, "fuseki_commit": _git_commit(), "python": platform.python_version()}
    if settings.engine == "gnugo":
        versions["gnugo"] = _gnugo_version(settings)
        versions["gnugo_argv"] = settings.gnugo_argv()
    return versions


def run_folder(out_dir: str | os.PathLike[str]) -> RunFolder:
    """The corpus folder: ``recipe.json``, its check and its lock."""
    return RunFolder(
        Path(out_dir),
        RECIPE_FILE,
        holds="a corpus made with other settings",
        file_kind="a corpus recipe",
    )


def _prepare(settings: GenerateSettings, folder: RunFolder) -> dict[str, Any]:
    """The recipe in the (locked) folder, checked against ``settings``, or a new one.

    A setting an old recipe lacks stands for its default, or for what
    :attr:`GenerateSettings.LEGACY` says the old corpora were made with
    (``clock``: with a clock). Only the settings of the recipe's engine are
    compared (an ``mcts`` recipe holds no ``clock``).
    """
    mine = settings.to_dict()
    theirs = folder.saved_settings()
    if theirs is None:
        return {"fuseki_corpus": 1, "settings": mine, "runs": []}
    folder.check(theirs, mine, defaults=field_defaults(GenerateSettings))
    recipe = folder.read()
    assert recipe is not None
    return recipe


# ---- players ---------------------------------------------------------------------------


class _Player(Protocol):
    def play(self, number: int) -> GameDone: ...

    def close(self) -> None: ...


def _comment(settings: GenerateSettings, plan: GamePlan, opening: int, notes: Sequence[str]) -> str:
    lines = [
        f"fuseki data generate: game {plan.number}, engine {settings.engine}",
        f"seed: {plan.seed} (from seed {settings.seed}, game {plan.number}, attempt {plan.attempt})",
    ]
    if plan.black_level is not None:
        lines.append(f"levels: black {plan.black_level}, white {plan.white_level}")
    else:
        lines.append(f"playouts: {settings.playouts}")
    lines.append(f"opening: {opening} random move{'' if opening == 1 else 's'}")
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines)


def _save(
    out_dir: Path,
    settings: GenerateSettings,
    plan: GamePlan,
    state: GameState,
    result: str,
    black: str,
    white: str,
    opening: int,
    notes: Sequence[str],
    started: float,
) -> GameDone:
    record = GameRecord.from_state(
        state, black=black, white=white, result=result, date=datetime.date.today().isoformat()
    )
    record.comment = _comment(settings, plan, opening, notes)
    record.event = "fuseki data generate"
    record.game_name = f"game {plan.number}"
    save_sgf(game_path(out_dir, plan.number), record)
    return GameDone(
        plan.number, result, len(record.moves), black, white, time.monotonic() - started, note="; ".join(notes)
    )


class _GnuGoPlayer:
    """GNU Go against itself, on the match runner's move loop, referee and forfeit handling.

    One GNU Go process per colour (levels and seeds change per game by GTP)
    and one referee, all restarted after a failure.
    """

    def __init__(self, settings: GenerateSettings, out_dir: Path) -> None:
        self.settings = settings
        self.out_dir = out_dir
        argv = settings.gnugo_argv()
        self.engines = {
            Color.BLACK: Engine("black", argv, SETUP_TIMEOUT),
            Color.WHITE: Engine("white", argv, SETUP_TIMEOUT),
        }
        self.referee = Referee(argv, timeout=SETUP_TIMEOUT)  # at GNU Go's default level, 10

    def play(self, number: int) -> GameDone:
        started = time.monotonic()
        errors: list[str] = []
        for attempt in range(ATTEMPTS):
            plan = GamePlan.make(self.settings, number, attempt)
            try:
                return self._play(plan, started, errors)
            except Forfeit as f:
                errors.append(f"attempt {attempt}: {f.color.name.lower()} {f.reason}")
                for engine in self.engines.values():
                    engine.stop()  # fresh engines for the next attempt
        return GameDone(number, "", 0, "", "", time.monotonic() - started, error="; ".join(errors))

    def _play(self, plan: GamePlan, started: float, errors: list[str]) -> GameDone:
        s = self.settings
        by_color = self.engines
        levels = {Color.BLACK: plan.black_level, Color.WHITE: plan.white_level}
        for color, engine in by_color.items():
            engine.setup(color, size=s.size, komi=s.komi, move_time=s.move_time, clock=s.clock)
            engine_seed = derive_seed(plan.seed, 2, int(color))

            def configure(gtp: Any, level: int | None = levels[color], seed: int = engine_seed) -> None:
                gtp.send(f"level {level}")
                gtp.send(f"set_random_seed {seed}")

            engine.call(color, configure)
        state = GameState.new(s.size, s.game_rules)
        opening = random_opening(state, plan.opening, plan.rng())
        for move in opening:
            color, vertex = state.next_player, move.gtp(s.size)
            state = state.play(move)
            for other, engine in by_color.items():
                engine.call(other, lambda gtp, c=color, v=vertex: gtp.play(c, v))
        game = play_gtp_game(by_color, state, move_cap=s.move_cap, move_time=s.move_time, referee=self.referee)
        notes = [f"earlier {e}" for e in errors] + list(game.notes)
        names = {c: f"{e.name} level {levels[c]}" for c, e in by_color.items()}
        return _save(
            self.out_dir, s, plan, game.state, game.result, names[Color.BLACK], names[Color.WHITE], len(opening), notes, started
        )

    def close(self) -> None:
        for engine in self.engines.values():
            engine.stop()
        self.referee.close()


class _MctsPlayer:
    """Our MCTS against itself, in-process (the book's ``generate_game``, chapter 6)."""

    def __init__(self, settings: GenerateSettings, out_dir: Path) -> None:
        from fuseki import __version__

        self.settings = settings
        self.out_dir = out_dir
        self.name = f"fuseki {__version__} mcts {settings.playouts} playouts"

    def play(self, number: int) -> GameDone:
        s = self.settings
        started = time.monotonic()
        plan = GamePlan.make(s, number)
        agent = make_agent("mcts", playouts=s.playouts, seed=plan.seed)  # one tree for both sides, as in the book
        state = GameState.new(s.size, s.game_rules)
        opening = random_opening(state, plan.opening, plan.rng())
        state = state.apply_moves(opening)
        while not state.is_over() and state.move_number < s.move_cap:
            state = state.play(agent.select_move(state))
        notes = []
        if not state.is_over():
            notes.append(f"stopped at the move cap ({s.move_cap} moves) and scored as it stood")
        result = state.result() if state.is_over() else state.score().result
        return _save(self.out_dir, s, plan, state, result, self.name, self.name, len(opening), notes, started)

    def close(self) -> None:
        pass


def _make_player(settings: GenerateSettings, out_dir: Path) -> _Player:
    return _GnuGoPlayer(settings, out_dir) if settings.engine == "gnugo" else _MctsPlayer(settings, out_dir)


# Worker processes: one player each, made by the pool's initializer.
_WORKER: _Player | None = None


def _worker_init(settings: GenerateSettings, out_dir: str) -> None:
    global _WORKER
    _WORKER = _make_player(settings, Path(out_dir))
    multiprocessing.util.Finalize(None, _WORKER.close, exitpriority=10)


def _worker_play(number: int) -> GameDone:
    assert _WORKER is not None
    return _WORKER.play(number)


# ---- the run ----------------------------------------------------------------------------


def _finished(out_dir: Path, number: int) -> GameDone | None:
    """The game stored by an earlier run, if its SGF is there, readable and has a result."""
    path = game_path(out_dir, number)
    if not path.exists():
        return None
    try:
        record = load_sgf(path)
        parse_result(record.result)
    except (OSError, SgfError, ValueError):
        return None  # unreadable or unfinished: play it again
    return GameDone(number, record.result, len(record.moves), record.black, record.white, reused=True)


def generate(
    settings: GenerateSettings,
    out_dir: str | os.PathLike[str],
    games: int,
    *,
    workers: int = 1,
    progress: ProgressCallback | None = None,
) -> GenerateSummary:
    """Make games 1 to ``games`` in ``out_dir`` (skipping finished ones) and return the tally.

    ``workers`` processes play in parallel (1: in this process).
    ``progress`` gets a :class:`~fuseki.util.progress.Progress` per game.
    Raises :class:`RecipeMismatch` when ``out_dir`` holds a corpus with other
    settings, :class:`~fuseki.util.runs.RunFolderBusy` when another run is
    writing to it, and ``FileNotFoundError`` when GNU Go is needed and missing.
    """
    if games < 0:
        raise InputError(f"number of games must not be negative, got {games}")
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    say = progress or (lambda event: None)
    out = Path(out_dir)
    folder = run_folder(out)
    with folder.locked():
        recipe = _prepare(settings, folder)
        if settings.engine == "gnugo":
            from fuseki.engines.programs import program_exists

            argv = settings.gnugo_argv()
            if not program_exists(argv):
                raise FileNotFoundError(f"GNU Go: program {argv[0]!r} not found (Debian: apt install gnugo)")
        started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        total = max(games, int(recipe.get("games", 0)))
        recipe = {
            "fuseki_corpus": 1,
            "command": recipe_command(settings, total, out, workers),
            "games": total,
            "settings": recipe["settings"],
            "versions": _versions(settings),
            "runs": recipe.get("runs", []),
        }
        folder.write(recipe)

        plan = ChunkPlan.scan(range(1, games + 1), lambda number: _finished(out, number))
        done = dict(plan.done)
        todo = plan.todo
        if done:
            say(Progress(len(done), games, "game", f"{len(done)} of {games} games are already in {out}; "
                         f"playing the other {len(todo)}", {"reused": len(done)}))
        t0 = time.monotonic()
        played = 0
        run = {"id": secrets.token_hex(6), "started": started_at, "games": games, "workers": workers}
        saved = t0
        with contextlib.closing(_run(settings, out, todo, workers)) as results:
            for game in results:
                done[game.number] = game
                played += 1
                elapsed = time.monotonic() - t0
                if time.monotonic() - saved >= RUN_SAVE_SECONDS:  # a killed run still leaves its time behind
                    failed = sum(not g.ok for g in done.values())
                    _record_run(folder, recipe, run, played, failed, elapsed, finished=False)
                    saved = time.monotonic()
                rate = 60.0 * played / elapsed if elapsed > 0 else 0.0
                eta = (len(todo) - played) / rate if rate > 0 else 0.0
                what = f"{game.result} in {game.moves} moves" if game.ok else f"FAILED ({game.error})"
                say(Progress(
                    len(done), games, "game",
                    f"game {game.number}/{games}: {game.black} vs {game.white}: {what} ({game.seconds:.1f} s)"
                    f" | {played}/{len(todo)} done, {rate:.2f} games/min, about {eta:.0f} min left",
                    {"game": game.to_dict(), "games_per_minute": round(rate, 3)},
                ))
        summary = GenerateSummary(str(out), tuple(done[n] for n in sorted(done)), time.monotonic() - t0)
        _record_run(folder, recipe, run, summary.played, summary.failed, summary.seconds, finished=True)
    return summary


#: How often a run writes its progress (games, seconds) into ``recipe.json``.
RUN_SAVE_SECONDS = 60.0


def _record_run(
    folder: RunFolder,
    recipe: dict[str, Any],
    run: dict[str, Any],
    played: int,
    failed: int,
    seconds: float,
    *,
    finished: bool,
) -> None:
    """Write this run's entry into ``recipe.json`` (replacing its earlier entry).

    Called once a minute and at the end, so the time a corpus took adds up
    over runs that were killed (``finished: false``) as well as finished ones.
    """
    entry = {
        **run,
        "played": played,
        "failed": failed,
        "seconds": round(seconds, 3),
        "games_per_minute": round(60.0 * played / seconds, 3) if played and seconds > 0 else None,
        "host_cpus": os.cpu_count(),
        "finished": finished,
    }
    runs = [r for r in recipe.get("runs", []) if r.get("id") != run["id"]]
    recipe["runs"] = [*runs, entry]
    folder.write(recipe)


def _run(settings: GenerateSettings, out: Path, todo: list[int], workers: int) -> Generator[GameDone, None, None]:
    """Play the games in ``todo``, yielding each as it finishes (in any order with workers)."""
    if not todo:
        return
    if workers == 1 or len(todo) == 1:
        player = _make_player(settings, out)
        try:
            for number in todo:
                yield player.play(number)
        finally:
            player.close()
        return
    # A killed pool leaves the games it finished on disk; the next run goes on from there.
    with WorkerPool(min(workers, len(todo)), _worker_init, (settings, os.fspath(out))) as pool:
        yield from pool.map_unordered(_worker_play, todo)
