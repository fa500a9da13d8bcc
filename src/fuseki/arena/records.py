"""The folder of a resumable run of games: its settings check and its finished games read back.

A match or an evaluation writes each game as an SGF file next to a settings
file. Run again on the same folder, it plays only the games that are
missing, and refuses a folder that holds another run's settings
(:func:`settings_diffs`), so two runs are never mixed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from fuseki.arena.outcome import GameOutcome, a_color, side_of
from fuseki.arena.scoring import scored_by
from fuseki.go.sgf import SgfError, load_sgf, parse_result

__all__ = ["read_finished", "settings_diffs"]


def settings_diffs(cls: type, theirs: dict[str, Any], mine: dict[str, Any]) -> list[str]:
    """``"key: X there, Y now"`` for every setting of a saved run that differs from this run's.

    ``cls`` is the settings dataclass: a file written before a setting existed
    holds that setting's default, so an old folder still resumes. Where the
    old behaviour differs from today's default, ``cls.LEGACY`` names the value
    such a file stands for (``clock``: old runs always sent a clock).
    """
    defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    defaults.update(getattr(cls, "LEGACY", {}))
    return [
        f"{key}: {theirs.get(key, defaults.get(key))!r} there, {value!r} now"
        for key, value in mine.items()
        if theirs.get(key, defaults.get(key)) != value
    ]


def read_finished(path: Path, number: int) -> GameOutcome | None:
    """The outcome of game ``number`` stored in an earlier run's SGF, if that game is finished and readable."""
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
        side_of(winner, color),
        kind,
        reason,
        len(record.moves),
        reused=True,
        dead_stones=scored_by(record.comment),
    )
