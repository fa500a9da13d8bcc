"""Web games without HTTP: settings, replay, the game's JSON, the scoring phase and the bot's move.

A game is its :class:`Settings` plus the list of moves played (GTP vertices,
``"pass"`` and ``"resign"``). The store keeps only those (and the count of the
scoring phase, and the clock); the position is rebuilt by replaying the moves,
so nothing but plain data crosses a process boundary. :func:`bot_move` is what
the worker pool runs: it takes the settings and the moves, replays them and
returns the bot's move as a GTP vertex. The request bodies that create games
are checked in :mod:`fuseki.web.models`.

Two passes do not end a game on the spot: they open the **scoring phase**
(:func:`scoring_estimate`). The dead-stone estimate marks the dead stones,
:func:`fuseki.go.borders.count` closes the borders and names the open ones,
strings whose fate the playouts leave open are listed as uncertain, and the
player toggles groups (:func:`toggle_group`) until the count is right, then
accepts it, or resumes play (:func:`resume_moves`).

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
from fuseki.go import borders
from fuseki.go.coords import CoordinateError, Point, from_gtp, to_gtp
from fuseki.go.ownership import ownership
from fuseki.go.rules import PRESETS, Rules
from fuseki.go.state import Color, GameState, IllegalMoveError, Move
from fuseki.util.errors import FusekiError
from fuseki.util.seeds import derive_seed
from fuseki.web import clock as clocks
from fuseki.web.clock import TimeControl

__all__ = [
    "BOTS",
    "DEFAULT_BOT",
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
    "default_komi",
    "final_score",
    "game_json",
    "group_of",
    "human_moved",
    "play_human",
    "replay",
    "resume_moves",
    "score_json",
    "scoring_estimate",
    "scoring_estimate_data",
    "toggle_group",
    "undo_moves",
    "warm_up",
]

MIN_SIZE, MAX_SIZE = 5, 19
#: The most a bot or an analysis may think about one position.
MAX_SECONDS = 10.0
#: The most playouts a bot may be asked for (the think-time cap still applies).
MAX_PLAYOUTS = 200_000
MAX_KOMI = 100.0
#: The bots the web UI offers: the ones that answer quickly on any size. ``default`` is no agent of its own: a new
#: game resolves it to the bot measured strongest on its board size (:mod:`fuseki.agents.by_size`), and the game
#: records that bot.
DEFAULT_BOT = "default"
BOTS = (DEFAULT_BOT, "random", "uniform", "mcts", "mcts-book", "policy")
#: The bot options a request may set.
BOT_OPTIONS = ("seconds", "playouts", "model", "seed", "temperature", "mode")
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
    #: The game's time limit, if it has one.
    clock: TimeControl | None = None

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
            "clock": None if self.clock is None else self.clock.to_dict(),
        }


def default_komi(rules: str, handicap: int) -> float:
    """The komi a game gets when the player names none: 0.5 with handicap stones, else the rule set's.

    >>> default_komi("japanese", 0), default_komi("chinese", 0), default_komi("chinese", 4)
    (6.5, 7.5, 0.5)
    """
    return 0.5 if handicap >= 2 else PRESETS[rules].komi


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
        clock=TimeControl.from_dict(data["clock"]) if data.get("clock") else None,
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


def human_moved(settings: Settings, moves: list[str]) -> bool:
    """True when the human has a move (or a pass) that Undo could take back."""
    try:
        undo_moves(settings, moves)
    except GameConflict:
        return False
    return True


def resume_moves(moves: list[str]) -> list[str]:
    """The moves without the passes at their end: play goes on from the position the passes left.

    The player who passed first is to move again, as after a resumption by
    agreement (the passes are not part of the record any more).

    >>> resume_moves(["E5", "C3", "pass", "pass"])
    ['E5', 'C3']
    """
    out = list(moves)
    while out and out[-1] == "pass":
        out.pop()
    return out


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


def _gtp(points: list[Point] | np.ndarray, size: int) -> list[str]:
    if isinstance(points, np.ndarray):
        return _vertices(points, size)
    return [to_gtp(p, size) for p in points]


def _note(open_points: list[str], uncertain: list[str], scoring: str) -> str:
    """Why the count may not be final yet, in the words the page shows (empty when it is)."""
    parts = []
    if open_points:
        shown = ", ".join(open_points[:6]) + (", …" if len(open_points) > 6 else "")
        what = "territory" if scoring == "territory" else "area"
        parts.append(
            f"The border is open at {shown} ({len(open_points)} point{'s' if len(open_points) != 1 else ''}):"
            f" they count as nobody's {what}. Resume to close it, or accept the count as it is."
        )
    if uncertain:
        shown = ", ".join(uncertain[:6]) + (", …" if len(uncertain) > 6 else "")
        parts.append(
            f"Unsettled: the stones at {shown} may still live or die (an open capture race?)."
            " Mark them dead or alive, or resume and play it out."
        )
    return " ".join(parts)


def score_json(
    state: GameState,
    dead: list[Point],
    *,
    estimate: list[Point],
    uncertain: list[Point],
    method: str,
    accepted: bool = False,
) -> dict[str, Any]:
    """The count of a position ended by two passes with ``dead`` stones removed (see :mod:`fuseki.go.borders`).

    ``estimate`` is what the dead-stone estimate (``method``) proposed,
    ``uncertain`` the strings it could not judge; both are kept so that the
    scoring phase can show them while the player toggles groups.
    """
    n = state.size
    c = borders.count(state, dead)
    open_points = _vertices(c.open, n)
    weak = _gtp(uncertain, n)
    return {
        "accepted": accepted,
        "black": c.black,
        "white": c.white,
        "result": c.result,
        "scoring": c.scoring.value,
        "dead": _gtp(sorted(dead), n),
        "estimate": _gtp(sorted(estimate), n),
        "uncertain": weak,
        "dead_stones": method,
        "territory": {"black": _vertices(c.territory_black, n), "white": _vertices(c.territory_white, n)},
        "dame": _vertices(c.dame, n),
        "open": open_points,
        "note": _note(open_points, weak, c.scoring.value),
    }


def scoring_estimate(state: GameState, dead_stones: str = "playouts") -> dict[str, Any]:
    """The scoring phase's first count: the estimate's dead stones removed, borders closed, doubts named.

    ``dead_stones`` names the estimate that finds them (:data:`DEAD_STONES`);
    the playouts' ownership names the uncertain strings whatever the estimate.
    Both use fixed seeds: the same game always gets the same proposal.
    """
    status = final_status_estimator(dead_stones, playouts=SCORE_PLAYOUTS, seed=0)
    dead = list(status(state)["dead"])
    own = ownership(state, playouts=SCORE_PLAYOUTS, seed=0)
    uncertain = borders.uncertain_strings(state, own, dead)
    return score_json(state, dead, estimate=dead, uncertain=uncertain, method=dead_stones)


def scoring_estimate_data(settings_data: dict[str, Any], moves: list[str]) -> dict[str, Any]:
    """:func:`scoring_estimate` of a stored game, from plain data: what the worker pool runs."""
    settings = settings_from_json(settings_data)
    return scoring_estimate(replay(settings, moves), settings.dead_stones)


def final_score(state: GameState, dead_stones: str = "playouts") -> dict[str, Any]:
    """The count the estimate proposes for a game ended by two passes (:func:`scoring_estimate`), accepted as it is."""
    return {**scoring_estimate(state, dead_stones), "accepted": True}


def group_of(state: GameState, point: Point) -> list[Point]:
    """The stones that one click in the scoring phase marks: the string at ``point`` and the strings of its
    colour that share a liberty with it, and so on (stones one point apart die together).

    >>> s = GameState.from_ascii('''
    ...     X . X . .
    ...     . . . . O
    ...     . . . . .
    ...     X . . . .
    ...     . . . . .
    ... ''')
    >>> [to_gtp(p, 5) for p in group_of(s, Point(0, 0))]
    ['A5', 'C5']
    """
    stones = state.stones()
    n = state.size
    color = stones[point.row, point.col]
    if color == 0:
        return []
    seen = {(point.row, point.col)}
    stack = [(point.row, point.col)]
    out = []
    while stack:
        r, c = stack.pop()
        out.append(Point(r, c))
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= rr < n and 0 <= cc < n):
                continue
            if stones[rr, cc] == color and (rr, cc) not in seen:
                seen.add((rr, cc))
                stack.append((rr, cc))
            elif stones[rr, cc] == 0:  # a liberty: strings of the same colour beside it belong too
                for r2, c2 in ((rr - 1, cc), (rr + 1, cc), (rr, cc - 1), (rr, cc + 1)):
                    if 0 <= r2 < n and 0 <= c2 < n and stones[r2, c2] == color and (r2, c2) not in seen:
                        seen.add((r2, c2))
                        stack.append((r2, c2))
    return sorted(out)


def toggle_group(state: GameState, score: dict[str, Any], vertex: Any) -> dict[str, Any]:
    """The count after one click on ``vertex`` in the scoring phase: its group (:func:`group_of`) dead or alive.

    A group with any stone marked dead comes back to life; otherwise it dies.
    :class:`SettingsError` for text that is no vertex, :class:`GameConflict`
    for an empty point.
    """
    n = state.size
    if not isinstance(vertex, str):
        raise SettingsError(f"vertex must be a string such as 'D4', got {vertex!r}")
    try:
        point = from_gtp(vertex, n)
    except CoordinateError as e:
        raise SettingsError(f"{vertex!r} is not a point of the {n}x{n} board: {e}") from None
    if point is None:
        raise SettingsError("mark a stone, not a pass")
    group = group_of(state, point)
    if not group:
        raise GameConflict(f"there is no stone at {vertex.strip().upper()} to mark dead or alive")
    dead = {from_gtp(v, n) for v in score["dead"]}
    if any(p in dead for p in group):
        dead -= set(group)
    else:
        dead |= set(group)
    estimate = [from_gtp(v, n) for v in score.get("estimate", score["dead"])]
    uncertain = [from_gtp(v, n) for v in score.get("uncertain", [])]
    method = score.get("dead_stones", "playouts")
    return score_json(state, sorted(dead), estimate=estimate, uncertain=uncertain, method=method)  # type: ignore[arg-type]


def position_json(state: GameState) -> dict[str, Any]:
    """What every position shows: board, player to move, last move, captures.

    After a resignation the last move is still the last stone played (or
    pass), so the board keeps its last-move mark.
    """
    last = state.last_move
    if last is not None and last.is_resign:
        last = state.parent.last_move if state.parent is not None else None
    return {
        "board": board_rows(state),
        "to_move": _color_name(state.next_player),
        "last_move": None if last is None or last.is_resign else last.gtp(state.size),
        "captures": {"black": state.captures(Color.BLACK), "white": state.captures(Color.WHITE)},
    }


def _score_view(score: dict[str, Any]) -> dict[str, Any]:
    """The stored count as the API shows it (a count stored before the scoring phase existed was accepted)."""
    out = {k: score[k] for k in ("black", "white", "dead", "territory")}
    out["result"] = score.get("result")
    # Scores cached before the setting existed were counted by the playouts.
    out["dead_stones"] = score.get("dead_stones", "playouts")
    for key in ("estimate", "uncertain"):
        out[key] = list(score.get(key, score["dead"] if key == "estimate" else []))
    for key in ("dame", "open"):
        out[key] = list(score.get(key, []))
    out["note"] = score.get("note", "")
    out["accepted"] = bool(score.get("accepted", True))
    return out


def phase_of(state: GameState, score: dict[str, Any] | None, clock: dict[str, Any] | None) -> str:
    """``play``, ``scoring`` (two passes, count not accepted yet) or ``over``."""
    if state.resigned is not None or (clock is not None and clock.get("flagged")):
        return "over"
    if state.is_over():
        return "over" if score is None or score.get("accepted", True) else "scoring"
    return "play"


def result_of(state: GameState, score: dict[str, Any] | None, clock: dict[str, Any] | None) -> str | None:
    """The final result (``"B+3.5"``, ``"W+R"``, ``"B+T"``) once the game is over, else ``None``."""
    if clock is not None and clock.get("flagged"):
        return f"{'W' if clock['flagged'] == 'black' else 'B'}+T"
    if state.resigned is not None:
        return state.result()
    if phase_of(state, score, clock) != "over":
        return None
    return score["result"] if score else state.result()


def game_json(
    game_id: str,
    settings: Settings,
    moves: list[str],
    state: GameState,
    score: dict[str, Any] | None = None,
    clock: dict[str, Any] | None = None,
    *,
    revision: int = 0,
    now: float | None = None,
) -> dict[str, Any]:
    """The game as the API returns it (see docs/web.md).

    ``score`` is the stored count of a game ended by passes (the scoring
    phase's, or the accepted one); a resignation has no score, only the
    result ``"B+R"``/``"W+R"``, and a loss on time ``"B+T"``/``"W+T"``.
    ``clock`` is the clock's stored state, shown as of ``now``.
    """
    import time as _time

    line = list(state.ancestors())[::-1]  # the states from the start: no replay needed
    played = [
        {"color": _color_name(parent.next_player), "vertex": vertex}
        for parent, vertex in zip(line, moves)
        if vertex != "resign"
    ]
    phase = phase_of(state, score, clock)
    if phase == "over":
        status = "over"
    elif phase == "scoring":
        status = "scoring"
    elif state.next_player is settings.human:
        status = "your_turn"
    else:
        status = "bot_thinking"
    out: dict[str, Any] = {"id": game_id, **settings.to_dict()}
    out.update(position_json(state))
    out["moves"] = played
    out["over"] = phase == "over"
    out["result"] = result_of(state, score, clock)
    out["score"] = None if score is None or not state.is_over() or state.resigned is not None else _score_view(score)
    out["status"] = status
    out["can_undo"] = human_moved(settings, moves) and not (clock and clock.get("flagged"))
    out["revision"] = revision
    if settings.clock is not None and clock is not None:
        out["clock"] = clocks.view(clock, settings.clock, _time.time() if now is None else now)
    else:
        out["clock"] = None
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
    # The web's bots pass back only on a settled board: an early pass does not end the game at komi.
    return Terminating(make_agent(bot, **opts), settled_only=True)


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


def warm_up(nice: int = 0) -> None:
    """Compile (or load from Numba's cache) the kernels a worker needs, before the first request.

    ``nice`` lowers the worker process's priority first (the analysis pool's
    workers: on a busy machine the operating system then serves the bots'
    moves before the analyses).
    """
    if nice:
        import os

        os.nice(nice)
    s = Settings(size=5, komi=0.5)
    bot_move(s.to_dict(), ["C3"])
