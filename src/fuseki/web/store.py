"""Where web games and uploaded reviews live: one SQLite file (standard library ``sqlite3``).

A game row holds its settings and its moves as JSON, never a pickled
position: loading replays the moves, so a game in progress survives a server
restart and a rules-engine upgrade. The count of a game ended by two passes
(the estimate, and the dead stones the player marked in the scoring phase) is
kept in the row, and so is the clock of a game with a time limit. For the game
list the row also keeps its phase (``play``, ``scoring``, ``over``), its
result and its number of moves; rows written before those columns existed get
them filled in by the server on first listing (:meth:`Store.list_games` returns
``phase=None`` for them).

The store is bounded: beyond ``max_games`` games (``max_reviews`` reviews)
the least recently updated ones are deleted.

>>> store = Store(":memory:")
>>> gid = store.create_game({"size": 9}, [])
>>> store.save_game(gid, ["D4"])
>>> store.get_game(gid).moves
['D4']
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["GameRow", "Store", "default_db_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    moves TEXT NOT NULL,
    score TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
CREATE INDEX IF NOT EXISTS games_created ON games(created);
CREATE TABLE IF NOT EXISTS reviews (
    id TEXT PRIMARY KEY,
    sgf BLOB NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_created ON reviews(created);
"""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/fuseki/web.sqlite`` (``~/.local/share/...``), or ``./fuseki-web.sqlite``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    folder = Path(base) / "fuseki"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return folder / "web.sqlite"
    except OSError:
        return Path("fuseki-web.sqlite")


#: Columns added after the first release, with their SQL types: added to an older file on open.
_ADDED_COLUMNS = {"phase": "TEXT", "result": "TEXT", "nmoves": "INTEGER", "clock": "TEXT", "rev": "INTEGER"}
_GAME_COLUMNS = "id, settings, moves, score, created, updated, phase, result, nmoves, clock, rev"


@dataclasses.dataclass
class GameRow:
    id: str
    settings: dict[str, Any]
    moves: list[str]
    score: dict[str, Any] | None
    created: float
    updated: float
    #: ``play``, ``scoring`` or ``over``; ``None`` for a row written before the column existed.
    phase: str | None = None
    result: str | None = None
    nmoves: int | None = None
    #: The clock's state (a game with a time limit), else ``None``.
    clock: dict[str, Any] | None = None
    #: Counts the writes to the row: a page sends the revision it shows, so a stale page is told (409).
    rev: int = 0

    @staticmethod
    def from_sql(row: tuple[Any, ...]) -> "GameRow":
        return GameRow(
            row[0], json.loads(row[1]), json.loads(row[2]), json.loads(row[3]) if row[3] else None, row[4], row[5],
            row[6], row[7], row[8], json.loads(row[9]) if row[9] else None, int(row[10] or 0),
        )


class Store:
    """Games and reviews in one SQLite file; safe to call from several threads."""

    def __init__(self, path: str | os.PathLike[str], *, max_games: int = 10_000, max_reviews: int = 1_000) -> None:
        self.path = os.fspath(path)
        self.max_games = max_games
        self.max_reviews = max_reviews
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        have = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
        for name, kind in _ADDED_COLUMNS.items():
            if name not in have:
                self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @staticmethod
    def _new_id() -> str:
        return secrets.token_urlsafe(9)

    # ---- games ----------------------------------------------------------

    def create_game(self, settings: dict[str, Any], moves: list[str], clock: dict[str, Any] | None = None) -> str:
        now = time.time()
        with self._lock:
            gid = self._new_id()
            self._db.execute(
                "INSERT INTO games (id, settings, moves, score, created, updated, phase, result, nmoves, clock, rev)"
                " VALUES (?, ?, ?, NULL, ?, ?, 'play', NULL, ?, ?, 1)",
                (gid, json.dumps(settings), json.dumps(moves), now, now, len(moves), _json_or_null(clock)),
            )
            self._trim("games", "updated", self.max_games)
        return gid

    def get_game(self, gid: str) -> GameRow | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (gid,)).fetchone()
        return None if row is None else GameRow.from_sql(row)

    def save_game(
        self,
        gid: str,
        moves: list[str],
        score: dict[str, Any] | None = None,
        *,
        phase: str | None = None,
        result: str | None = None,
        clock: dict[str, Any] | None = None,
    ) -> None:
        """Write a game's moves, count, phase, result and clock in one statement (one transaction)."""
        with self._lock:
            self._db.execute(
                "UPDATE games SET moves = ?, score = ?, updated = ?, phase = ?, result = ?, nmoves = ?, clock = ?,"
                " rev = COALESCE(rev, 0) + 1 WHERE id = ?",
                (json.dumps(moves), _json_or_null(score), time.time(), phase, result,
                 sum(1 for m in moves if m != "resign"), _json_or_null(clock), gid),
            )

    def set_summary(self, gid: str, phase: str, result: str | None, nmoves: int) -> None:
        """Fill in the list columns of a row written before they existed (its ``updated`` time stays)."""
        with self._lock:
            self._db.execute("UPDATE games SET phase = ?, result = ?, nmoves = ? WHERE id = ?", (phase, result, nmoves, gid))

    def list_games(self, limit: int = 50, offset: int = 0) -> list[GameRow]:
        """Games, the most recently changed first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games ORDER BY updated DESC, id LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
        return [GameRow.from_sql(r) for r in rows]

    def count_games(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # ---- reviews --------------------------------------------------------

    def create_review(self, sgf: bytes) -> str:
        with self._lock:
            rid = self._new_id()
            self._db.execute("INSERT INTO reviews (id, sgf, created) VALUES (?, ?, ?)", (rid, sgf, time.time()))
            self._trim("reviews", "created", self.max_reviews)
        return rid

    def get_review(self, rid: str) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT sgf FROM reviews WHERE id = ?", (rid,)).fetchone()
        return None if row is None else bytes(row[0])

    def _trim(self, table: str, column: str, keep: int) -> None:
        (count,) = self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        if count > keep:
            self._db.execute(
                f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} ORDER BY {column} ASC LIMIT ?)",
                (count - keep,),
            )


def _json_or_null(value: Any) -> str | None:
    return None if value is None else json.dumps(value)
