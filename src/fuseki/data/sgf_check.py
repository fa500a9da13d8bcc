"""Check a collection of SGF games: what the reader repairs, what it refuses, and why.

``fuseki sgf check`` reads every game in its sources (files, folders, zip and
tar archives, as :mod:`fuseki.data.sources` lists them), replays it, and
reports per file: loaded as written, loaded with repairs (the warnings of
:mod:`fuseki.go.sgf`, counted by kind), or refused (an :class:`SgfError`,
counted by the kind of problem). A game the check loads is a game ``fuseki
data process`` uses, and the other way round: both read and replay the same
way, so the processor skips exactly the refused games (and, by its own
choice, games of another board size or player).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.sgf").write_bytes(b"(;GM[1]SZ[9]KM[650];B[ee];W[cc])")
>>> _ = (folder / "b.sgf").write_bytes(b"(;GM[1]SZ[9];B[ee];W[ee])")
>>> report = check_games([folder])
>>> report["files"], report["loaded"], report["repaired"], report["refused"]
(2, 0, 1, 1)
>>> report["by_kind"], report["refused_by_kind"]
({'komi_x100': 1}, {'illegal_move': 1})
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from fuseki.data.sources import DEFAULT_MAX_BYTES, iter_games
from fuseki.go.sgf import KINDS, SgfError, read_sgf

__all__ = ["REFUSALS", "check_game", "check_games", "refusal_kind"]

#: Kinds of refusal, by the start of the error message (first match wins).
REFUSALS: list[tuple[str, str]] = [
    ("not_sgf", r"not an SGF file"),
    ("malformed", r"malformed SGF file"),
    ("not_go", r"not a Go game"),
    ("board_size", r"(unsupported|bad) board size"),
    ("illegal_move", r"move \d+ \(.*\) is (illegal|out of turn)"),
    ("bad_move", r"move \d+: "),
    ("bad_handicap", r"(bad handicap|HA\[\d+\] without handicap stones)"),
    ("bad_setup", r"(setup point|bad setup stones|impossible setup position|bad player to move)"),
]


def refusal_kind(error: SgfError) -> str:
    """The kind of an :class:`SgfError`: a repair strict reading refused, one of :data:`REFUSALS`, or ``other``."""
    if error.kind is not None:
        return error.kind
    message = str(error)
    for kind, pattern in REFUSALS:
        if re.match(pattern, message):
            return kind
    return "other"


def check_game(data: bytes, *, strict: bool = False) -> dict[str, Any]:
    """Read and replay one game: ``{"status": "loaded"|"repaired"|"refused", "moves", "warnings", ...}``.

    ``warnings`` are ``{"kind", "message"}`` pairs; a refused game has
    ``error`` (the one-line message) and ``error_kind`` (:func:`refusal_kind`),
    and the warnings found before the refusal. ``repaired`` means at least one
    repair; notes alone (valid SGF read in a way worth saying) leave a game
    ``loaded``.
    """
    record = None
    out: dict[str, Any] = {}
    try:
        record = read_sgf(data, strict=strict)
        out["moves"] = len(record.moves)
        for _ in record.states():  # the replay adds its repairs to record.warnings
            pass
    except SgfError as e:
        out.update(status="refused", error=str(e), error_kind=refusal_kind(e))
    warnings = record.warnings if record is not None else []
    out["warnings"] = [{"kind": w.kind, "message": str(w)} for w in warnings]
    if "status" not in out:
        out["status"] = "repaired" if any(not w.is_note for w in warnings) else "loaded"
    return out


def check_games(
    sources: Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    on_game: Callable[[str, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """:func:`check_game` on every game in ``sources``; the counts, and the files that are not clean.

    ``by_kind`` counts games by kind of warning (a game once per kind, notes
    included); ``refused_by_kind`` counts refused games by kind of refusal.
    ``on_game(game_id, result)`` sees every game as it is checked.
    """
    sources = list(sources)
    counts: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    refused_by_kind: Counter[str] = Counter()
    reports: list[dict[str, Any]] = []
    files = 0
    for game_id, data in iter_games(sources, max_bytes=max_bytes):
        files += 1
        result = check_game(data, strict=strict)
        counts[result["status"]] += 1
        by_kind.update({w["kind"] for w in result["warnings"]})
        if result["status"] == "refused":
            refused_by_kind[result["error_kind"]] += 1
        if result["status"] != "loaded" or result["warnings"]:
            reports.append({"game": game_id, **result})
        if on_game is not None:
            on_game(game_id, result)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return {
        "sources": [str(s) for s in sources],
        "strict": strict,
        "files": files,
        "loaded": counts["loaded"],
        "repaired": counts["repaired"],
        "refused": counts["refused"],
        "by_kind": dict(sorted(by_kind.items(), key=lambda kv: order.get(kv[0], len(order)))),
        "refused_by_kind": dict(refused_by_kind.most_common()),
        "reports": reports,
    }
