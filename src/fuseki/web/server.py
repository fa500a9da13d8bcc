"""What the web app's routes share: the store, the worker pool, each game's lock and the bot moves in flight.

The routers (``routes_*.py``) get the one :class:`Server` of their app with
the dependency :func:`server`; :func:`fuseki.web.app.create_app` makes it.

The **worker pools** (:class:`Workers`) run the bots' moves and the analyses
in ``ProcessPoolExecutor`` instances (``executor="process"``, the default), so a bot
that thinks for ten seconds never blocks other requests: the Numba kernels
hold the GIL while they run. ``executor="thread"`` runs them in threads of
this process instead (no start-up cost; the measurement is in docs/web.md).
Bots and analyses have a pool each: an analysis never holds up a bot's
reply, and analyses run in short steps that stop when the page steps on
(:class:`Analyses`).

Each game has an ``asyncio.Lock``: one request at a time changes it. A game
where the bot is to move but nothing is thinking (after a restart, or after a
bot error) gets its bot move started by the next ``GET``. A request that
changes a game may name the revision the page shows; a stale page gets a 409
with the game as it stands (:class:`Conflict`), and every other 409 of a game
carries it too, so a second window never stays out of step.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import multiprocessing
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request

from fuseki.go.sgf import GameRecord, game_to_sgf, read_sgf
from fuseki.go.state import GameState
from fuseki.util.errors import InputError
from fuseki.web import clock as clocks
from fuseki.web import games
from fuseki.web.games import GameConflict, SettingsError
from fuseki.web.store import Store

__all__ = ["Analyses", "Conflict", "GAME_REVIEW", "Loaded", "Server", "Workers", "game_sgf", "review_state", "server"]

#: Parsed review records kept in memory (least recently used first out).
REVIEW_CACHE = 32


class Workers:
    """The pool that runs bot moves and analyses: processes (default) or threads.

    A process pool starts its workers on first use (spawned, each warmed up
    by :func:`fuseki.web.games.warm_up`). If a worker dies, the pool is
    replaced and the request gets a 503; the next one works again.
    """

    def __init__(self, n: int = 2, kind: str = "process", nice: int = 0) -> None:
        if n < 1:
            raise InputError(f"workers must be at least 1, got {n}")
        if kind not in ("process", "thread"):
            raise InputError(f"executor must be 'process' or 'thread', got {kind!r}")
        self.n = n
        self.kind = kind
        #: Added to the worker processes' niceness: the analysis pool's workers yield the CPU to the bots'.
        self.nice = nice
        self._pool: concurrent.futures.Executor | None = None
        self.closed = False

    def pool(self) -> concurrent.futures.Executor:
        if self.closed:
            raise HTTPException(503, "the server is stopping")
        if self._pool is None:
            if self.kind == "process":
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.n, mp_context=multiprocessing.get_context("spawn"), initializer=games.warm_up,
                    initargs=(self.nice,),
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


class Conflict(Exception):
    """A 409 that carries the game as it stands, so that a stale page shows it again at once."""

    def __init__(self, message: str, game: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.game = game


@dataclasses.dataclass
class Loaded:
    """A stored game, replayed: everything a route needs to answer or change it."""

    gid: str
    settings: games.Settings
    moves: list[str]
    state: GameState
    score: dict[str, Any] | None
    clock: dict[str, Any] | None
    rev: int

    def json(self) -> dict[str, Any]:
        return games.game_json(
            self.gid, self.settings, self.moves, self.state, self.score, self.clock, revision=self.rev
        )

    @property
    def phase(self) -> str:
        return games.phase_of(self.state, self.score, self.clock)


class Analyses:
    """The analyses in flight, one per channel (a page, or its graph): a new one cancels the one before.

    Analyses run in steps (:func:`fuseki.web.analysis.analyze_step`); a job
    checks :meth:`Job.stopped` between steps. So when the page steps on, the
    old analysis stops after at most one step, and requests never queue up
    behind one another.
    """

    class Job:
        def __init__(self, channel: str) -> None:
            self.channel = channel
            self.cancelled = False

        async def stopped(self, request: Request | None) -> bool:
            if self.cancelled:
                return True
            return request is not None and await request.is_disconnected()

    def __init__(self) -> None:
        self.jobs: dict[str, Analyses.Job] = {}
        #: How many analyses were cancelled (superseded or abandoned) so far: for the tests and the docs.
        self.cancelled = 0

    def start(self, channel: str) -> "Analyses.Job":
        old = self.jobs.get(channel)
        if old is not None:
            old.cancelled = True
        job = self.jobs[channel] = Analyses.Job(channel)
        return job

    def finish(self, job: "Analyses.Job") -> None:
        if self.jobs.get(job.channel) is job:
            del self.jobs[job.channel]

    def cancel(self, channel: str) -> bool:
        """Stop the channel's analysis (the page left the position); True when one was running."""
        job = self.jobs.pop(channel, None)
        if job is None:
            return False
        job.cancelled = True
        return True


class Server:
    """The state behind one app: games and reviews (SQLite), the pools, the locks, the bots thinking now.

    Bot moves run in ``pool``; analyses in ``analysis`` (a pool of their own,
    one worker by default), so that however many analyses are asked for, a
    bot's reply never waits behind one.
    """

    def __init__(self, store: Store, pool: Workers, static: Path, analysis: Workers | None = None) -> None:
        self.store = store
        self.pool = pool
        self.analysis = analysis if analysis is not None else pool
        #: The folder of the web page (index.html, scripts, styles).
        self.static = static
        # One lock per game, held only while a request works on it: weak values, so that locks of games
        # nobody is touching are freed instead of piling up.
        self.locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        #: game id -> the task making the bot's move now.
        self.thinking: dict[str, asyncio.Task[Any]] = {}
        self.records: OrderedDict[str, tuple[Any, GameRecord, bytes]] = OrderedDict()  # review id -> record (LRU)
        self.analyses = Analyses()

    # ---- games ----------------------------------------------------------------

    def lock_for(self, gid: str) -> asyncio.Lock:
        lock = self.locks.get(gid)
        if lock is None:
            lock = self.locks[gid] = asyncio.Lock()
        return lock

    def load(self, gid: str) -> Loaded:
        """A stored game, replayed; 404 for an unknown id. A human whose clock ran out loses on time here."""
        row = self.store.get_game(gid)
        if row is None:
            raise HTTPException(404, f"no game with id {gid!r}")
        settings = games.settings_from_json(row.settings)
        g = Loaded(gid, settings, row.moves, games.replay(settings, row.moves), row.score, row.clock, row.rev)
        if g.state.is_over() and g.state.resigned is None and g.score is None:
            # Two passes stored without a count (written by hand, or by a server stopped in between): count now.
            g.score = games.scoring_estimate(g.state, settings.dead_stones)
            self.save(g)
        if settings.clock is not None and g.clock is not None and not g.clock.get("flagged"):
            flagged = clocks.flagged_now(g.clock, settings.clock, time.time())
            if flagged is not None and flagged == settings.human.name.lower():
                g.clock = clocks.charge(g.clock, settings.clock, time.time())
                self.save(g)
        return g

    def save(self, g: Loaded) -> None:
        """Write the game back (its phase and result too, for the game list); ``g.rev`` follows the store."""
        self.store.save_game(
            g.gid, g.moves, g.score, phase=g.phase, result=games.result_of(g.state, g.score, g.clock), clock=g.clock
        )
        g.rev += 1

    def conflict(self, g: Loaded, message: str) -> Conflict:
        return Conflict(message, g.json())

    def check_revision(self, g: Loaded, revision: int | None) -> None:
        """409 (with the game) when the page that sent the request shows an older state of the game."""
        if revision is not None and revision != g.rev:
            raise self.conflict(
                g, "this game changed in another window or tab; it is shown again as it stands now, try again"
            )

    async def after_move(self, g: Loaded) -> None:
        """After a move: at two passes stop the clocks and open the scoring phase (the estimate runs in a worker)."""
        if g.state.is_over() and g.state.resigned is None:
            if g.clock is not None and g.settings.clock is not None:
                g.clock = clocks.stop(g.clock, g.settings.clock, time.time())
            g.score = await self.pool.run(games.scoring_estimate_data, g.settings.to_dict(), list(g.moves))
        else:
            g.score = None
        self.save(g)

    async def bot_turn(self, g: Loaded) -> dict[str, Any]:
        """Let the bot move while it is to move (the caller holds the game's lock); the game's JSON."""
        while games.bot_to_move(g.settings, g.state):
            vertex = await self.pool.run(games.bot_move, g.settings.to_dict(), list(g.moves))
            now = time.time()
            if g.clock is not None and g.settings.clock is not None:
                g.clock = clocks.charge(g.clock, g.settings.clock, now)
                if g.clock.get("flagged"):  # the bot's time ran out while it thought: its move comes too late
                    self.save(g)
                    break
            try:
                state = g.state.play(games.Move.from_gtp(vertex, g.settings.size))
            except (ValueError, games.IllegalMoveError) as e:
                raise HTTPException(500, f"the bot chose a bad move {vertex!r}: {e}") from None
            g.state, g.moves = state, [*g.moves, vertex]
            await self.after_move(g)
        return g.json()

    async def bot_turn_as_this_task(self, gid: str) -> dict[str, Any]:
        """:meth:`bot_turn` under the game's lock, marking the game as thinking meanwhile."""
        async with self.lock_for(gid):
            self.thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await self.bot_turn(self.load(gid))
            finally:
                self.thinking.pop(gid, None)

    async def _bot_turn_in_background(self, gid: str) -> None:
        try:
            async with self.lock_for(gid):
                await self.bot_turn(self.load(gid))
        except Exception:  # a background move: the next GET starts it again
            pass
        finally:
            self.thinking.pop(gid, None)

    def start_bot(self, g: Loaded) -> None:
        """Start the bot's move in the background unless one is in flight (after a restart: its clock restarts now)."""
        if g.gid in self.thinking:
            return
        if g.clock is not None and g.clock.get("running") == g.settings.bot_color.name.lower():
            g.clock = clocks.restart(g.clock, g.clock["running"], time.time())
            self.save(g)
        self.thinking[g.gid] = asyncio.get_running_loop().create_task(self._bot_turn_in_background(g.gid))

    async def human_move(self, gid: str, vertex: Any, revision: int | None = None) -> dict[str, Any]:
        """Play the human's move (409 with the game when the game forbids it, 422 for a vertex that is no point), then the bot's."""
        async with self.lock_for(gid):
            g = self.load(gid)
            self.check_revision(g, revision)
            try:
                state, stored = games.play_human(g.settings, g.state, vertex)
            except GameConflict as e:
                raise self.conflict(g, str(e)) from None
            except SettingsError as e:
                raise HTTPException(422, str(e)) from None
            if g.clock is not None and g.settings.clock is not None:
                g.clock = clocks.charge(g.clock, g.settings.clock, time.time())
                if g.clock.get("flagged"):
                    self.save(g)
                    raise self.conflict(g, f"your time ran out: {games.result_of(g.state, g.score, g.clock)}")
            g.state, g.moves = state, [*g.moves, stored]
            await self.after_move(g)
            if not games.bot_to_move(g.settings, g.state):
                return g.json()
            self.thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await self.bot_turn(g)
            finally:
                self.thinking.pop(gid, None)

    # ---- reviews --------------------------------------------------------------

    def record_for(self, rid: str) -> tuple[GameRecord, bytes]:
        """A review's parsed record and its SGF; 404 for an unknown id.

        ``game-ID`` is the review of the web game ``ID`` as it stands (its
        moves so far), so the game list can open any game in Review without
        uploading anything.
        """
        if rid.startswith(GAME_REVIEW):
            g = self.load(rid[len(GAME_REVIEW):])
            stamp: Any = ("game", g.rev)
            cached = self.records.get(rid)
            if cached is None or cached[0] != stamp:
                sgf = game_sgf(g)
                cached = (stamp, read_sgf(sgf), sgf)
        else:
            cached = self.records.get(rid)
            if cached is None:
                sgf_or_none = self.store.get_review(rid)
                if sgf_or_none is None:
                    raise HTTPException(404, f"no review with id {rid!r}")
                cached = ("upload", read_sgf(sgf_or_none), sgf_or_none)
                deque(cached[1].states(), maxlen=0)  # replayed once, so that its warnings are all there
        self.records[rid] = cached
        self.records.move_to_end(rid)
        while len(self.records) > REVIEW_CACHE:
            self.records.popitem(last=False)
        return cached[1], cached[2]

    def remember(self, rid: str, record: GameRecord, sgf: bytes) -> None:
        """Keep a review's record parsed (it was just read to check the upload)."""
        self.records[rid] = ("upload", record, sgf)

    # ---- stopping -------------------------------------------------------------

    def close(self) -> None:
        """Cancel the bot moves in flight, stop the pools, close the store (the app's shutdown)."""
        for task in list(self.thinking.values()):
            task.cancel()
        for job in list(self.analyses.jobs.values()):
            job.cancelled = True
        self.pool.close()
        if self.analysis is not self.pool:
            self.analysis.close()
        self.store.close()


#: The review id of a web game: ``game-`` and the game's id.
GAME_REVIEW = "game-"


def game_sgf(g: Loaded) -> bytes:
    """The SGF of a web game (players ``human`` and the bot's name; the result once it is over)."""
    human, bot = "human", g.settings.bot
    black, white = (human, bot) if g.settings.human is games.Color.BLACK else (bot, human)
    result = games.result_of(g.state, g.score, g.clock)
    return game_to_sgf(g.state, black=black, white=white, result=result or "")


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
