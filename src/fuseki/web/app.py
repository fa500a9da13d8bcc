"""The web server: a FastAPI app with the static page and a JSON API under ``/api/``.

``create_app(db_path, workers)`` builds it; ``fuseki serve`` runs it with
uvicorn. The API is documented in ``docs/web.md``. Its parts:

- the **store** (:mod:`fuseki.web.store`): games and reviews in SQLite;
- the **game logic** (:mod:`fuseki.web.games`, :mod:`fuseki.web.analysis`),
  free of HTTP;
- the **request bodies** as pydantic models (:mod:`fuseki.web.models`) and
  the caps on their size (:mod:`fuseki.web.limits`);
- the **routes**, one router a concern: the page and its choices
  (:mod:`~fuseki.web.routes_pages`), games (:mod:`~fuseki.web.routes_games`),
  reviews (:mod:`~fuseki.web.routes_reviews`) and analysis
  (:mod:`~fuseki.web.routes_analysis`);
- what they share, the worker pools (bots, analyses) and the locks of the
  games (:mod:`fuseki.web.server`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from fuseki.web import routes_analysis, routes_games, routes_pages, routes_reviews
from fuseki.web.limits import MAX_JSON, MAX_UPLOAD, BodyLimit
from fuseki.web.models import error_messages
from fuseki.web.server import Conflict, Server, Workers
from fuseki.web.store import Store, default_db_path

__all__ = ["MAX_UPLOAD", "STATIC_DIR", "Workers", "create_app"]

STATIC_DIR = Path(__file__).parent / "static"
#: How much lower the analysis workers' priority is than the bots' (process niceness).
ANALYSIS_NICE = 10


def create_app(
    db_path: str | os.PathLike[str] | None = None,
    workers: int = 2,
    *,
    executor: str = "process",
    static_dir: str | os.PathLike[str] | None = None,
    max_games: int = 10_000,
    analysis_workers: int = 1,
) -> FastAPI:
    """The fuseki web app, keeping its games in the SQLite file ``db_path``.

    ``workers`` run the bots' moves, ``analysis_workers`` the analyses (a pool
    of their own, so an analysis never holds up a bot's reply; its processes
    run at a lower priority, :data:`ANALYSIS_NICE`, so that on a busy machine
    the bots' moves get the CPU first).
    """
    store = Store(db_path if db_path is not None else default_db_path(), max_games=max_games)
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    srv = Server(store, Workers(workers, executor), static, Workers(analysis_workers, executor, nice=ANALYSIS_NICE))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        srv.pool.prestart()
        srv.analysis.prestart()
        yield
        srv.close()

    app = FastAPI(title="fuseki", lifespan=lifespan)
    app.state.server = srv
    app.state.store = store
    app.state.workers = srv.pool
    app.state.analysis_workers = srv.analysis
    # The SGF upload reads and caps its own body (up to MAX_UPLOAD); every other body is JSON of a few fields.
    app.add_middleware(BodyLimit, cap=MAX_JSON, skip=("/api/reviews",))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        """A body or a path parameter that does not fit: 422 with every problem on one line."""
        return JSONResponse({"detail": "; ".join(error_messages(exc)) or "invalid request"}, status_code=422)

    @app.exception_handler(Conflict)
    async def _conflict(request: Request, exc: Conflict) -> JSONResponse:
        """A 409 of a game: the reason, and the game as it stands (a stale page shows it at once)."""
        return JSONResponse({"detail": exc.message, "game": exc.game}, status_code=409)

    for module in (routes_pages, routes_games, routes_reviews, routes_analysis):
        app.include_router(module.router)
    # Everything else in the page folder (scripts, styles), at / and at /static/.
    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")
        app.mount("/", StaticFiles(directory=static), name="page")
    return app
