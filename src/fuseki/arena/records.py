"""The folder of a resumable run of games: its settings file and its finished games read back.

A match or an evaluation writes each game as an SGF file next to a settings
file. Run again on the same folder, it plays only the games that are
missing, and refuses a folder that holds another run's settings, or that
another run is writing to (:func:`games_folder`, :mod:`fuseki.util.runs`),
so two runs are never mixed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from fuseki.arena.outcome import GameOutcome, a_color, moves_digest, side_of
from fuseki.arena.scoring import scored_by
from fuseki.go.sgf import SgfError, load_sgf, parse_result
from fuseki.util.runs import RunFolder, field_defaults

__all__ = ["game_file", "games_folder", "locked", "prepare_games_folder", "read_finished"]


def games_folder(sgf_dir: str | os.PathLike[str], settings_file: str, what: str) -> RunFolder:
    """The SGF folder of a match (``what="a match"``) or an evaluation (``"an evaluation"``)."""
    return RunFolder(
        Path(sgf_dir),
        settings_file,
        holds=f"{what} with other settings",
        file_kind=f"{what} settings file",
        hint="use another --sgf-dir or the same settings",
    )


def prepare_games_folder(folder: RunFolder, settings: Any, header: Mapping[str, Any]) -> None:
    """Check the (locked) folder's settings file against ``settings`` (a dataclass with ``to_dict``), or write it.

    A setting an old file lacks stands for its default or its ``LEGACY``
    value (:func:`~fuseki.util.runs.field_defaults`). ``header`` goes before
    the settings in a new file (``{"fuseki_match": 1}``).
    """
    mine = settings.to_dict()
    theirs = folder.saved_settings()
    if theirs is None:
        folder.write({**header, "settings": mine})
    else:
        folder.check(theirs, mine, defaults=field_defaults(type(settings)))


@contextlib.contextmanager
def locked(folder: RunFolder | None) -> Iterator[None]:
    """Hold ``folder``'s lock while the block runs (nothing to hold without a folder)."""
    if folder is None:
        yield
        return
    with folder.locked():
        yield


def game_file(sgf_dir: Path, number: int) -> Path:
    """``game_0007.sgf``: game 7 of a match or an evaluation."""
    return sgf_dir / f"game_{number:04d}.sgf"


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
        if line.startswith(("forfeit: ", "time: ", "note: ")):
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
        digest=moves_digest(record.moves),
    )
