"""The web server: a FastAPI app with the static page and a JSON API under ``/api/``.

``create_app(db_path, workers)`` builds it; ``fuseki serve`` runs it with
uvicorn. The API is documented in ``docs/web.md``. Three parts:

- the **store** (:mod:`fuseki.web.store`): games and reviews in SQLite;
- the **game logic** (:mod:`fuseki.web.games`, :mod:`fuseki.web.analysis`),
  free of HTTP;
- the **worker pool**: the bot's moves and every analysis run in a
  ``ProcessPoolExecutor`` (``executor="process"``, the default), so a bot that
  thinks for ten seconds never blocks other requests: the Numba kernels hold
  the GIL while they run. ``executor="thread"`` runs them in threads of this
  process instead (no start-up cost; the measurement is in docs/web.md).

Each game has an ``asyncio.Lock``: one request at a time changes it. A game
where the bot is to move but nothing is thinking (after a restart, or after a
bot error) gets its bot move started by the next ``GET``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from fuseki.web import analysis, games
from fuseki.web.games import GameConflict, SettingsError
from fuseki.web.store import Store, default_db_path

__all__ = ["create_app", "Workers", "MAX_UPLOAD", "STATIC_DIR"]

#: The largest SGF upload, in bytes.
MAX_UPLOAD = 1 << 20
#: Extra bytes a multipart or JSON body may carry around the SGF itself.
_BODY_SLACK = 64 << 10
STATIC_DIR = Path(__file__).parent / "static"

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fuseki</title></head>
<body><h1>fuseki</h1><p>The web page is not installed yet. The JSON API is under
<a href="/api/health">/api/</a>; see docs/web.md.</p></body></html>
"""


class Workers:
    """The pool that runs bot moves and analyses: processes (default) or threads.

    A process pool starts its workers on first use (spawned, each warmed up
    by :func:`fuseki.web.games.warm_up`). If a worker dies, the pool is
    replaced and the request gets a 503; the next one works again.
    """

    def __init__(self, n: int = 2, kind: str = "process") -> None:
        if n < 1:
            raise ValueError(f"workers must be at least 1, got {n}")
        if kind not in ("process", "thread"):
            raise ValueError(f"executor must be 'process' or 'thread', got {kind!r}")
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


def create_app(
    db_path: str | os.PathLike[str] | None = None,
    workers: int = 2,
    *,
    executor: str = "process",
    static_dir: str | os.PathLike[str] | None = None,
    max_games: int = 10_000,
) -> FastAPI:
    """The fuseki web app, keeping its games in the SQLite file ``db_path``."""
    store = Store(db_path if db_path is not None else default_db_path(), max_games=max_games)
    pool = Workers(workers, executor)
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    # One lock per game, held only while a request works on it: weak values, so
    # that locks of games nobody is touching are freed instead of piling up.
    locks: "weakref.WeakValueDictionary[str, asyncio.Lock]" = weakref.WeakValueDictionary()
    thinking: dict[str, asyncio.Task[Any]] = {}
    records: OrderedDict[str, Any] = OrderedDict()  # review id -> parsed GameRecord (LRU)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # type: ignore[no-untyped-def]
        pool.prestart()
        yield
        for task in list(thinking.values()):
            task.cancel()
        pool.close()
        store.close()

    app = FastAPI(title="fuseki", lifespan=lifespan)
    app.state.store = store
    app.state.workers = pool

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
        return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)

    # ---- helpers ----------------------------------------------------------

    def lock_for(gid: str) -> asyncio.Lock:
        lock = locks.get(gid)
        if lock is None:
            lock = locks[gid] = asyncio.Lock()
        return lock

    def load(gid: str) -> tuple[games.Settings, list[str], Any, dict[str, Any] | None]:
        row = store.get_game(gid)
        if row is None:
            raise HTTPException(404, f"no game with id {gid!r}")
        settings = games.settings_from_json(row.settings)
        return settings, row.moves, games.replay(settings, row.moves), row.score

    def finish(gid: str, settings: games.Settings, moves: list[str], state: Any) -> dict[str, Any] | None:
        """Save the moves; at the end of a game by passes, count it (dead stones removed)."""
        over = state.is_over() and state.resigned is None
        score = games.final_score(state, settings.dead_stones) if over else None
        store.save_game(gid, moves, score)
        return score

    def as_json(gid: str, settings: games.Settings, moves: list[str], state: Any, score: Any) -> dict[str, Any]:
        return games.game_json(gid, settings, moves, state, score)

    async def bot_turn(gid: str) -> dict[str, Any]:
        """Let the bot move while it is to move (the caller holds the game's lock); the game's JSON."""
        settings, moves, state, score = load(gid)
        while games.bot_to_move(settings, state):
            vertex = await pool.run(games.bot_move, settings.to_json(), list(moves))
            try:
                state = state.play(games.Move.from_gtp(vertex, settings.size))
            except (ValueError, games.IllegalMoveError) as e:
                raise HTTPException(500, f"the bot chose a bad move {vertex!r}: {e}") from None
            moves = [*moves, vertex]
            score = finish(gid, settings, moves, state)
        return as_json(gid, settings, moves, state, score)

    async def bot_turn_locked(gid: str) -> None:
        try:
            async with lock_for(gid):
                await bot_turn(gid)
        except Exception:  # a background move: the next GET starts it again
            pass
        finally:
            thinking.pop(gid, None)

    def start_bot(gid: str) -> None:
        if gid not in thinking:
            thinking[gid] = asyncio.get_running_loop().create_task(bot_turn_locked(gid))

    async def human_move(gid: str, vertex: Any) -> dict[str, Any]:
        async with lock_for(gid):
            settings, moves, state, _ = load(gid)
            try:
                state, stored = games.play_human(settings, state, vertex)
            except GameConflict as e:
                raise HTTPException(409, str(e)) from None
            except SettingsError as e:
                raise HTTPException(422, str(e)) from None
            moves = [*moves, stored]
            score = finish(gid, settings, moves, state)
            if not games.bot_to_move(settings, state):
                return as_json(gid, settings, moves, state, score)
            thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await bot_turn(gid)
            finally:
                thinking.pop(gid, None)

    async def read_capped(request: Request, cap: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > cap:
            raise HTTPException(413, f"upload too large: {int(length)} bytes (at most {MAX_UPLOAD} bytes of SGF)")
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > cap:
                raise HTTPException(413, f"upload too large: more than {MAX_UPLOAD} bytes of SGF")
            chunks.append(chunk)
        body = b"".join(chunks)
        request._body = body  # lets request.form() parse what was read
        return body

    async def json_body(request: Request) -> dict[str, Any]:
        body = await read_capped(request, 64 << 10)
        if not body.strip():
            return {}
        try:
            data = json.loads(body)
        except ValueError as e:
            raise HTTPException(422, f"the body is not valid JSON: {e}") from None
        if not isinstance(data, dict):
            raise HTTPException(422, "the body must be a JSON object")
        return data

    def record_for(rid: str) -> tuple[Any, bytes]:
        from fuseki.go.sgf import read_sgf

        sgf = store.get_review(rid)
        if sgf is None:
            raise HTTPException(404, f"no review with id {rid!r}")
        record = records.get(rid)
        if record is None:
            record = records[rid] = read_sgf(sgf)
            while len(records) > 32:
                records.popitem(last=False)
        records.move_to_end(rid)
        return record, sgf

    # ---- pages ------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        from fuseki.agents import available_agents
        from fuseki.agents.agent_file import available_models

        known = available_agents()
        return {
            "bots": [{"name": b, "help": known.get(b, "")} for b in games.BOTS if b in known],
            "models": list(available_models()),
            "rules": sorted(games.PRESETS),
            "dead_stones": list(games.DEAD_STONES),
            "limits": {
                "min_size": games.MIN_SIZE,
                "max_size": games.MAX_SIZE,
                "max_seconds": games.MAX_SECONDS,
                "max_upload": MAX_UPLOAD,
            },
        }

    # ---- games ------------------------------------------------------------

    @app.post("/api/games", status_code=201)
    async def new_game(request: Request) -> dict[str, Any]:
        data = await json_body(request)
        try:
            settings = games.parse_settings(data)
        except SettingsError as e:
            raise HTTPException(422, str(e)) from None
        gid = store.create_game(settings.to_json(), [])
        async with lock_for(gid):
            thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
            try:
                return await bot_turn(gid)
            finally:
                thinking.pop(gid, None)

    @app.get("/api/games/{gid}")
    async def get_game(gid: str) -> dict[str, Any]:
        settings, moves, state, score = load(gid)
        if games.bot_to_move(settings, state) and gid not in thinking:
            start_bot(gid)
        return as_json(gid, settings, moves, state, score)

    @app.post("/api/games/{gid}/moves")
    async def play(gid: str, request: Request) -> dict[str, Any]:
        data = await json_body(request)
        if "vertex" not in data:
            raise HTTPException(422, "vertex: field required (a point such as 'D4', or 'pass')")
        return await human_move(gid, data["vertex"])

    @app.post("/api/games/{gid}/pass")
    async def pass_turn(gid: str) -> dict[str, Any]:
        return await human_move(gid, "pass")

    @app.post("/api/games/{gid}/resign")
    async def resign(gid: str) -> dict[str, Any]:
        async with lock_for(gid):
            settings, moves, state, _ = load(gid)
            if state.is_over():
                raise HTTPException(409, "the game is over")
            if state.next_player is not settings.human:
                raise HTTPException(409, "it is not your turn: the bot is to move")
            moves = [*moves, "resign"]
            state = state.play(games.Move.resign())
            score = finish(gid, settings, moves, state)
            return as_json(gid, settings, moves, state, score)

    @app.post("/api/games/{gid}/undo")
    async def undo(gid: str) -> dict[str, Any]:
        if gid in thinking:
            load(gid)
            raise HTTPException(409, "the bot is thinking; undo after its move")
        async with lock_for(gid):
            settings, moves, state, _ = load(gid)
            try:
                moves = games.undo_moves(settings, moves)
            except GameConflict as e:
                raise HTTPException(409, str(e)) from None
            state = games.replay(settings, moves)
            score = finish(gid, settings, moves, state)
            return as_json(gid, settings, moves, state, score)

    @app.get("/api/games/{gid}/sgf")
    async def download_sgf(gid: str) -> Response:
        from fuseki.go.sgf import game_to_sgf

        settings, moves, state, score = load(gid)
        human, bot = "human", settings.bot
        black, white = (human, bot) if settings.human is games.Color.BLACK else (bot, human)
        result = None
        if state.is_over() and state.resigned is None and score:
            result = score["result"]
        data = game_to_sgf(state, black=black, white=white, result=result)
        return Response(
            data,
            media_type="application/x-go-sgf",
            headers={"Content-Disposition": f'attachment; filename="fuseki-{gid}.sgf"'},
        )

    # ---- reviews ----------------------------------------------------------

    @app.post("/api/reviews", status_code=201)
    async def new_review(request: Request) -> dict[str, Any]:
        from fuseki.go.sgf import SgfError, read_sgf

        body = await read_capped(request, MAX_UPLOAD + _BODY_SLACK)
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "multipart/form-data":
            form = await request.form()
            item = form.get("file") or form.get("sgf")
            if item is None:
                raise HTTPException(422, "no SGF: send a file in the form field 'file' (or text in 'sgf')")
            if isinstance(item, str):
                sgf = item.encode("utf-8")
            else:
                sgf = await item.read()
        else:
            try:
                data = json.loads(body) if body.strip() else None
            except ValueError as e:
                raise HTTPException(422, f"the body is not valid JSON: {e}") from None
            if not isinstance(data, dict) or not isinstance(data.get("sgf"), str):
                raise HTTPException(422, 'no SGF: send JSON {"sgf": "(;GM[1]...)"} or a multipart file field "file"')
            sgf = data["sgf"].encode("utf-8")
        if len(sgf) > MAX_UPLOAD:
            raise HTTPException(413, f"upload too large: {len(sgf)} bytes (at most {MAX_UPLOAD} bytes of SGF)")
        try:
            record = read_sgf(sgf)
            if not games.MIN_SIZE <= record.size <= games.MAX_SIZE:
                raise SgfError(f"board size {record.size} is not supported here ({games.MIN_SIZE} to {games.MAX_SIZE})")
            for _ in record.states():
                pass
        except SgfError as e:
            raise HTTPException(422, str(e)) from None
        rid = store.create_review(sgf)
        records[rid] = record
        return review_json(rid, record)

    def review_json(rid: str, record: Any) -> dict[str, Any]:
        moves = [{"color": m.color.name.lower(), "vertex": m.move.gtp(record.size)} for m in record.moves]
        return {
            "id": rid,
            "size": record.size,
            "komi": record.komi,
            "rules": record.ruleset,
            "handicap": record.handicap,
            "black": record.black,
            "white": record.white,
            "result": record.result,
            "moves": moves,
            "count": len(moves),
        }

    @app.get("/api/reviews/{rid}")
    async def get_review(rid: str) -> dict[str, Any]:
        record, _ = record_for(rid)
        return review_json(rid, record)

    def review_state(record: Any, n: int) -> Any:
        if not 0 <= n <= len(record.moves):
            raise HTTPException(404, f"no position {n}: the game has positions 0 to {len(record.moves)}")
        for i, state in enumerate(record.states()):
            if i == n:
                return state
        raise AssertionError("unreachable")

    @app.get("/api/reviews/{rid}/positions/{n}")
    async def review_position(rid: str, n: int) -> dict[str, Any]:
        record, _ = record_for(rid)
        state = review_state(record, n)
        comment = record.comment if n == 0 else record.comments.get(n, "")
        return {"n": n, **games.position_json(state), "comment": comment}

    @app.post("/api/reviews/{rid}/winrates")
    async def review_winrates(rid: str, request: Request) -> dict[str, Any]:
        data = await json_body(request)
        record, sgf = record_for(rid)
        try:
            playouts = games.check_playouts(data.get("playouts", 500), analysis.MAX_PLAYOUTS_PER_POSITION)
        except SettingsError as e:
            raise HTTPException(422, str(e)) from None
        return await pool.run(analysis.winrates, sgf, playouts)

    # ---- analysis ---------------------------------------------------------

    @app.post("/api/analyze")
    async def analyze(request: Request) -> dict[str, Any]:
        data = await json_body(request)
        try:
            seconds = games.check_seconds(data.get("seconds", 1.0))
        except SettingsError as e:
            raise HTTPException(422, str(e)) from None
        if "review" in data:
            rid, n = data["review"], data.get("n", 0)
            if not isinstance(rid, str) or isinstance(n, bool) or not isinstance(n, int):
                raise HTTPException(422, "review must be a review id and n a whole number")
            record, sgf = record_for(rid)
            state = review_state(record, n)
            if state.is_over():
                raise HTTPException(409, f"the game is over at position {n}: there is nothing to analyze")
            return await pool.run(analysis.analyze_review, sgf, n, seconds)
        if "game" in data:
            gid = data["game"]
            if not isinstance(gid, str):
                raise HTTPException(422, "game must be a game id")
            settings, moves, state, _ = load(gid)
            if state.is_over():
                raise HTTPException(409, "the game is over: there is nothing to analyze")
            return await pool.run(analysis.analyze_game, settings.to_json(), list(moves), seconds)
        raise HTTPException(422, 'say what to analyze: {"review": ID, "n": N} or {"game": ID}')

    # Everything else in the page folder (scripts, styles), at / and at /static/.
    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")
        app.mount("/", StaticFiles(directory=static), name="page")
    return app

