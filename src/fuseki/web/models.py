"""The JSON bodies of the web API as pydantic models, with the messages the API has always given.

FastAPI validates a request body against these models before a route runs;
a body that does not fit is a 422 whose ``detail`` is one line (see
:func:`fuseki.web.app.create_app`'s handler). The checks a field needs beyond
its type (a board size from 5 to 19, a komi in half points) raise
:class:`FusekiMessage`, a pydantic error whose text is shown as it is, so the
API's messages stay the plain sentences the web page shows to its user
("board size must be from 5 to 19, got 25"), not pydantic's wording.

>>> body = GameSettingsBody.model_validate({"size": 9, "human": "white", "bot": "random"})
>>> s = body.to_settings()
>>> s.bot_color.name, s.rules, s.komi
('BLACK', 'chinese', 7.5)
>>> GameSettingsBody.model_validate({"rules": "japanese"}).to_settings().komi   # the rule set's komi
6.5
>>> GameSettingsBody.model_validate({"handicap": 3}).to_settings().komi        # handicap: half a point
0.5
>>> parse_settings({"size": 25})
Traceback (most recent call last):
...
fuseki.web.games.SettingsError: board size must be from 5 to 19, got 25
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from fuseki.agents import agent_options
from fuseki.agents.agent_file import available_models, read_agent_info
from fuseki.agents.base import board_size_problem
from fuseki.agents.deep_learning import DEFAULT_POLICY_MODELS, MODES, default_policy_installed
from fuseki.go.rules import PRESETS
from fuseki.go.state import Color
from fuseki.web import analysis
from fuseki.web.clock import ClockError, TimeControl
from fuseki.web.games import (
    BOT_OPTIONS,
    BOTS,
    DEAD_STONES,
    DEFAULT_BOT,
    MAX_KOMI,
    MAX_SIZE,
    MIN_SIZE,
    Settings,
    SettingsError,
    check_playouts,
    check_seconds,
    default_komi,
)

__all__ = [
    "FUSEKI_ERROR",
    "ActionBody",
    "AnalyzeBody",
    "DeadBody",
    "GameSettingsBody",
    "MoveBody",
    "ReviewBody",
    "WinratesBody",
    "fuseki_message",
    "parse_settings",
]

#: The pydantic error type whose message is shown without the field's name in front.
FUSEKI_ERROR = "fuseki"


def fuseki_message(text: str) -> PydanticCustomError:
    """A pydantic error that the 422 handler shows as ``text``, word for word."""
    return PydanticCustomError(FUSEKI_ERROR, text)


def _checked(check: Any, *args: Any) -> Any:
    """Run one of :mod:`fuseki.web.games`' checks; its :class:`SettingsError` becomes a shown-as-is message."""
    try:
        return check(*args)
    except SettingsError as e:
        raise fuseki_message(str(e)) from None


def _number(value: Any, name: str, whole: bool) -> int | float:
    """``value`` as a whole number or a finite number, in the API's words (booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fuseki_message(f"{name} must be a number, got {value!r}")
    if whole:
        if isinstance(value, float) and not value.is_integer():
            raise fuseki_message(f"{name} must be a whole number, got {value!r}")
        return int(value)
    if not math.isfinite(value):
        raise fuseki_message(f"{name} must be a finite number, got {value!r}")
    return float(value)


class GameSettingsBody(BaseModel):
    """``POST /api/games``: the settings of a new game; every field may be left out."""

    model_config = ConfigDict(extra="ignore")

    size: int = 9
    rules: str = "chinese"
    #: ``None``: the komi of ``rules``, or 0.5 with a handicap (:func:`fuseki.web.games.default_komi`).
    komi: float | None = None
    handicap: int = 0
    human: Color = Color.BLACK
    #: ``default``: the bot measured strongest on ``size`` (resolved when the game is made, :func:`resolve_default_bot`).
    bot: str = DEFAULT_BOT
    bot_options: dict[str, Any] = {}
    dead_stones: str = "playouts"
    #: ``{"main": seconds, "byoyomi": seconds, "periods": n}``, or ``None``: no clock.
    clock: TimeControl | None = None

    @field_validator("size", mode="before")
    @classmethod
    def _size(cls, value: Any) -> int:
        size = int(_number(value, "size", whole=True))
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise fuseki_message(f"board size must be from {MIN_SIZE} to {MAX_SIZE}, got {size}")
        return size

    @field_validator("rules", mode="before")
    @classmethod
    def _rules(cls, value: Any) -> str:
        if not isinstance(value, str) or value.lower() not in PRESETS:
            raise fuseki_message(f"unknown rules {value!r}; known: {', '.join(sorted(PRESETS))}")
        return value.lower()

    @field_validator("komi", mode="before")
    @classmethod
    def _komi(cls, value: Any) -> float | None:
        if value is None:
            return None
        komi = float(_number(value, "komi", whole=False))
        if abs(komi) > MAX_KOMI or round(komi * 2) != komi * 2:
            raise fuseki_message(f"komi must be a multiple of 0.5 from -{MAX_KOMI:g} to {MAX_KOMI:g}, got {komi:g}")
        return komi

    @field_validator("handicap", mode="before")
    @classmethod
    def _handicap(cls, value: Any) -> int:
        handicap = int(_number(value, "handicap", whole=True))
        return 0 if handicap == 1 else handicap  # one handicap stone is no stone: Black simply moves first

    @field_validator("human", mode="before")
    @classmethod
    def _human(cls, value: Any) -> Color:
        try:
            human = Color.parse(value) if isinstance(value, str) else None
        except ValueError:
            human = None
        if human is None:
            raise fuseki_message(f"human must be 'black' or 'white', got {value!r}")
        return human

    @field_validator("bot", mode="before")
    @classmethod
    def _bot(cls, value: Any) -> str:
        if value not in BOTS:
            raise fuseki_message(f"unknown bot {value!r}; known: {', '.join(BOTS)}")
        return str(value)

    @field_validator("bot_options", mode="before")
    @classmethod
    def _bot_options(cls, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise fuseki_message("bot_options must be an object")
        return value

    @field_validator("dead_stones", mode="before")
    @classmethod
    def _dead_stones(cls, value: Any) -> str:
        if value not in DEAD_STONES:
            raise fuseki_message(f"unknown dead_stones {value!r}; choose one of: {', '.join(DEAD_STONES)}")
        return str(value)

    @field_validator("clock", mode="before")
    @classmethod
    def _clock(cls, value: Any) -> TimeControl | None:
        if value is None:
            return None
        if not isinstance(value, dict) or not set(value) <= {"main", "byoyomi", "periods"}:
            raise fuseki_message('clock must be an object {"main": seconds, "byoyomi": seconds, "periods": n}')
        try:
            return TimeControl(
                value.get("main", 0.0), value.get("byoyomi", 0.0), value.get("periods", 0)  # type: ignore[arg-type]
            )
        except ClockError as e:
            raise fuseki_message(str(e)) from None

    @model_validator(mode="after")
    def _together(self) -> GameSettingsBody:
        """The checks that need two fields: the bot's options, the policy's board size, the handicap's room."""
        if self.komi is None:
            self.komi = default_komi(self.rules, self.handicap)
        if self.bot == DEFAULT_BOT:
            self.bot, self.bot_options = _checked(resolve_default_bot, self.size, self.bot_options)
        self.bot_options = _checked(_check_bot_options, self.bot, self.bot_options)
        if self.bot == "policy":
            _checked(_check_policy_model, self.bot_options, self.size)
        try:
            self.to_settings().initial_state()
        except ValueError as e:  # a handicap the board cannot take
            raise fuseki_message(str(e)) from None
        return self

    def to_settings(self) -> Settings:
        """The game's :class:`~fuseki.web.games.Settings`."""
        komi = self.komi if self.komi is not None else default_komi(self.rules, self.handicap)
        return Settings(
            self.size, komi, self.handicap, self.rules, self.human, self.bot, dict(self.bot_options), self.dead_stones,
            self.clock,
        )


def parse_settings(data: dict[str, Any]) -> Settings:
    """Validate a game's settings outside a request; raises :class:`SettingsError` with the first problem."""
    try:
        return GameSettingsBody.model_validate(data).to_settings()
    except ValidationError as e:
        raise SettingsError(error_messages(e)[0]) from None


def error_messages(error: ValidationError | Any) -> list[str]:
    """One line per problem of a pydantic or FastAPI validation error, the field's name in front
    unless the message is one of ours (:data:`FUSEKI_ERROR`)."""
    lines = []
    for err in error.errors():
        if err.get("type") == FUSEKI_ERROR:
            lines.append(str(err.get("msg")))
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        if not loc and err.get("type") in ("model_attributes_type", "dict_type"):
            lines.append("the body must be a JSON object")
            continue
        lines.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return lines


def _check_bot_options(bot: str, options: dict[str, Any]) -> dict[str, Any]:
    """The bot's options, each checked; an option the bot does not take is refused by name."""
    accepted = agent_options(bot)
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in BOT_OPTIONS or (accepted is not None and key not in accepted):
            takes = [k for k in BOT_OPTIONS if accepted is None or k in accepted]
            raise SettingsError(f"bot {bot!r} takes no option {key!r}; it takes: {', '.join(takes) or 'none'}")
        if key == "seconds":
            out[key] = check_seconds(value, "bot_options.seconds")
        elif key == "playouts":
            out[key] = check_playouts(value, what="bot_options.playouts")
        elif key == "seed":
            if isinstance(value, bool) or not isinstance(value, int):
                raise SettingsError(f"bot_options.seed must be a whole number, got {value!r}")
            out[key] = value
        elif key == "temperature":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 100:
                raise SettingsError(f"bot_options.temperature must be a number above 0, got {value!r}")
            out[key] = float(value)
        elif key == "mode":
            if value not in MODES:
                raise SettingsError(f"bot_options.mode must be one of {', '.join(MODES)}, got {value!r}")
            out[key] = value
        elif key == "model":
            names = available_models()
            if not isinstance(value, str) or value not in names:
                raise SettingsError(f"unknown model {value!r}; installed: {', '.join(names) or 'none'}")
            out[key] = value
    return out


def resolve_default_bot(size: int, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``default``'s bot and options on ``size``: the table's (:mod:`fuseki.agents.by_size`).

    Its shipped network may be missing from a checkout; the MCTS engine,
    which plays every size, then plays, and the game records it (the page
    shows whom the player faces). ``default`` takes no options of its own: the
    table's budget is part of what was measured.
    """
    from fuseki.agents.by_size import resolve_default

    if options:
        raise SettingsError(
            f"bot {DEFAULT_BOT!r} takes no options (it is the bot measured strongest on the board size); "
            "choose a bot to set options"
        )
    chosen = resolve_default(size)
    return chosen.bot, chosen.options


def _check_policy_model(options: dict[str, Any], size: int) -> None:
    """Fill in the shipped policy when no model is named, and refuse a model trained for another board."""
    if "model" not in options:
        if not default_policy_installed(size):
            names = ", ".join(available_models()) or "none"
            raise SettingsError(
                f"bot 'policy' needs bot_options.model on {size}x{size} (no shipped policy for that size); "
                f"installed: {names}"
            )
        options["model"] = DEFAULT_POLICY_MODELS[size]
    try:
        info = read_agent_info(options["model"])
    except ValueError as e:
        raise SettingsError(f"model {options['model']!r}: {e}") from None
    problem = "" if info.plays(size) else board_size_problem(f"model {options['model']!r}", info.board_size, size)
    if problem:
        raise SettingsError(problem)


def _revision(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise fuseki_message(f"revision must be a whole number (the game's revision), got {value!r}")
    return value


class ActionBody(BaseModel):
    """Pass, resign, undo, accept, resume: optionally the revision of the game the page shows."""

    revision: int | None = None

    @field_validator("revision", mode="before")
    @classmethod
    def _revision(cls, value: Any) -> int | None:
        return _revision(value)


class MoveBody(ActionBody):
    """``POST /api/games/{id}/moves``: ``{"vertex": "D4"}`` (or ``"pass"``); the vertex is checked by the game."""

    vertex: Any = None

    @model_validator(mode="after")
    def _given(self) -> MoveBody:
        if "vertex" not in self.model_fields_set:
            raise fuseki_message("vertex: field required (a point such as 'D4', or 'pass')")
        return self


class DeadBody(MoveBody):
    """``POST /api/games/{id}/dead``: ``{"vertex": "C3"}``, a stone of the group to mark dead or alive."""


def _channel(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 64 or not value.replace("-", "").replace("_", "").isalnum():
        raise fuseki_message(f"channel must be 1 to 64 letters, digits, '-' or '_', got {value!r}")
    return value


class WinratesBody(BaseModel):
    """``POST /api/reviews/{id}/winrates``: playouts a position (default 500), and the page's channel."""

    playouts: int = 500
    channel: str | None = None

    @field_validator("playouts", mode="before")
    @classmethod
    def _playouts(cls, value: Any) -> int:
        return int(_checked(check_playouts, value, analysis.MAX_PLAYOUTS_PER_POSITION))

    @field_validator("channel", mode="before")
    @classmethod
    def _channel(cls, value: Any) -> str | None:
        return _channel(value)


class AnalyzeBody(BaseModel):
    """``POST /api/analyze``: ``{"review": ID, "n": N}`` or ``{"game": ID}``, ``seconds`` (default 1), ``channel``.

    A request on a channel cancels the analysis still running on it (the page stepped on).
    """

    seconds: float = 1.0
    review: StrictStr | None = None
    n: StrictInt = 0
    game: StrictStr | None = None
    channel: str | None = None

    @field_validator("seconds", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> float:
        return float(_checked(check_seconds, value))

    @field_validator("channel", mode="before")
    @classmethod
    def _channel(cls, value: Any) -> str | None:
        return _channel(value)

    @model_validator(mode="after")
    def _what(self) -> AnalyzeBody:
        if self.review is None and self.game is None:
            raise fuseki_message('say what to analyze: {"review": ID, "n": N} or {"game": ID}')
        return self


class ReviewBody(BaseModel):
    """``POST /api/reviews`` as JSON: ``{"sgf": "(;GM[1]...)"}`` (a multipart upload is the other way)."""

    sgf: StrictStr
