"""Self-play with experience collection (book ch. 9, section 9.4), in parallel, resumable: :func:`selfplay`.

The book's driver (listings 9.18-9.21) loads the learning agent twice,
gives each copy an :class:`~fuseki.data.experience.ExperienceCollector`,
plays games one after another, rewards each side +1 or -1 at the end and
saves the combined experience. Ours does the same, and:

- plays in ``workers`` processes (``spawn``: safe with torch and on every
  platform), each loading the agents once;
- makes every game a function of ``(seed, game number)`` alone: the agents'
  random generators are reseeded from :func:`~fuseki.util.seeds.derive_seed`
  before each game and torch runs on one thread in each player, so 1 worker
  and 8 workers give the same games;
- writes the experience in chunks of ``chunk_size`` games
  (``OUT/chunks/chunk_000001.npz`` ...), each atomically; a run that is
  killed keeps its finished chunks, and running the same command again plays
  only the missing ones. ``OUT/selfplay.json`` holds the settings (with the
  agent files' SHA-256): a folder made with other settings, or with an agent
  file that has changed since, is refused, and so is a second run on a
  folder that a run is writing to (:mod:`fuseki.util.runs`);
- when every chunk is there, merges them in order into
  ``OUT/experience.npz`` (what ``fuseki train pg|q|ac`` reads), with each
  game's result in its metadata; SGF files of the games are optional
  (``OUT/sgf/game_000001.sgf``).

With ``agent2`` the learning agent plays a fixed opponent instead of itself,
taking Black in odd games and White in even ones (section 9.4.2: a learner
must see both colours), and only its own decisions are recorded.

Games end by two passes (the book's agents pass only when no legal move is
left outside their own eyes). A game still going at the move limit
(``max_moves``, default three times the board's area, as in
``fuseki data generate``) is stopped and scored as it stands. Either way
the score is the area count of the state's rules (every stone alive, komi
added) and the winner gets reward +1, the loser -1; a draw (integer komi)
gives both 0.

``temperature`` is the book's ``set_temperature``: the chance of a uniformly
random move (ε); by default 0 for policy and actor-critic agents (they sample
already) and 0.5 for Q agents (section 11.1's starting ε).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import json
import math
import os
import shlex
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from fuseki.agents.agent_file import read_agent_info, resolve_agent_path
from fuseki.agents.rl_agents import KINDS, load_rl_agent
from fuseki.data.experience import ExperienceBuffer, ExperienceCollector, ExperienceError, combine_experience
from fuseki.util.atomic import sha256_file
from fuseki.util.errors import InputError
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import ChunkPlan, RunFolder, RunMismatch, WorkerPool, chunk_count, chunk_items, derive_seed

__all__ = [
    "CHUNKS_DIR",
    "DEFAULT_TEMPERATURE",
    "EXPERIENCE_FILE",
    "SETTINGS_FILE",
    "SGF_DIR",
    "GameResult",
    "SelfPlayMismatch",
    "SelfPlaySettings",
    "SelfPlaySummary",
    "chunk_path",
    "play_game",
    "selfplay",
]

SETTINGS_FILE = "selfplay.json"
CHUNKS_DIR = "chunks"
SGF_DIR = "sgf"
EXPERIENCE_FILE = "experience.npz"
#: The exploration temperature (ε) each agent kind plays with unless told otherwise.
DEFAULT_TEMPERATURE = {"policy": 0.0, "ac": 0.0, "q": 0.5}


#: The output folder holds self-play made with other settings or other agent files (the one run-folder mismatch).
SelfPlayMismatch = RunMismatch


def chunk_path(out_dir: str | os.PathLike[str], index: int) -> Path:
    """``OUT/chunks/chunk_000003.npz`` for chunk 3 (1-based)."""
    return Path(out_dir) / CHUNKS_DIR / f"chunk_{index:06d}.npz"


@dataclasses.dataclass(frozen=True)
class SelfPlaySettings:
    """Everything that decides the games (not their number, the workers or the SGF option)."""

    agent: str  #: the learning agent's file (path or models name)
    agent2: str | None = None  #: a fixed opponent's file; ``None``: self-play
    seed: int = 0
    temperature: float | None = None  #: ε; ``None``: :data:`DEFAULT_TEMPERATURE` of the agent's kind
    chunk_size: int = 100
    max_moves: int | None = None  #: ``None``: three times the board's area
    komi: float | None = None  #: ``None``: the rule set's
    rules: str = "chinese"

    def __post_init__(self) -> None:
        from fuseki.go.rules import Rules

        Rules.preset(self.rules)
        if self.temperature is not None and not (math.isfinite(self.temperature) and 0 <= self.temperature <= 1):
            raise InputError(f"temperature (the chance of a random move) must be from 0 to 1, got {self.temperature}")
        if self.chunk_size < 1:
            raise InputError(f"the chunk size must be at least 1 game, got {self.chunk_size}")
        if self.max_moves is not None and self.max_moves < 1:
            raise InputError(f"max moves must be at least 1, got {self.max_moves}")
        if self.komi is not None and not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi}")


@dataclasses.dataclass(frozen=True)
class _Plan:
    """The settings resolved against the agent files: what workers need, and the identity of the games."""

    agent_path: str
    agent2_path: str | None
    kind: str
    encoder: str
    size: int
    temperature: float
    max_moves: int
    seed: int
    chunk_size: int
    rules: str
    komi: float
    identity: dict[str, Any]

    @property
    def key(self) -> str:
        """A short hash of the identity; every chunk records it."""
        text = json.dumps(self.identity, sort_keys=True).encode("utf-8")
        return hashlib.sha256(text).hexdigest()[:16]

    def game_rules(self) -> Any:
        from fuseki.go.rules import Rules

        return Rules.preset(self.rules).replace(komi=self.komi)


def _resolve(settings: SelfPlaySettings) -> _Plan:
    from fuseki.go.rules import Rules

    path = resolve_agent_path(settings.agent)
    info = read_agent_info(path)
    if info.kind not in KINDS:
        raise InputError(f"{path}: a {info.kind!r} agent file; self-play needs one of kind {', '.join(KINDS)}")
    identity: dict[str, Any] = {
        "agent_sha256": sha256_file(path),
        "kind": info.kind,
        "encoder": info.encoder,
        "board_size": info.board_size,
    }
    path2: Path | None = None
    if settings.agent2 is not None:
        path2 = resolve_agent_path(settings.agent2)
        info2 = read_agent_info(path2)
        if info2.kind not in KINDS:
            raise InputError(f"{path2}: a {info2.kind!r} agent file; the opponent must be one of kind {', '.join(KINDS)}")
        if info2.board_size != info.board_size:
            raise InputError(
                f"the agents play different boards: {path} {info.board_size}x{info.board_size}, "
                f"{path2} {info2.board_size}x{info2.board_size}"
            )
        identity["agent2_sha256"] = sha256_file(path2)
    temperature = DEFAULT_TEMPERATURE[info.kind] if settings.temperature is None else float(settings.temperature)
    n = info.board_size
    max_moves = settings.max_moves if settings.max_moves is not None else 3 * n * n
    komi = Rules.preset(settings.rules).komi if settings.komi is None else float(settings.komi)
    identity.update(
        {
            "seed": settings.seed,
            "temperature": temperature,
            "chunk_size": settings.chunk_size,
            "max_moves": max_moves,
            "rules": settings.rules,
            "komi": komi,
        }
    )
    return _Plan(
        str(path), None if path2 is None else str(path2), info.kind, info.encoder, n, temperature, max_moves,
        settings.seed, settings.chunk_size, settings.rules, komi, identity,
    )


# ---- playing ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GameResult:
    """One finished game."""

    number: int
    result: str  #: ``"B+3.5"``, ``"W+0.5"``, ``"0"``
    winner: str | None  #: ``"B"``, ``"W"`` or ``None`` (draw)
    moves: int
    capped: bool  #: stopped at the move limit and scored as it stood
    learner: str  #: the colour the learning agent played (``"BW"`` in self-play)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class _Players:
    """The agents of one process: two copies of the learner (or the learner and the opponent)."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.learner = load_rl_agent(plan.agent_path, epsilon=plan.temperature)
        if plan.agent2_path is None:
            # The book's two copies (listing 9.19), sharing one network: each has its own collector and generator.
            self.other = type(self.learner)(self.learner.model, self.learner.encoder, epsilon=plan.temperature,
                                            info=self.learner.info)
        else:
            self.other = load_rl_agent(plan.agent2_path)
        self.names = (Path(plan.agent_path).stem, Path(plan.agent2_path or plan.agent_path).stem)


def play_game(players: _Players, number: int, collectors: dict[Any, Any]) -> tuple[GameResult, Any]:
    """Game ``number``: reseed, play to two passes or the move limit, reward the collectors. Returns the result and the final state."""
    from fuseki.go.state import Color, GameState

    plan = players.plan
    game_seed = derive_seed(plan.seed, number)
    selfplay = plan.agent2_path is None
    learner_color = Color.BLACK if selfplay or number % 2 == 1 else Color.WHITE
    agents = {learner_color: players.learner, learner_color.other: players.other}
    recorded = {Color.BLACK: collectors[Color.BLACK], Color.WHITE: collectors[Color.WHITE]} if selfplay else {
        learner_color: collectors[learner_color]
    }
    for color, agent in agents.items():
        agent.reseed(derive_seed(game_seed, int(color)))
        agent.set_collector(recorded.get(color))
    for collector in recorded.values():
        collector.begin_episode()
    state = GameState.new(plan.size, plan.game_rules())
    while not state.is_over() and state.move_number < plan.max_moves:
        state = state.play(agents[state.next_player].select_move(state))
    capped = not state.is_over()
    score = state.score()
    winner = score.winner
    for color, collector in recorded.items():
        collector.complete_episode(0.0 if winner is None else (1.0 if winner == color else -1.0))
    for agent in agents.values():
        agent.set_collector(None)
    result = GameResult(
        number=number,
        result=score.result,
        winner=None if winner is None else winner.letter,
        moves=state.move_number,
        capped=capped,
        learner="BW" if selfplay else learner_color.letter,
    )
    return result, state


def _save_sgf(out: Path, players: _Players, plan: _Plan, result: GameResult, state: Any) -> None:
    from fuseki.go.sgf import GameRecord, save_sgf
    from fuseki.go.state import Color

    learner, other = players.names
    if plan.agent2_path is None:
        black = white = learner
    else:
        black, white = (learner, other) if result.learner == Color.BLACK.letter else (other, learner)
    record = GameRecord.from_state(state, black=black, white=white, result=result.result,
                                   date=datetime.date.today().isoformat())
    record.comment = (
        f"fuseki selfplay: game {result.number}, seed {derive_seed(plan.seed, result.number)} "
        f"(from seed {plan.seed}), temperature {plan.temperature:g}"
        + ("\nnote: stopped at the move limit and scored as it stood" if result.capped else "")
    )
    record.game_name = f"game {result.number}"
    save_sgf(out / SGF_DIR / f"game_{result.number:06d}.sgf", record)


def _chunk_games(plan: _Plan, index: int, games: int) -> list[int]:
    return chunk_items(index, plan.chunk_size, games)


def _play_chunk(players: _Players, out: Path, index: int, games: int, sgf: bool) -> dict[str, Any]:
    """Play the games of chunk ``index`` and write its experience atomically; returns a summary of it."""
    from fuseki.go.state import Color

    plan = players.plan
    started = time.monotonic()
    description = f"{Path(plan.agent_path).name} ({plan.kind}, sha256 {plan.identity['agent_sha256'][:16]})"
    collectors = {c: ExperienceCollector(players.learner.encoder, agent=description) for c in (Color.BLACK, Color.WHITE)}
    numbers = _chunk_games(plan, index, games)
    results = []
    for number in numbers:
        result, state = play_game(players, number, collectors)
        results.append(result.to_dict())
        if sgf:
            _save_sgf(out, players, plan, result, state)
    buffer = combine_experience([collectors[Color.BLACK], collectors[Color.WHITE]])
    buffer.metadata.update(
        {"games": len(numbers), "game_numbers": numbers, "results": results, "settings_key": plan.key, "chunk": index}
    )
    buffer.save(chunk_path(out, index))
    return {"chunk": index, "games": results, "positions": len(buffer), "seconds": time.monotonic() - started}


# Worker processes: the players, made once by the pool's initializer.
_WORKER: tuple[_Players, Path, int, bool] | None = None


def _worker_init(plan: _Plan, out: str, games: int, sgf: bool) -> None:
    global _WORKER
    import torch

    torch.set_num_threads(1)
    _WORKER = (_Players(plan), Path(out), games, sgf)


def _worker_chunk(index: int) -> dict[str, Any]:
    assert _WORKER is not None
    players, out, games, sgf = _WORKER
    return _play_chunk(players, out, index, games, sgf)


def _run(plan: _Plan, out: Path, todo: list[int], games: int, workers: int, sgf: bool) -> Generator[dict[str, Any], None, None]:
    if not todo:
        return
    if workers == 1 or len(todo) == 1:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as in the workers: the same arithmetic gives the same games
        try:
            players = _Players(plan)
            for index in todo:
                yield _play_chunk(players, out, index, games, sgf)
        finally:
            torch.set_num_threads(threads)
        return
    # A killed pool leaves its finished chunks on disk; the next run goes on from there.
    with WorkerPool(min(workers, len(todo)), _worker_init, (plan, os.fspath(out), games, sgf)) as pool:
        yield from pool.map_unordered(_worker_chunk, todo)


# ---- the run -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SelfPlaySummary:
    """The tally of a run."""

    out: str
    experience: str
    games: int
    played: int  #: games played by this run (the others were in finished chunks)
    positions: int
    seconds: float
    results: tuple[dict[str, Any], ...]
    agent2: bool

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        rate = self.games_per_second
        wins = {c: sum(r["winner"] == c for r in self.results) for c in ("B", "W")}
        data: dict[str, Any] = {
            "out": self.out,
            "experience": self.experience,
            "games": self.games,
            "played": self.played,
            "reused": self.games - self.played,
            "positions": self.positions,
            "seconds": round(self.seconds, 3),
            "games_per_second": None if rate is None else round(rate, 3),
            "black_wins": wins["B"],
            "white_wins": wins["W"],
            "draws": sum(r["winner"] is None for r in self.results),
            "capped": sum(bool(r["capped"]) for r in self.results),
            "mean_moves": round(sum(r["moves"] for r in self.results) / len(self.results), 2) if self.results else None,
        }
        if self.agent2:
            data["learner_wins"] = sum(r["winner"] is not None and r["winner"] == r["learner"] for r in self.results)
        return data

    def describe(self) -> str:
        j = self.to_dict()
        rate = "" if j["games_per_second"] is None else f", {j['games_per_second']:.2f} games/s"
        learner = f"; the learner won {j['learner_wins']}" if self.agent2 else ""
        return (
            f"{self.experience}: {j['games']} games, {j['positions']:,} decisions ({j['played']} played now in "
            f"{self.seconds:.1f} s{rate}, {j['reused']} from earlier runs); Black won {j['black_wins']}, "
            f"White {j['white_wins']}, {j['draws']} draws{learner}; {j['capped']} stopped at the move limit; "
            f"{j['mean_moves']} moves on average"
        )


def _command(settings: SelfPlaySettings, out: Path, games: int, workers: int, sgf: bool) -> str:
    s = settings
    args = ["fuseki", "selfplay", "--agent", s.agent]
    if s.agent2:
        args += ["--agent2", s.agent2]
    args += ["--games", str(games), "--workers", str(workers), "--out", os.fspath(out), "--seed", str(s.seed)]
    if s.temperature is not None:
        args += ["--temperature", f"{s.temperature:g}"]
    if s.chunk_size != SelfPlaySettings.chunk_size:
        args += ["--chunk-size", str(s.chunk_size)]
    if s.max_moves is not None:
        args += ["--max-moves", str(s.max_moves)]
    if s.komi is not None:
        args += ["--komi", f"{s.komi:g}"]
    if s.rules != SelfPlaySettings.rules:
        args += ["--rules", s.rules]
    if sgf:
        args.append("--sgf")
    return shlex.join(args)


def run_folder(out_dir: str | os.PathLike[str]) -> RunFolder:
    """The self-play folder: ``selfplay.json``, its check and its lock."""
    return RunFolder(
        Path(out_dir),
        SETTINGS_FILE,
        holds="self-play made with other settings",
        file_kind="a self-play settings file",
    )


def _prepare(plan: _Plan, folder: RunFolder) -> dict[str, Any]:
    """Check that the (locked) folder's settings are ours, or write them; returns the settings file's content."""
    theirs = folder.saved_settings()
    if theirs is not None:
        folder.check(theirs, plan.identity)
        recorded = folder.read()
        assert recorded is not None
        return recorded
    recorded = {"format": "fuseki-selfplay", "version": 1, "settings": plan.identity, "runs": []}
    folder.write(recorded)
    return recorded


def _finished_chunk(plan: _Plan, out: Path, index: int, games: int) -> dict[str, Any] | None:
    """The summary of chunk ``index`` if an earlier run finished it with these settings and games."""
    path = chunk_path(out, index)
    if not path.exists():
        return None
    try:
        buffer = ExperienceBuffer.load(path)
    except ExperienceError:
        return None  # truncated or corrupt: play it again
    meta = buffer.metadata
    if meta.get("settings_key") != plan.key or meta.get("game_numbers") != _chunk_games(plan, index, games):
        return None
    return {"chunk": index, "games": list(meta.get("results", [])), "positions": len(buffer), "seconds": 0.0}


def selfplay(
    settings: SelfPlaySettings,
    out_dir: str | os.PathLike[str],
    games: int,
    *,
    workers: int = 1,
    sgf: bool = False,
    progress: ProgressCallback | None = None,
) -> SelfPlaySummary:
    """Play games 1 to ``games`` (skipping finished chunks), then merge the experience into ``OUT/experience.npz``.

    ``progress`` gets a :class:`~fuseki.util.progress.Progress` per chunk.
    Raises :class:`SelfPlayMismatch` when ``out_dir`` holds self-play with
    other settings, :class:`~fuseki.util.runs.RunFolderBusy` when another run
    is writing to it, :class:`~fuseki.agents.agent_file.AgentFileError` for a
    bad agent file, and ``ValueError`` for bad numbers.
    """
    from fuseki.data.experience import ExperienceBuffer, combine_experience

    if isinstance(games, bool) or games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    say = progress or (lambda event: None)
    out = Path(out_dir)
    plan = _resolve(settings)
    folder = run_folder(out)
    with folder.locked():
        recorded = _prepare(plan, folder)
        (out / CHUNKS_DIR).mkdir(exist_ok=True)
        if sgf:
            (out / SGF_DIR).mkdir(exist_ok=True)
        started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        chunks = chunk_count(games, plan.chunk_size)
        chunk_plan = ChunkPlan.scan(range(1, chunks + 1), lambda index: _finished_chunk(plan, out, index, games))
        done = dict(chunk_plan.done)
        todo = chunk_plan.todo
        to_play = sum(len(_chunk_games(plan, i, games)) for i in todo)
        if done:
            say(Progress(len(done), chunks, "chunk", f"{games - to_play} of {games} games are already in "
                         f"{out / CHUNKS_DIR}; playing the other {to_play}", {"reused_games": games - to_play}))
        t0 = time.monotonic()
        played = 0
        with contextlib.closing(_run(plan, out, todo, games, workers, sgf)) as finished:
            for chunk in finished:
                done[chunk["chunk"]] = chunk
                played += len(chunk["games"])
                elapsed = time.monotonic() - t0
                rate = played / elapsed if elapsed > 0 else 0.0
                eta = (to_play - played) / rate if rate > 0 else 0.0
                wins = sum(g["winner"] == "B" for g in chunk["games"])
                numbers = [g["number"] for g in chunk["games"]]
                say(Progress(
                    len(done), chunks, "chunk",
                    f"chunk {chunk['chunk']}/{chunks} (games {numbers[0]}-{numbers[-1]}): Black won {wins} of "
                    f"{len(numbers)}, {chunk['positions']} decisions, {chunk['seconds']:.1f} s | {played}/{to_play} "
                    f"played, {60 * rate:.1f} games/min, about {_duration(eta)} left",
                    {"chunk": chunk["chunk"], "games": len(numbers), "black_wins": wins,
                     "positions": chunk["positions"], "played": played, "to_play": to_play},
                ))
        seconds = time.monotonic() - t0
        buffers = [ExperienceBuffer.load(chunk_path(out, i)) for i in range(1, chunks + 1)]
        merged = combine_experience(buffers)
        results = [g for i in range(1, chunks + 1) for g in done[i]["games"]]
        for key in ("game_numbers", "chunk", "results"):
            merged.metadata.pop(key, None)
        merged.metadata.update(
            {"games": games, "settings": plan.identity, "settings_key": plan.key, "results": results,
             "agent_kind": plan.kind}
        )
        experience = out / EXPERIENCE_FILE
        merged.save(experience)
        summary = SelfPlaySummary(str(out), str(experience), games, played, len(merged), seconds, tuple(results),
                                  plan.agent2_path is not None)
        j = summary.to_dict()
        recorded["command"] = _command(settings, out, games, workers, sgf)
        recorded["games"] = games
        recorded.setdefault("runs", []).append(
            {
                "started": started_at,
                "games": games,
                "workers": workers,
                "played": played,
                "seconds": j["seconds"],
                "games_per_second": j["games_per_second"],
                "host_cpus": os.cpu_count(),
            }
        )
        folder.write(recorded)
    return summary


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
