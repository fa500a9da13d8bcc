"""Evaluating agents by playing them against each other (book ch. 10 and 12, spec row R3).

The book judges every training round the same way: the new bot plays N games
against the old one, colours alternating, and the record (``60/100``,
``51/100``, ``62/100`` in ch. 12) decides whether the new bot is better. A
record alone says little: 53/100 happens to two identical bots 62 % of the
time. So this module reports, for A against B:

- wins, losses and draws, and A's score (a draw counts half a win);
- the Wilson 95 % interval of that score (:func:`fuseki.gtp.match.wilson_interval`);
- the exact two-sided binomial test against 50 % (:func:`binomial_test`, the
  book's ``scipy.stats.binom_test``): how often two equal bots would produce
  a record at least this lopsided. Draws are left out of the test, as in a
  sign test;
- the Elo difference that the score implies (:func:`elo_difference`) and its
  95 % interval (:func:`elo_interval`, the Wilson interval mapped to Elo).
  These live in :mod:`fuseki.train.stats` and are re-exported here.

Agents are given as *specs* (:func:`parse_agent_spec`): a registered agent
with options (``random``, ``mcts:playouts=200,resign_below=none``), an agent
file or model name (``bots/ac_v2.safetensors``), or an outside GTP engine
(``gtp:gnugo --mode gtp --level 1``).

In-process agents are built fresh for every game with seeds derived from
``(seed, game number, side)``, and the Numba kernels' generator is reseeded
before each game, so a game's moves depend only on the settings and its
number: the same seed gives the same games with 1 or 8 worker processes. A
GTP engine is wrapped as an agent (:class:`GtpAgent`) on the match runner's
:class:`~fuseki.gtp.match.Engine`, so crashes, hangs and nonsense answers are
forfeits exactly as in ``fuseki match``, and one game loop (:func:`play_game`)
serves every pairing.

Finished games are scored by area with dead stones removed
(:class:`OwnershipScorer`): as :func:`fuseki.go.ownership.dead_stones` judges
them (``dead_stones="playouts"``, the default) or as the thesis's classifier
does (``"network"``, :mod:`fuseki.deadstones.scorer`, spec T4); or by a GTP
referee (:class:`~fuseki.gtp.match.Referee`, GNU Go's ``final_score``), with
the same count of ours when the referee fails. A game our count scored names
its estimate in a ``note:`` of its SGF comment and in ``dead_stones`` of its
JSON result. Every game is written as ``game_0001.sgf`` ... next to an
``eval.json`` with the settings; running the same evaluation again reuses the
finished games, as ``fuseki match`` does.

>>> round(binomial_test(53, 100), 4)  # the book's example
0.6173
>>> round(elo_difference(0.75), 1)
190.8
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import datetime
import inspect
import json
import math
import multiprocessing
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from fuseki.gtp.match import (
    Engine,
    Forfeit,
    GameOutcome,
    MatchSummary,
    OwnCount,
    PlayedGame,
    Referee,
    check_dead_stones,
    parse_result,
    program_exists,
    resolve_command,
    scored_by,
    settings_diffs,
)
from fuseki.train.rl_agents import load_rl_agent

# The statistics live in fuseki.train.stats; importing them here keeps the old names working.
from fuseki.train.stats import Z95, binomial_test, clip_score, elo_difference, elo_interval  # noqa: F401

if TYPE_CHECKING:
    from fuseki.agents.base import Agent
    from fuseki.go.state import Color, GameState, Move

__all__ = [
    "AgentSpec",
    "EvalSettings",
    "EvalSettingsMismatch",
    "EvalSummary",
    "GtpAgent",
    "OwnershipScorer",
    "PairResult",
    "SETTINGS_FILE",
    "Scorer",
    "binomial_test",
    "build_agent",
    "check_spec",
    "clip_score",
    "elo_difference",
    "elo_interval",
    "evaluate",
    "game_seed",
    "parse_agent_spec",
    "play_game",
    "pair_dir",
    "play_numbered_game",
    "referee_argv",
    "round_robin",
    "run_games",
]

#: The settings file in an evaluation's SGF folder.
SETTINGS_FILE = "eval.json"
def game_seed(seed: int, number: int, side: int) -> int:
    """A 31-bit seed for game ``number`` and ``side`` (0: A, 1: B, 2: scoring, 3: kernels).

    Derived with NumPy's ``SeedSequence``, so nearby seeds and game numbers
    give unrelated streams, and a game's seed never depends on which worker
    plays it.
    """
    import numpy as np

    entropy = [int(seed) & 0xFFFFFFFFFFFFFFFF, int(number), int(side)]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0]) & 0x7FFFFFFF


# ---- agent specs ----------------------------------------------------------------


def _parse_options(text: str, spec: str) -> tuple[tuple[str, object], ...]:
    """``"playouts=200,resign_below=none"`` -> ``(("playouts", 200), ("resign_below", None))``."""
    from fuseki.agents.base import parse_option

    out: dict[str, object] = {}
    for item in text.split(","):
        try:
            key, value = parse_option(item)
        except ValueError:
            raise ValueError(
                f"agent spec {spec!r}: options must be KEY=VALUE separated by commas, got {item!r}"
            ) from None
        if key in out:
            raise ValueError(f"agent spec {spec!r}: option {key!r} is given twice")
        out[key] = value
    return tuple(out.items())


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """What an agent spec names: a registered agent, an agent file or a GTP engine.

    ``kind`` is ``"registry"`` (``target`` is the agent name), ``"file"``
    (``target`` is the path or model name) or ``"gtp"`` (``target`` is the
    command line). ``options`` go to the agent's factory (not for ``gtp``).
    ``text`` is the spec as given, which is also the agent's label in tables
    and SGF files.
    """

    text: str
    kind: str
    target: str
    options: tuple[tuple[str, object], ...] = ()

    @property
    def label(self) -> str:
        return self.text

    @property
    def in_process(self) -> bool:
        return self.kind != "gtp"


def _is_agent_file(text: str) -> bool:
    """Whether ``text`` names an existing agent file (a path) or a model in the models folders."""
    if not text.strip():
        return False
    if os.path.isfile(os.path.expanduser(text)):
        return True
    if os.sep in text or (os.altsep is not None and os.altsep in text):
        return False
    from fuseki.agents.agent_file import available_models

    return text in available_models() or text.removesuffix(".safetensors") in available_models()


def parse_agent_spec(text: str) -> AgentSpec:
    """Read an agent spec. Raises ``ValueError`` with a one-line message when it names nothing.

    - ``gtp:COMMAND``: an outside GTP engine, e.g. ``gtp:gnugo --mode gtp --level 1``;
    - ``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``: a registered agent
      (``random``, ``mcts:playouts=200``); values are read as booleans,
      ``none``, numbers or text. A registered name wins over a file of the
      same name;
    - ``PATH`` or ``PATH:KEY=VALUE,...``: an agent file (or a model name in
      the models folders), with options for its agent (``temperature=0.5``);
    - ``file:PATH``: an agent file, when a path could be mistaken for the above.

    >>> parse_agent_spec("mcts:playouts=50,rave=false").options
    (('playouts', 50), ('rave', False))
    >>> parse_agent_spec("gtp:gnugo --mode gtp").target
    'gnugo --mode gtp'
    """
    from fuseki.agents import available_agents

    if not isinstance(text, str) or not text.strip():
        raise ValueError("an agent spec must not be empty")
    text = text.strip()
    if text.startswith("gtp:"):
        command = text[4:].strip()
        if not command:
            raise ValueError(f"agent spec {text!r}: gtp: needs an engine command line, e.g. 'gtp:gnugo --mode gtp'")
        resolve_command(command)  # ValueError for unbalanced quotes
        return AgentSpec(text, "gtp", command)
    if text.startswith("file:"):
        path, options = text[5:], ()
        head, sep, tail = path.rpartition(":")
        if sep and "=" in tail and _is_agent_file(head):
            path, options = head, _parse_options(tail, text)
        if not _is_agent_file(path):
            raise ValueError(f"agent spec {text!r}: no agent file {path!r}")
        return AgentSpec(text, "file", path, options)
    # A registered name wins over a file of that name in the current folder
    # (``./random`` or ``file:random`` reaches the file).
    head, sep, tail = text.partition(":")
    agents = available_agents()
    if head in agents:
        options = _parse_options(tail, text) if sep else ()
        return AgentSpec(text, "registry", head, options)
    if _is_agent_file(text):
        return AgentSpec(text, "file", text)
    fhead, fsep, ftail = text.rpartition(":")
    if fsep and "=" in ftail and _is_agent_file(fhead):
        return AgentSpec(text, "file", fhead, _parse_options(ftail, text))
    raise ValueError(
        f"agent spec {text!r} names no registered agent ({', '.join(agents)}), no agent file, "
        "and is not gtp:COMMAND"
    )


def _accepts(func: Callable[..., Any], name: str) -> bool:
    """Whether ``func`` takes a keyword argument ``name`` (or any keyword)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == name and p.kind is not p.POSITIONAL_ONLY) for p in params)


def build_agent(spec: AgentSpec, seed: int | None) -> Agent:
    """The in-process agent of ``spec``, seeded with ``seed`` when its factory takes one.

    Raises ``ValueError`` (one line) for options the agent does not take.
    """
    from fuseki.agents import agent_options, make_agent

    options = dict(spec.options)
    if spec.kind == "registry":
        accepted = agent_options(spec.target)
        if seed is not None and "seed" not in options and (accepted is None or "seed" in accepted):
            options["seed"] = seed
        return make_agent(spec.target, **options)
    if spec.kind == "file":
        loader = load_rl_agent  # knows every kind of agent file
        if seed is not None and "seed" not in options and _accepts(loader, "seed"):
            options["seed"] = seed
        try:
            return loader(spec.target, **options)
        except TypeError as e:
            raise ValueError(f"agent spec {spec.text!r}: bad options for an agent file ({e})") from None
    raise ValueError(f"agent spec {spec.text!r} is a GTP engine, not an in-process agent")


def check_spec(spec: AgentSpec, size: int) -> None:
    """Fail early, with one line, for an agent that cannot play: build it once, or find its program.

    Also rejects an agent whose network plays another board size.
    """
    if spec.kind == "gtp":
        argv = resolve_command(spec.target)
        if not program_exists(argv):
            raise ValueError(f"agent spec {spec.text!r}: program {argv[0]!r} not found")
        return
    agent = build_agent(spec, 0)
    from fuseki.agents.base import board_size_problem

    problem = board_size_problem(f"agent spec {spec.text!r}", getattr(agent, "board_size", None), size)
    if problem:
        raise ValueError(problem)


# ---- GTP engines as agents ---------------------------------------------------------


class GtpAgent:
    """An outside GTP engine behind the :class:`~fuseki.agents.base.Agent` protocol.

    Built on the match runner's :class:`~fuseki.gtp.match.Engine`: it is
    started on first use and restarted after a failure, and every failure
    (a crash, a hang past ``move_time``, a refused command, an answer that is
    not a move) raises :class:`~fuseki.gtp.match.Forfeit` for the side it
    plays. Before each ``genmove`` it brings the engine up to date: the
    opponent's new moves are sent with ``play``; a position from another game
    starts the engine afresh (board size, ``clear_board``, komi, the moves).
    """

    #: The engine passes and resigns by itself; no wrapper should decide for it.
    self_terminating = True

    def __init__(
        self,
        command: str,
        *,
        label: str = "gtp",
        move_time: float = 10.0,
        setup_timeout: float = 30.0,
        clock: bool = False,
    ) -> None:
        self.engine = Engine(label, resolve_command(command), setup_timeout)
        self.move_time = float(move_time)
        self.clock = clock
        self.label = label
        self._root: GameState | None = None
        self._known: list[Move] = []
        self._starts = 0  #: the engine's start count when it last learnt the position

    @property
    def name(self) -> str:
        return self.engine.name

    def _sync(self, state: GameState, color: Color) -> None:
        line = list(state.ancestors())[::-1]
        moves = [child.move_played() for child in line[1:]]
        # A restarted process knows nothing; another game's position needs a new board.
        restarted = self.engine.client is None or not self.engine.client.is_alive or self.engine.starts != self._starts
        fresh = restarted or self._root is not line[0] or moves[: len(self._known)] != self._known
        if fresh:
            self.engine.setup(
                color,
                size=state.size,
                komi=state.rules.komi,
                move_time=self.move_time,
                handicap=state.handicap,
                clock=self.clock,
            )
            self._root, self._known, self._starts = line[0], [], self.engine.starts
        for parent, move in zip(line[len(self._known) : -1], moves[len(self._known) :], strict=True):
            vertex = move.gtp(state.size)
            self.engine.call(color, lambda gtp, c=parent.next_player, v=vertex: gtp.play(c, v))
            self._known.append(move)

    def select_move(self, state: GameState) -> Move:
        from fuseki.go.coords import CoordinateError
        from fuseki.go.state import Move

        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        color = state.next_player
        self._sync(state, color)
        reply = self.engine.call(color, lambda gtp: gtp.genmove(color, timeout=self.move_time))
        try:
            move = Move.from_gtp(reply, state.size)
        except (CoordinateError, ValueError) as e:
            raise Forfeit(color, f"answered genmove with {reply[:40]!r}: {e}") from None
        self._known.append(move)
        return move

    def stop(self) -> None:
        """End the engine process (it is restarted, fresh, on the next move)."""
        self.engine.stop()
        self._root, self._known = None, []


# ---- one game --------------------------------------------------------------------


class Scorer(Protocol):
    """What scores a finished game: ``score(state) -> (result, note)``; :class:`Referee` is one."""

    def score(self, state: GameState) -> tuple[str, str]: ...

    def close(self) -> None: ...


class OwnershipScorer(OwnCount):
    """Area count by the state's rules after removing the stones an estimate judges dead.

    ``dead_stones="playouts"`` (the default) is :func:`dead_stones` of
    :mod:`fuseki.go.ownership`: the same judgement the agents' termination
    rule (spec row B5) uses, so a bot that passed because it was ahead is
    also counted as ahead; ``seed`` makes it reproducible. ``"network"`` is
    the thesis's block classifier (``model``: a model file or name, else the
    shipped one). The note of every score names the estimate.
    """

    def __init__(
        self,
        *,
        playouts: int = 200,
        seed: int | None = 0,
        dead_stones: str = "playouts",
        model: str | os.PathLike[str] | None = None,
    ) -> None:
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts}")
        super().__init__(dead_stones, model=model, playouts=int(playouts), seed=seed)
        self.playouts = int(playouts)
        self.seed = seed


def play_game(agents: Mapping[Color, Agent], state: GameState, *, move_cap: int, scorer: Scorer) -> PlayedGame:
    """Let the agents move in turn from ``state`` until two passes, a resignation or ``move_cap`` moves.

    Every move is checked on our :class:`GameState`: an illegal one loses
    the game by :class:`~fuseki.gtp.match.Forfeit` (raised, for the caller to
    record), as does any failure of a :class:`GtpAgent`. A game that did not
    end by resignation is scored by ``scorer``.
    """
    from fuseki.go.state import IllegalMoveError

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


# ---- settings -------------------------------------------------------------------------


class EvalSettingsMismatch(ValueError):
    """The SGF folder holds an evaluation with other settings; resuming would mix two of them."""


@dataclasses.dataclass(frozen=True)
class EvalSettings:
    """Everything that decides the games of an evaluation (not their number, not the workers).

    ``referee``: ``None`` scores by :class:`OwnershipScorer` (dead stones by
    ``dead_stones``: ``playouts`` with ``dead_playouts`` playouts, or
    ``network`` with ``dead_stones_model``), else a GTP command whose
    ``final_score`` decides (and the same count of ours if it fails).
    ``terminate`` wraps in-process agents that do not end games by themselves
    in :class:`~fuseki.agents.termination.Terminating` (pass back when ahead,
    resign when hopeless). ``move_time`` bounds a GTP engine's ``genmove``;
    ``clock`` also sends it as ``time_settings 0 T 1`` (off by default: GNU Go
    with a clock ignores its level, see :attr:`fuseki.gtp.match.MatchSettings.clock`).
    """

    agent_a: str
    agent_b: str
    size: int = 9
    komi: float = 7.5
    rules: str = "chinese"
    max_moves: int | None = None  #: ``None``: three times the board's area
    seed: int = 0
    referee: str | None = None
    dead_playouts: int = 200
    terminate: bool = False
    move_time: float = 10.0
    dead_stones: str = "playouts"
    dead_stones_model: str | None = None
    clock: bool = False

    #: Evaluation folders written before ``clock`` existed were played with a clock.
    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}

    def __post_init__(self) -> None:
        from fuseki.go.coords import check_size
        from fuseki.go.rules import Rules

        check_size(self.size)
        Rules.preset(self.rules)
        if not (math.isfinite(self.komi) and self.komi * 2 == round(self.komi * 2)):
            raise ValueError(f"komi must be a multiple of 0.5, got {self.komi}")
        if self.max_moves is not None and self.max_moves < 1:
            raise ValueError(f"max moves must be at least 1, got {self.max_moves}")
        if self.dead_playouts < 1:
            raise ValueError(f"dead-stone playouts must be at least 1, got {self.dead_playouts}")
        if not (math.isfinite(self.move_time) and self.move_time > 0):
            raise ValueError(f"move time must be a positive number of seconds, got {self.move_time}")
        if self.dead_stones == "none":
            raise ValueError("dead-stone estimate 'none' is not offered here; choose playouts or network")
        check_dead_stones(self.dead_stones, self.dead_stones_model)

    def own_count(self, number: int) -> OwnershipScorer:
        """Our count for game ``number``: its playouts are seeded by the game, so it scores the same anywhere."""
        return OwnershipScorer(
            playouts=self.dead_playouts,
            seed=game_seed(self.seed, number, 2),
            dead_stones=self.dead_stones,
            model=self.dead_stones_model,
        )

    @property
    def move_cap(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size

    def specs(self) -> tuple[AgentSpec, AgentSpec]:
        return parse_agent_spec(self.agent_a), parse_agent_spec(self.agent_b)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalSettings:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def referee_argv(settings: EvalSettings) -> list[str]:
    """The referee's command line; GNU Go gets ``--chinese-rules`` under area scoring, as in ``fuseki match``."""
    from fuseki.go.rules import Rules, Scoring

    if settings.referee is None:
        raise ValueError("these settings score games by our own count, not by a referee")
    argv = resolve_command(settings.referee)
    is_gnugo = os.path.basename(argv[0]) == "gnugo"
    if is_gnugo and Rules.preset(settings.rules).scoring is Scoring.AREA and "--chinese-rules" not in argv:
        argv.append("--chinese-rules")
    return argv


def a_color(number: int) -> Color:
    """A is Black in games 1, 3, 5, ... (as in ``fuseki match``)."""
    from fuseki.go.state import Color

    return Color.BLACK if (number - 1) % 2 == 0 else Color.WHITE


def _side(winner: Color | None, a: Color) -> str | None:
    return None if winner is None else ("A" if winner is a else "B")


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
    import numpy as np

    from fuseki.go import kernels as K

    K.seed_kernels(seed)
    np.random.seed(seed)
    random.seed(seed)


def play_numbered_game(settings: EvalSettings, number: int) -> tuple[GameOutcome, bytes]:
    """Play game ``number`` (1-based) of ``settings``: its outcome and its SGF bytes.

    Runs in worker processes; everything it depends on is in its arguments,
    so the same arguments give the same game wherever it runs (GTP engines
    aside: they have their own randomness).
    """
    from fuseki.agents.termination import Terminating
    from fuseki.go.rules import Rules
    from fuseki.go.sgf import GameRecord
    from fuseki.go.state import Color, GameState

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
        _side(winner, color_a),
        kind,
        reason if forfeited is not None else "; ".join(notes),
        len(record.moves),
        dead_stones=None if forfeited is not None else scored_by("\n".join(notes)),
    )
    return outcome, record.to_sgf()


def _job(settings_dict: dict[str, Any], number: int) -> tuple[GameOutcome, bytes]:
    """The picklable entry point of a worker: settings travel as a plain dict."""
    return play_numbered_game(EvalSettings.from_dict(settings_dict), number)


# ---- many games ---------------------------------------------------------------------


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
    from fuseki.go.sgf import save_sgf

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
        context = multiprocessing.get_context("spawn")
        from fuseki.workers import exit_with_parent

        pool = cf.ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context, initializer=exit_with_parent)
        try:
            futures = {pool.submit(_job, job.settings.to_dict(), job.number): i for i, job in enumerate(jobs)}
            for future in cf.as_completed(futures):
                finish(futures[future], *future.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return [results[i] for i in range(len(jobs))]


def read_finished(path: Path, number: int) -> GameOutcome | None:
    """The outcome stored in an earlier run's SGF, if that game is finished and readable."""
    from fuseki.go.sgf import SgfError, load_sgf

    if not path.exists():
        return None
    try:
        record = load_sgf(path)
        winner, kind = parse_result(record.result)
    except (OSError, SgfError, ValueError):
        return None  # unreadable or unfinished: play it again
    color = a_color(number)
    reason = ""
    for line in record.comment.splitlines():
        if line.startswith(("forfeit: ", "note: ")):
            reason = line.split(": ", 1)[1]
            break
    return GameOutcome(
        number,
        color,
        record.result,
        _side(winner, color),
        kind,
        reason,
        len(record.moves),
        reused=True,
        dead_stones=scored_by(record.comment),
    )


def prepare_dir(settings: EvalSettings, sgf_dir: Path) -> None:
    """Create ``sgf_dir`` with an ``eval.json`` of ``settings``, or check the one there.

    Raises :class:`EvalSettingsMismatch` when it holds another evaluation.
    """
    from fuseki.data.atomic import write_json_atomic

    sgf_dir.mkdir(parents=True, exist_ok=True)
    path = sgf_dir / SETTINGS_FILE
    mine = settings.to_dict()
    if path.exists():
        try:
            theirs = json.loads(path.read_text(encoding="utf-8"))["settings"]
            if not isinstance(theirs, dict):
                raise TypeError("settings is not an object")
        except (ValueError, KeyError, TypeError) as e:
            raise EvalSettingsMismatch(f"{path} is not an evaluation settings file ({e})") from None
        diffs = settings_diffs(EvalSettings, theirs, mine)
        if diffs:
            raise EvalSettingsMismatch(
                f"{sgf_dir} holds an evaluation with other settings ({'; '.join(diffs)}); "
                "use another --sgf-dir or the same settings"
            )
        return
    write_json_atomic(path, {"fuseki_eval": 1, "settings": mine})


def plan_games(settings: EvalSettings, games: int, sgf_dir: Path | None) -> tuple[dict[int, GameOutcome], list[Job]]:
    """The games already finished in ``sgf_dir`` (by number) and the jobs still to play."""
    if games < 0:
        raise ValueError(f"number of games must not be negative, got {games}")
    if sgf_dir is not None:
        prepare_dir(settings, sgf_dir)
    done: dict[int, GameOutcome] = {}
    todo: list[Job] = []
    for number in range(1, games + 1):
        path = None if sgf_dir is None else sgf_dir / f"game_{number:04d}.sgf"
        old = None if path is None else read_finished(path, number)
        if old is not None:
            done[number] = old
        else:
            todo.append(Job(settings, number, path))
    return done, todo


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

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object: the match runner's keys plus ``p_value``, ``elo`` and ``elo_ci95``."""
        out = self.match.to_json()
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


def progress_line(job: Job, outcome: GameOutcome, games: int, tally: Iterable[GameOutcome]) -> str:
    """One line per game, like ``fuseki match``'s: who had Black, the result, the running score."""
    from fuseki.go.state import Color

    outs = list(tally)
    a = sum(o.winner == "A" for o in outs)
    b = sum(o.winner == "B" for o in outs)
    d = sum(o.winner is None for o in outs)
    colours = "A black, B white" if outcome.a_color is Color.BLACK else "B black, A white"
    who = "draw" if outcome.winner is None else f"{outcome.winner} wins"
    extra = f" ({outcome.reason})" if outcome.forfeit and outcome.reason else ""
    reused = " [from an earlier run]" if outcome.reused else ""
    return (
        f"game {outcome.number}/{games}: {colours}: {outcome.result}, {who}{extra}{reused}"
        f" | A {a} - B {b}" + (f" - draws {d}" if d else "")
    )


def evaluate(
    settings: EvalSettings,
    games: int,
    *,
    sgf_dir: str | os.PathLike[str] | None = None,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> EvalSummary:
    """Play (or reuse from ``sgf_dir``) games 1 to ``games`` of A against B and sum them up.

    ``progress`` gets one line per game (reused games first). Raises
    :class:`EvalSettingsMismatch` when ``sgf_dir`` holds another evaluation.
    """
    folder = None if sgf_dir is None else Path(sgf_dir)
    done, todo = plan_games(settings, games, folder)
    finished: list[GameOutcome] = []
    report = progress or (lambda line: None)
    for number in sorted(done):
        finished.append(done[number])
        report(progress_line(Job(settings, number, None), done[number], games, finished))

    def on_done(job: Job, outcome: GameOutcome) -> None:
        finished.append(outcome)
        report(progress_line(job, outcome, games, finished))

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
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> list[EvalSummary]:
    """Every pair of ``agents`` plays ``games`` games (colours alternating); one summary per pair.

    Pairs are ``(i, j)`` with ``i < j`` in the order given, agent ``i`` as
    A. ``options`` are the other :class:`EvalSettings` fields (size, komi,
    seed, ...), the same for every pair. All games of all pairs share one
    pool of ``workers`` processes. With ``sgf_dir`` each pair has its own
    folder (:func:`pair_dir`), so a round robin resumes like a single
    evaluation, and agents added at the end reuse the earlier pairs' games.
    """
    specs = [a.strip() if isinstance(a, str) else a for a in agents]
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(specs)}")
    seen: set[str] = set()
    for spec in specs:
        if spec in seen:
            raise ValueError(f"agent {spec!r} is given twice; each agent once")
        seen.add(spec)
    folder = None if sgf_dir is None else Path(sgf_dir)
    pairs: list[tuple[int, int, EvalSettings]] = []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            pairs.append((i, j, EvalSettings(agent_a=specs[i], agent_b=specs[j], **options)))
    report = progress or (lambda line: None)
    done_by_pair: dict[tuple[str, str], dict[int, GameOutcome]] = {}
    finished: dict[tuple[str, str], list[GameOutcome]] = {}
    labels: dict[tuple[str, str], str] = {}
    jobs: list[Job] = []
    for i, j, settings in pairs:
        key = (settings.agent_a, settings.agent_b)
        labels[key] = f"pair {i + 1}-{j + 1} ({settings.agent_a} vs {settings.agent_b})"
        done, todo = plan_games(settings, games, None if folder is None else pair_dir(folder, i, j))
        done_by_pair[key] = done
        finished[key] = []
        for number in sorted(done):
            finished[key].append(done[number])
            report(f"{labels[key]}: " + progress_line(Job(settings, number, None), done[number], games, finished[key]))
        jobs.extend(todo)

    def on_done(job: Job, outcome: GameOutcome) -> None:
        key = (job.settings.agent_a, job.settings.agent_b)
        finished[key].append(outcome)
        report(f"{labels[key]}: " + progress_line(job, outcome, games, finished[key]))

    for job, outcome in zip(jobs, run_games(jobs, workers=workers, on_done=on_done), strict=True):
        done_by_pair[(job.settings.agent_a, job.settings.agent_b)][outcome.number] = outcome
    summaries = []
    for _, _, settings in pairs:
        done = done_by_pair[(settings.agent_a, settings.agent_b)]
        outcomes = tuple(done[n] for n in range(1, games + 1))
        summaries.append(EvalSummary(MatchSummary(outcomes, settings.agent_a, settings.agent_b)))
    return summaries
