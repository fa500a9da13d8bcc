"""Web games without HTTP: settings, replay, the game's JSON, scoring and the bot's move.

A game is its :class:`Settings` plus the list of moves played (GTP vertices,
``"pass"`` and ``"resign"``). The store keeps only those; the position is
rebuilt by replaying the moves, so nothing but plain data crosses a process
boundary. :func:`bot_move` is what the worker pool runs: it takes the settings
and the moves, replays them and returns the bot's move as a GTP vertex. The
request bodies that create games are checked in :mod:`fuseki.web.models`.

>>> s = Settings(size=9, human=Color.WHITE, bot="random")
>>> s.bot_color.name, s.rules
('BLACK', 'chinese')
>>> state = replay(s, ["E5", "C3"])
>>> game_json("g1", s, ["E5", "C3"], state)["board"][4]
'....X....'
"""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict
from typing import Any

import numpy as np

from fuseki.agents import make_agent
from fuseki.agents.termination import Terminating
from fuseki.deadstones.scorer import METHODS, final_status_estimator
from fuseki.go.coords import CoordinateError, Point, to_gtp
from fuseki.go.rules import PRESETS, Rules
from fuseki.go.state import Color, GameState, IllegalMoveError, Move
from fuseki.util.errors import FusekiError
from fuseki.util.seeds import derive_seed

__all__ = [
    "BOTS",
    "DEAD_STONES",
    "GameConflict",
    "MAX_PLAYOUTS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "MIN_SIZE",
    "SettingsError",
    "Settings",
    "board_rows",
    "bot_move",
    "final_score",
    "game_json",
    "play_human",
    "replay",
    "undo_moves",
    "warm_up",
]

MIN_SIZE, MAX_SIZE = 5, 19
#: The most a bot or an analysis may think about one position.
MAX_SECONDS = 10.0
#: The most playouts a bot may be asked for (the think-time cap still applies).
MAX_PLAYOUTS = 200_000
MAX_KOMI = 100.0
#: The bots the web UI offers: the ones that answer quickly on any size.
BOTS = ("random", "uniform", "mcts", "mcts-book", "policy")
#: The bot options a request may set.
BOT_OPTIONS = ("seconds", "playouts", "model", "seed", "temperature")
#: Playouts for the dead-stone estimate at the end of a game.
SCORE_PLAYOUTS = 200
#: The dead-stone estimates a game may choose: ``playouts`` (the default,
#: :mod:`fuseki.go.ownership`) or ``network`` (the thesis's classifier, spec T4).
DEAD_STONES: tuple[str, ...] = METHODS


class SettingsError(FusekiError, ValueError):
    """Game settings that cannot be used (HTTP 422)."""


class GameConflict(ValueError):
    """A request that the game's state forbids now: an illegal move, not your turn (HTTP 409)."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything that defines a game before its first move."""

    size: int = 9
    komi: float = 7.5
    handicap: int = 0
    rules: str = "chinese"
    human: Color = Color.BLACK
    bot: str = "random"
    bot_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: Which estimate finds the dead stones of the final count (one of :data:`DEAD_STONES`).
    dead_stones: str = "playouts"

    @property
    def bot_color(self) -> Color:
        return self.human.other

    @property
    def rule_set(self) -> Rules:
        return PRESETS[self.rules].replace(komi=self.komi)

    def initial_state(self) -> GameState:
        return GameState.new(self.size, self.rule_set, handicap=self.handicap)

    def to_dict(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "komi": self.komi,
            "handicap": self.handicap,
            "rules": self.rules,
            "human": self.human.name.lower(),
            "bot": self.bot,
            "bot_options": dict(self.bot_options),
            "dead_stones": self.dead_stones,
        }


def check_seconds(value: Any, what: str = "seconds") -> float:
    """A think time in (0, :data:`MAX_SECONDS`]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SettingsError(f"{what} must be a number, got {value!r}")
    if not 0 < value <= MAX_SECONDS:
        raise SettingsError(f"{what} must be more than 0 and at most {MAX_SECONDS:g}, got {value!r}")
    return float(value)


def check_playouts(value: Any, limit: int = MAX_PLAYOUTS, what: str = "playouts") -> int:
    """A playout count in [1, ``limit``]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{what} must be a whole number, got {value!r}")
    if not 1 <= value <= limit:
        raise SettingsError(f"{what} must be from 1 to {limit}, got {value!r}")
    return value


def settings_from_json(data: dict[str, Any]) -> Settings:
    """The settings as :meth:`Settings.to_dict` stored them (trusted: already validated).

    Games stored before ``dead_stones`` existed load with the estimate they were scored by: ``playouts``.
    """
    return Settings(
        size=int(data["size"]),
        komi=float(data["komi"]),
        handicap=int(data["handicap"]),
        rules=str(data["rules"]),
        human=Color.parse(data["human"]),
        bot=str(data["bot"]),
        bot_options=dict(data.get("bot_options") or {}),
        dead_stones=str(data.get("dead_stones") or "playouts"),
    )


# ---- replaying and playing ---------------------------------------------------


def replay(settings: Settings, moves: list[str]) -> GameState:
    """The position after ``moves`` (GTP vertices, ``pass``, ``resign``)."""
    state = settings.initial_state()
    for vertex in moves:
        state = state.play(Move.from_gtp(vertex, settings.size))
    return state


def play_human(settings: Settings, state: GameState, vertex: str) -> tuple[GameState, str]:
    """Play the human's ``vertex`` in ``state``; returns the new state and the vertex as stored.

    Raises :class:`GameConflict` when the game is over, it is the bot's turn
    or the move is illegal (with the rules engine's reason), and
    :class:`SettingsError` for text that is no vertex of this board.
    """
    if state.is_over():
        raise GameConflict("the game is over")
    if state.next_player is not settings.human:
        raise GameConflict("it is not your turn: the bot is to move")
    if not isinstance(vertex, str):
        raise SettingsError(f"vertex must be a string such as 'D4' or 'pass', got {vertex!r}")
    try:
        move = Move.from_gtp(vertex, settings.size)
    except CoordinateError as e:
        raise SettingsError(f"{vertex!r} is not a point of the {settings.size}x{settings.size} board: {e}") from None
    try:
        new = state.play(move)
    except IllegalMoveError as e:
        raise GameConflict(f"illegal move {vertex.strip().upper()}: {e.reason}") from None
    return new, move.gtp(settings.size)


def undo_moves(settings: Settings, moves: list[str]) -> list[str]:
    """The moves without the human's last move and the bot's replies after it.

    Raises :class:`GameConflict` when the human has not moved yet.
    """
    state = settings.initial_state()
    colors = []
    for vertex in moves:
        colors.append(state.next_player)
        state = state.play(Move.from_gtp(vertex, settings.size))
    for i in range(len(moves) - 1, -1, -1):
        if colors[i] is settings.human:
            return moves[:i]
    raise GameConflict("nothing to undo: you have not moved yet")


def bot_to_move(settings: Settings, state: GameState) -> bool:
    return not state.is_over() and state.next_player is settings.bot_color


# ---- JSON ---------------------------------------------------------------------

_LETTERS = np.array([".", "X", "O"])


def board_rows(state: GameState) -> list[str]:
    """The board as strings, top row first: ``.`` empty, ``X`` black, ``O`` white."""
    return ["".join(row) for row in _LETTERS[state.stones()].tolist()]


def _color_name(color: Color) -> str:
    return color.name.lower()


def _vertices(mask: np.ndarray, size: int) -> list[str]:
    return [to_gtp(Point(int(r), int(c)), size) for r, c in zip(*np.nonzero(mask))]


def final_score(state: GameState, dead_stones: str = "playouts") -> dict[str, Any]:
    """The score of a game ended by two passes, dead stones removed (see docs/scoring.md).

    ``dead_stones`` names the estimate that finds them (:data:`DEAD_STONES`);
    the answer records it, so that a cached score says how it was counted.
    """
    status = final_status_estimator(dead_stones, playouts=SCORE_PLAYOUTS, seed=0)
    dead = status(state)["dead"]
    score = state.score(dead=dead)
    n = state.size
    return {
        "black": score.black,
        "white": score.white,
        "result": score.result,
        "scoring": score.scoring.value,
        "dead": [to_gtp(p, n) for p in dead],
        "dead_stones": dead_stones,
        "territory": {
            "black": _vertices(score.territory(Color.BLACK), n),
            "white": _vertices(score.territory(Color.WHITE), n),
        },
    }


def position_json(state: GameState) -> dict[str, Any]:
    """What every position shows: board, player to move, last move, captures."""
    last = state.last_move
    return {
        "board": board_rows(state),
        "to_move": _color_name(state.next_player),
        "last_move": None if last is None else last.gtp(state.size),
        "captures": {"black": state.captures(Color.BLACK), "white": state.captures(Color.WHITE)},
    }


def game_json(
    game_id: str,
    settings: Settings,
    moves: list[str],
    state: GameState,
    score: dict[str, Any] | None = None,
    thinking: bool = False,
) -> dict[str, Any]:
    """The game as the API returns it (see docs/web.md).

    ``score`` is :func:`final_score` of a game ended by passes (the caller
    caches it); a resignation has no score, only the result ``"B+R"``/``"W+R"``.
    """
    line = list(state.ancestors())[::-1]  # the states from the start: no replay needed
    played = [
        {"color": _color_name(parent.next_player), "vertex": vertex}
        for parent, vertex in zip(line, moves)
        if vertex != "resign"
    ]
    over = state.is_over()
    if not over:
        result = None
    elif state.resigned is not None:
        result = state.result()
    else:
        result = score["result"] if score else state.result()
    if over:
        status = "over"
    elif state.next_player is settings.human:
        status = "your_turn"
    else:
        status = "bot_thinking"
    out: dict[str, Any] = {"id": game_id, **settings.to_dict()}
    out.update(position_json(state))
    out["moves"] = played
    out["over"] = over
    out["result"] = result
    out["score"] = (
        None if score is None or not over or state.resigned is not None
        else {
            **{k: score[k] for k in ("black", "white", "dead", "territory")},
            # Scores cached before the setting existed were counted by the playouts.
            "dead_stones": score.get("dead_stones", "playouts"),
        }
    )
    out["status"] = status
    return out


# ---- the bot (runs in a worker) ------------------------------------------------

#: Agents built in this process, by (bot, options): MCTS keeps its tree between moves.
_AGENTS: "OrderedDict[tuple, Any]" = OrderedDict()
_AGENT_CACHE = 4


def _agent(bot: str, options: dict[str, Any]) -> Any:
    """The bot for ``options``, kept between moves (an MCTS keeps its tree)."""
    key = (bot, tuple(sorted(options.items())))
    agent = _AGENTS.get(key)
    if agent is not None:
        _AGENTS.move_to_end(key)
        return agent
    agent = _build_agent(bot, options)
    _AGENTS[key] = agent
    while len(_AGENTS) > _AGENT_CACHE:
        _AGENTS.popitem(last=False)
    return agent


def _build_agent(bot: str, options: dict[str, Any]) -> Any:
    opts = dict(options)
    if bot in ("mcts", "mcts-book"):
        # The think-time cap holds whatever playout count was asked for.
        opts["seconds"] = min(float(opts.get("seconds", MAX_SECONDS)), MAX_SECONDS)
        if "playouts" not in options and "seconds" not in options:
            opts["seconds"] = 1.0
    return Terminating(make_agent(bot, **opts))


def move_seed(seed: int, moves: list[str]) -> int:
    """The seed of the bot's reply after ``moves`` in a game with ``bot_options.seed``.

    A cached agent's random state would depend on every request the worker
    served before (other games, undone moves). Seeding each reply from the
    game's seed and its moves makes a seeded game repeatable: the same moves
    get the same reply, in any worker, in any order.

    >>> move_seed(3, ["C3", "D4"]) == move_seed(3, ["C3", "D4"]) != move_seed(3, ["C3"])
    True
    """
    return derive_seed(seed, *moves)


def bot_move(settings_data: dict[str, Any], moves: list[str]) -> str:
    """The bot's move in the game ``settings_data`` (:meth:`Settings.to_dict`) after ``moves``.

    Runs in a worker process: everything in and out is plain data. Returns a
    GTP vertex, ``"pass"`` or ``"resign"``.
    """
    settings = settings_from_json(settings_data)
    state = replay(settings, moves)
    if not bot_to_move(settings, state):
        raise ValueError("it is not the bot's turn")
    options = settings.bot_options
    if "seed" in options:  # repeatable: a fresh agent seeded by the position (no tree kept)
        agent = _build_agent(settings.bot, {**options, "seed": move_seed(options["seed"], moves)})
    else:
        agent = _agent(settings.bot, options)
    return agent.select_move(state).gtp(settings.size)


def warm_up() -> None:
    """Compile (or load from Numba's cache) the kernels a worker needs, before the first request."""
    s = Settings(size=5, komi=0.5)
    bot_move(s.to_dict(), ["C3"])
