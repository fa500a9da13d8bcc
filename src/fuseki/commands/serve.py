"""Serve the web UI and its JSON API: play and review games in the browser.

``fuseki serve [--host 127.0.0.1] [--port 8000] [--db FILE] [--workers N]``
binds 127.0.0.1 by default (only this machine can connect); ``--port 0``
picks a free port. The first line printed is ``fuseki serve: listening on
http://HOST:PORT/``. Games are kept in the SQLite file ``--db`` (default
``~/.local/share/fuseki/web.sqlite``), so a game in progress survives a
restart. The API is in docs/web.md.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
from typing import Any

from fuseki.cli import UserError, int_at_least


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int_at_least(0), default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--db", metavar="FILE", default=None, help="SQLite file for games (default in the user's data dir)")
    parser.add_argument(
        "--workers", type=int_at_least(1), default=2, help="worker processes for bot moves and analysis (default 2)"
    )
    parser.add_argument(
        "--analysis-workers",
        type=int_at_least(1),
        default=1,
        help="worker processes for analyses, apart from the bots' (default 1)",
    )
    parser.add_argument(
        "--executor",
        choices=("process", "thread"),
        default="process",
        help="run bots in worker processes (default) or threads of the server",
    )
    parser.add_argument("--log-level", default="warning", help="uvicorn log level (default warning)")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _server_class(uvicorn: Any) -> Any:
    """uvicorn's server, made to stop the bot workers first when told to stop.

    uvicorn stops gracefully: it waits for the requests in progress before the
    app's own shutdown runs. A bot move may think for up to ten seconds, so
    the workers are closed first; the requests waiting on them end at once.
    (uvicorn's ``timeout_graceful_shutdown`` would cancel them instead, and
    log a traceback for each.)
    """

    class Server(uvicorn.Server):  # type: ignore[misc,name-defined]
        workers: Any = None

        async def shutdown(self, sockets: Any = None) -> None:
            if self.workers is not None:
                self.workers.close()
            await super().shutdown(sockets=sockets)

    return Server


class _AllWorkers:
    """Both pools, closed together when the server is told to stop."""

    def __init__(self, *pools: Any) -> None:
        self.pools = pools

    def close(self) -> None:
        for pool in self.pools:
            pool.close()


def run(args: argparse.Namespace) -> int:
    if args.port > 65535:
        raise UserError(f"--port must be at most 65535, got {args.port}")
    import uvicorn

    from fuseki.web.app import create_app
    from fuseki.web.store import default_db_path

    db = args.db if args.db is not None else str(default_db_path())
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        sock.close()
        raise UserError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    host, port = sock.getsockname()[:2]
    app = create_app(db, args.workers, executor=args.executor, analysis_workers=args.analysis_workers)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    print(f"fuseki serve: listening on http://{shown}:{port}/ (games in {db})", flush=True)
    config = uvicorn.Config(app, log_level=args.log_level, lifespan="on")
    server = _server_class(uvicorn)(config)
    server.workers = _AllWorkers(app.state.workers, app.state.analysis_workers)
    # uvicorn shuts down gracefully on SIGINT and SIGTERM, then raises the
    # signal again; both then end here, with exit status 0.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
    print("fuseki serve: stopped", file=sys.stderr, flush=True)
    return 0
