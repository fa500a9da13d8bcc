"""What the web app's routes share: the store, the worker pool, each game's lock and the bot moves in flight.

The routers (``routes_*.py``) get the one :class:`Server` of their app with
the dependency :func:`server`; :func:`fuseki.web.app.create_app` makes it.

The **worker pool** (:class:`Workers`) runs the bot's moves and every
analysis in a ``ProcessPoolExecutor`` (``executor="process"``, the default),
so a bot that thinks for ten seconds never blocks other requests: the Numba
kernels hold the GIL while they run. ``executor="thread"`` runs them in
threads of this process instead (no start-up cost; the measurement is in
docs/web.md).

Each game has an ``asyncio.Lock``: one request at a time changes it. A game
where the bot is to move but nothing is thinking (after a restart, or after a
bot error) gets its bot move started by the next ``GET``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request

from fuseki.go.sgf import GameRecord, read_sgf
from fuseki.go.state import GameState
from fuseki.util.errors import InputError
from fuseki.web import games
from fuseki.web.games import GameConflict, SettingsError
from fuseki.web.store import Store

__all__ = ["Server", "Workers", "review_state", "server"]

#: Parsed review records kept in memory (least recently used first out).
REVIEW_CACHE = 32


class Workers:
    """The pool that runs bot moves and analyses: processes (default) or threads.

    A process pool starts its workers on first use (spawned, each warmed up
    by :func:`fuseki.web.games.warm_up`). If a worker dies, the pool is
    replaced and the request gets a 503; the next one works again.
    """

    def __init__(self, n: int = 2, kind: str = "process") -> None:
        if n < 1:
            raise InputError(f"workers must be at least 1, got {n}")
        if kind not in ("process", "thread"):
            raise InputError(f"executor must be 'process' or 'thread', got {kind!r}")
        self.n = n
        self.kind = kind
        self._pool: concurrent.futures.Executor | None = None
        self.closed = False

    def pool(self) -> concurrent.futures.Executor:
        if self.closed:
            raise HTTPException(503, "the server is stopping")
        if self._pool is None:
            if self.kind == "process":
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.n, mp_context=multiprocessing.get_context("spawn"), initializer=games.warm_up
                )
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(self.n, thread_name_prefix="fuseki-web")
        return self._pool

    def prestart(self) -> None:
        """Start every worker now, in the background, rather than on the first requests."""
        if self.kind == "process":
            pool = self.pool()
            for _ in range(self.n):
                pool.submit(time.sleep, 0.05)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool(), fn, *args)
        except BrokenProcessPool:
            if self.closed:  # close() terminated the worker
                raise HTTPException(503, "the server is stopping") from None
            self.shutdown()
            raise HTTPException(503, "a worker process died; try again") from None
        except HTTPException:
            raise
        except Exception as e:  # the worker's error, as one line: the server stays up
            raise HTTPException(500, f"{getattr(fn, '__name__', 'worker')} failed: {type(e).__name__}: {e}") from None

    def shutdown(self) -> None:
        """Drop a broken pool at once; the next request starts a new one."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Stop the pool for good when the server stops, without waiting for a long bot move.

        Queued work is cancelled and running worker processes are terminated
        (a move in progress is lost, the game itself is in SQLite), so a
        request waiting for one ends at once with a 503. ``fuseki serve``
        calls this as soon as it is told to stop, before uvicorn waits for
        the requests in progress. Then the pool is joined. Joining matters: a process pool left to stop in the
        background races CPython 3.11's exit hook, which writes to the pool's
        wake-up pipe while the pool's thread closes it ("OSError: Bad file
        descriptor" at exit).
        """
        self.closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            # No public way to stop a running task: terminate the workers
            # (taken first, because shutdown forgets them).
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


class Server:
    """The state behind one app: games and reviews (SQLite), the pool, the locks, the bots thinking now."""

    def __init__(self, store: Store, pool: Workers, static: Path) -> None:
        self.store = store
        self.pool = pool
        #: The folder of the web page (index.html, scripts, styles).
        self.static = static
        # One lock per game, held only while a request works on it: weak values, so
        # that locks of games nobody is touching are freed instead of piling up.
        self.locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        #: game id -> the task making the bot's move now.
        self.thinking: dict[str, asyncio.Task[Any]] = {}
        self.records: OrderedDict[str, GameRecord] = OrderedDict()  # review id -> parsed record (LRU)

    # ---- games ----------------------------------------------------------------

    def lock_for(self, gid: str) -> asyncio.Lock:
        lock = self.locks.get(gid)
        if lock is None:
            lock = self.locks[gid] = asyncio.Lock()
        return lock

    def load(self, gid: str) -> tuple[games.Settings, list[str], GameState, dict[str, Any] | None]:
        """A stored game's settings, moves, replayed position and score; 404 for an unknown id."""
        row = self.store.get_game(gid)
        if row is None:
            raise HTTPException(404, f"no game with id {gid!r}")
        settings = games.settings_from_json(row.settings)
        return settings, row.moves, games.replay(settings, row.moves), row.score

    def finish(self, gid: str, settings: games.Settings, moves: list[str], state: GameState) -> dict[str, Any] | None:
        """Save the moves; at the end of a game by passes, count it (dead stones removed)."""
        over = state.is_over() and state.resigned is None
        score = games.final_score(state, settings.dead_stones) if over else None
        self.store.save_game(gid, moves, score)
        return score

    async def bot_turn(self, gid: str) -> dict[str, Any]:
        """Let the bot move while it is to move (the caller holds the game's lock); the game's JSON."""
        settings, moves, state, score = self.load(gid)
        while games.bot_to_move(settings, state):
            vertex = await self.pool.run(games.bot_move, settings.to_dict(), list(moves))
            try:
                state = state.play(games.Move.from_gtp(vertex, settings.size))
            except (ValueError, games.IllegalMoveError) as e:
                raise HTTPException(500, f"the bot chose a bad move {vertex!r}: {e}") from None
            moves = [*moves, vertex]
            score = self.finish(gid, settings, moves, state)
        return games.game_json(gid, settings, moves, state, score)

    async def bot_turn_as_this_task(self, gid: str) -> dict[str, Any]:
        """:meth:`bot_turn` under the game's lock, marking the game as thinking meanwhile."""
        async with self.lock_for(gid):
            self.thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await self.bot_turn(gid)
            finally:
                self.thinking.pop(gid, None)

    async def _bot_turn_in_background(self, gid: str) -> None:
        try:
            async with self.lock_for(gid):
                await self.bot_turn(gid)
        except Exception:  # a background move: the next GET starts it again
            pass
        finally:
            self.thinking.pop(gid, None)

    def start_bot(self, gid: str) -> None:
        """Start the bot's move in the background unless one is in flight."""
        if gid not in self.thinking:
            self.thinking[gid] = asyncio.get_running_loop().create_task(self._bot_turn_in_background(gid))

    async def human_move(self, gid: str, vertex: Any) -> dict[str, Any]:
        """Play the human's move (409 when the game forbids it, 422 for a vertex that is no point), then the bot's."""
        async with self.lock_for(gid):
            settings, moves, state, _ = self.load(gid)
            try:
                state, stored = games.play_human(settings, state, vertex)
            except GameConflict as e:
                raise HTTPException(409, str(e)) from None
            except SettingsError as e:
                raise HTTPException(422, str(e)) from None
            moves = [*moves, stored]
            score = self.finish(gid, settings, moves, state)
            if not games.bot_to_move(settings, state):
                return games.game_json(gid, settings, moves, state, score)
            self.thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await self.bot_turn(gid)
            finally:
                self.thinking.pop(gid, None)

    # ---- reviews --------------------------------------------------------------

    def record_for(self, rid: str) -> tuple[GameRecord, bytes]:
        """A review's parsed record and its SGF; 404 for an unknown id."""
        sgf = self.store.get_review(rid)
        if sgf is None:
            raise HTTPException(404, f"no review with id {rid!r}")
        record = self.records.get(rid)
        if record is None:
            record = self.records[rid] = read_sgf(sgf)
            deque(record.states(), maxlen=0)  # replayed once, so that its warnings are all there
            while len(self.records) > REVIEW_CACHE:
                self.records.popitem(last=False)
        self.records.move_to_end(rid)
        return record, sgf

    def remember(self, rid: str, record: GameRecord) -> None:
        """Keep a review's record parsed (it was just read to check the upload)."""
        self.records[rid] = record

    # ---- stopping -------------------------------------------------------------

    def close(self) -> None:
        """Cancel the bot moves in flight, stop the pool, close the store (the app's shutdown)."""
        for task in list(self.thinking.values()):
            task.cancel()
        self.pool.close()
        self.store.close()


def review_state(record: GameRecord, n: int) -> GameState:
    """The position after ``n`` moves of a review; 404 when the game has no such position."""
    if not 0 <= n <= len(record.moves):
        raise HTTPException(404, f"no position {n}: the game has positions 0 to {len(record.moves)}")
    for i, state in enumerate(record.states()):
        if i == n:
            return state
    raise AssertionError("unreachable")


def server(request: Request) -> Server:
    """The dependency that hands a route its app's :class:`Server`."""
    return request.app.state.server
