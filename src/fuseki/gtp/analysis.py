"""The analysis formats GUIs read over GTP: Leela Zero's, KataGo's, Sabaki's and GoGui's.

Each function turns one :class:`~fuseki.search.go.gomcts.SearchInfo` (a
snapshot of the search) into the text a GUI parses. The formats are
documented by their authors:

``lz-analyze`` (Leela Zero; also read by Lizzie, Sabaki, LizGoban)
    one line per update, ``info move D4 visits 836 winrate 4656 prior 839
    lcb 4640 order 0 pv D4 Q16 ...`` repeated for each move; ``winrate``,
    ``prior`` and ``lcb`` are 10000 times a fraction, rounded.
``kata-analyze`` (KataGo's docs/GTP_Extensions.md)
    the same outline with floats: ``winrate 0.48 scoreMean -0.6 scoreStdev
    24.7 scoreLead -0.6 prior 0.22 lcb 0.47 order 0 pv ...``; with
    ``ownership true`` the line ends with ``ownership`` and size*size floats
    in [-1, 1], row by row from the top left (A19 first), for the player to
    move; ``pvVisits true`` adds the visits of each PV move after the PV;
    ``rootInfo true`` adds ``rootInfo visits N winrate W scoreLead S``.
``analyze`` (Sabaki's docs/guides/engine-analysis-integration.md)
    ``info move ... visits ... winrate ... [scoreLead ...] pv ...``; a
    winrate with a ``.`` is a fraction. We write floats and the score lead.
``gogui-analyze_commands`` (GoGui's analyze.xml)
    ``type/label/command`` lines; a ``gfx`` reply is drawing commands, one
    per line: ``INFLUENCE`` point/value pairs (-1 white to +1 black),
    ``LABEL`` point/text pairs, ``VAR`` moves, ``TEXT`` a status line.

Win rates and scores are for the player to move at the root. Our engine's
``prior`` is the move's share of the root's prior wins (heuristics plus any
policy network), its ``lcb`` the lower end of a 95 % Wilson interval on the
move's win rate, and scores are the mean final area difference against komi
over the simulations (playouts score every game to the end, so this is a
score estimate, not KataGo's trained lead). Ownership is averaged over the
playouts of the search.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from fuseki.go.coords import from_index, to_gtp
from fuseki.go.state import Color
from fuseki.search.go.gomcts import ChildInfo, SearchInfo
from fuseki.util.stats import wilson_interval

__all__ = [
    "AnalyzeRequest",
    "AnalyzeSyntaxError",
    "GOGUI_COMMANDS",
    "gogui_best_moves",
    "gogui_ownership",
    "kata_line",
    "lz_line",
    "parse_analyze_args",
    "sabaki_line",
    "vertex",
    "winrate_text",
]

#: What ``gogui-analyze_commands`` lists: GoGui's type/label/command lines.
GOGUI_COMMANDS = (
    "gfx/Fuseki Ownership/fuseki-ownership",
    "dboard/Fuseki Ownership Board/fuseki-ownership_board",
    "gfx/Fuseki Best Moves/fuseki-best_moves",
    "var/Fuseki Principal Variation/fuseki-pv",
    "string/Fuseki Win Rate/fuseki-winrate",
    "plist/Fuseki Dead Stones/final_status_list dead",
)


class AnalyzeSyntaxError(ValueError):
    """Arguments an analysis command cannot read."""


@dataclasses.dataclass(frozen=True)
class AnalyzeRequest:
    """What an analysis command asked for (see :func:`parse_analyze_args`)."""

    color: Color | None = None  #: the player whose move is analysed (None: the player to move)
    interval: float = 0.0  #: seconds between lines; 0: no lines while searching
    min_moves: int = 0
    max_moves: int | None = None
    ownership: bool = False
    pv_visits: bool = False
    root_info: bool = False


_BOOLEAN = {"true": True, "false": False}


def parse_analyze_args(args: Sequence[str], *, kata: bool) -> AnalyzeRequest:
    """``[color] [interval] [key value]...`` as Leela Zero and KataGo read them.

    The interval is in centiseconds. Keys: ``interval``, ``minmoves``,
    ``maxmoves`` for every form; ``ownership``, ``pvVisits`` and
    ``rootInfo`` (``true``/``false``) for the ``kata-`` commands. Leela
    Zero's ``avoid`` and ``allow`` are not supported (an error, not a silent
    full search).

    >>> parse_analyze_args(["b", "50", "ownership", "true"], kata=True)
    AnalyzeRequest(color=<Color.BLACK: 1>, interval=0.5, min_moves=0, max_moves=None, ownership=True, pv_visits=False, root_info=False)
    >>> parse_analyze_args(["25"], kata=False).interval
    0.25
    """
    words = list(args)
    values: dict[str, object] = {}
    if words:
        try:
            values["color"] = Color.parse(words[0])
            words.pop(0)
        except ValueError:
            pass
    if words and _is_int(words[0]):
        values["interval"] = _centiseconds(words.pop(0))
    while words:
        key = words.pop(0)
        if not words:
            raise AnalyzeSyntaxError(f"{key!r} needs a value")
        value = words.pop(0)
        low = key.lower()
        if low == "interval":
            values["interval"] = _centiseconds(value)
        elif low in ("minmoves", "maxmoves"):
            if not _is_int(value) or int(value) < 0:
                raise AnalyzeSyntaxError(f"{key} must be a whole number at least 0, got {value!r}")
            values["min_moves" if low == "minmoves" else "max_moves"] = int(value)
        elif kata and low in ("ownership", "pvvisits", "rootinfo"):
            if value.lower() not in _BOOLEAN:
                raise AnalyzeSyntaxError(f"{key} must be true or false, got {value!r}")
            field = {"ownership": "ownership", "pvvisits": "pv_visits", "rootinfo": "root_info"}[low]
            values[field] = _BOOLEAN[value.lower()]
        elif low in ("avoid", "allow"):
            raise AnalyzeSyntaxError(f"{key} is not supported by this engine")
        else:
            raise AnalyzeSyntaxError(f"unknown key {key!r}")
    return AnalyzeRequest(**values)  # type: ignore[arg-type]


def _is_int(text: str) -> bool:
    return text.isdigit() and len(text) < 10


def _centiseconds(text: str) -> float:
    if not _is_int(text):
        raise AnalyzeSyntaxError(f"the interval must be whole centiseconds, got {text!r}")
    return int(text) / 100.0


def vertex(index: int, size: int) -> str:
    """A move index (``size*size`` = pass) as a GTP vertex."""
    return "pass" if index == size * size else to_gtp(from_index(index, size), size)


def _chosen(info: SearchInfo, request: AnalyzeRequest) -> list[ChildInfo]:
    """The moves to report: visited ones by visits, then unvisited by prior up to ``min_moves``."""
    visited = [c for c in info.children if c.visits > 0]
    if len(visited) < request.min_moves:
        rest = sorted((c for c in info.children if c.visits == 0), key=lambda c: -c.prior_share)
        visited += rest[: request.min_moves - len(visited)]
    if request.max_moves is not None:
        visited = visited[: request.max_moves]
    return visited


def _lcb(child: ChildInfo) -> float:
    if child.visits <= 0 or math.isnan(child.winrate):
        return 0.0
    return max(0.0, wilson_interval(child.winrate * child.visits, child.visits)[0])


def _rate(child: ChildInfo, info: SearchInfo) -> float:
    """The move's win rate; an unvisited move (listed for ``minmoves``) shows the root's."""
    if child.visits > 0 and not math.isnan(child.winrate):
        return child.winrate
    value = info.value
    return 0.5 if math.isnan(value) else value


def _score(x: float) -> float:
    return 0.0 if math.isnan(x) else x


def _pv(child: ChildInfo, size: int) -> str:
    return " ".join(vertex(m, size) for m in child.pv)


def _permyriad(x: float) -> int:
    return min(10000, max(0, round(10000 * x)))


def lz_line(info: SearchInfo, size: int, request: AnalyzeRequest) -> str:
    """One ``lz-analyze`` update: every reported move on one line."""
    parts = []
    for order, c in enumerate(_chosen(info, request)):
        parts.append(
            f"info move {vertex(c.move, size)} visits {c.visits} winrate {_permyriad(_rate(c, info))} "
            f"prior {_permyriad(c.prior_share)} lcb {_permyriad(_lcb(c))} order {order} pv {_pv(c, size)}"
        )
    return " ".join(parts)


def kata_line(info: SearchInfo, size: int, to_move: Color, request: AnalyzeRequest) -> str:
    """One ``kata-analyze`` update, with ``rootInfo`` and ``ownership`` when asked for."""
    parts = []
    for order, c in enumerate(_chosen(info, request)):
        score = _score(c.score_mean)
        text = (
            f"info move {vertex(c.move, size)} visits {c.visits} winrate {_rate(c, info):.6f} "
            f"scoreMean {score:.6f} scoreStdev {_score(c.score_stdev):.6f} scoreLead {score:.6f} "
            f"prior {c.prior_share:.6f} lcb {_lcb(c):.6f} order {order} pv {_pv(c, size)}"
        )
        if request.pv_visits:
            text += " pvVisits " + " ".join(str(v) for v in c.pv_visits)
        parts.append(text)
    if request.root_info:
        value, score = info.value, _score(info.score)
        visits = sum(c.visits for c in info.children)
        parts.append(
            f"rootInfo visits {visits} winrate {0.5 if math.isnan(value) else value:.6f} "
            f"scoreLead {score:.6f} scoreMean {score:.6f}"
        )
    if request.ownership:
        sign = 1.0 if to_move is Color.BLACK else -1.0
        parts.append("ownership " + " ".join(f"{sign * float(v):.6f}" for v in info.ownership))
    return " ".join(parts)


def sabaki_line(info: SearchInfo, size: int, request: AnalyzeRequest) -> str:
    """One ``analyze`` update (Sabaki's form): float win rates and the score lead."""
    parts = []
    for order, c in enumerate(_chosen(info, request)):
        parts.append(
            f"info move {vertex(c.move, size)} visits {c.visits} winrate {_rate(c, info):.6f} "
            f"scoreLead {_score(c.score_mean):.6f} prior {c.prior_share:.6f} lcb {_lcb(c):.6f} "
            f"order {order} pv {_pv(c, size)}"
        )
    return " ".join(parts)


def winrate_text(info: SearchInfo, to_move: Color) -> str:
    """One line for a status bar: the win rate and score for the player to move, and the effort."""
    value = info.value
    if math.isnan(value):
        return f"{to_move.name.capitalize()} to move: no playouts yet"
    return (
        f"{to_move.name.capitalize()} to move: win rate {100 * value:.1f} %, score {_score(info.score):+.1f}, "
        f"{info.playouts} playouts"
    )


def gogui_ownership(info: SearchInfo, size: int, to_move: Color) -> str:
    """A ``gfx`` reply: the playouts' ownership as GoGui's influence squares (+1 black, -1 white)."""
    pairs = " ".join(f"{vertex(i, size)} {float(v):.3f}" for i, v in enumerate(info.ownership))
    return f"INFLUENCE {pairs}\nTEXT {winrate_text(info, to_move)}"


def gogui_ownership_board(info: SearchInfo, size: int) -> str:
    """A ``dboard`` reply: the ownership as size rows of numbers, the top row first."""
    own = info.ownership
    return "\n".join(" ".join(f"{float(own[r * size + c]):.3f}" for c in range(size)) for r in range(size))


def gogui_best_moves(info: SearchInfo, size: int, to_move: Color, count: int = 5) -> str:
    """A ``gfx`` reply: the best moves labelled with their win rates, and the best line."""
    moves = [c for c in info.children if c.visits > 0 and c.move != size * size][:count]
    lines = []
    if moves:
        labels = " ".join(f"{vertex(c.move, size)} {round(100 * c.winrate)}" for c in moves)
        lines.append(f"LABEL {labels}")
    best = next((c for c in info.children if c.visits > 0), None)
    if best is not None:
        color = to_move
        var = []
        for m in best.pv:
            var.append(f"{color.letter.lower()} {vertex(m, size)}")
            color = color.other
        lines.append("VAR " + " ".join(var))
    lines.append(f"TEXT {winrate_text(info, to_move)}")
    return "\n".join(lines)
