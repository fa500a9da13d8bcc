"""The page and what it asks first: ``/``, ``/favicon.ico``, ``/api/health`` and ``/api/bots`` (the choices of a new game)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse, HTMLResponse, Response

from fuseki.agents import available_agents
from fuseki.agents.agent_file import available_models
from fuseki.web import games
from fuseki.web.limits import MAX_UPLOAD
from fuseki.web.server import Server, server

__all__ = ["router"]

router = APIRouter()

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fuseki</title></head>
<body><h1>fuseki</h1><p>The web page is not installed yet. The JSON API is under
<a href="/api/health">/api/</a>; see docs/web.md.</p></body></html>
"""


@router.get("/", include_in_schema=False)
async def index(srv: Annotated[Server, Depends(server)]) -> Response:
    page = srv.static / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse(_PLACEHOLDER)


@router.get("/favicon.ico", include_in_schema=False)
async def favicon(srv: Annotated[Server, Depends(server)]) -> Response:
    """The page's icon (an SVG stone on a board): browsers ask for ``/favicon.ico`` whatever the page says."""
    icon = srv.static / "favicon.svg"
    if not icon.is_file():
        return Response(status_code=404)
    return FileResponse(icon, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


@router.get("/api/health")
async def health() -> dict[str, Any]:
    return {"ok": True}


@router.get("/api/bots")
async def bots() -> dict[str, Any]:
    known = available_agents()
    return {
        "bots": [{"name": b, "help": known.get(b, "")} for b in games.BOTS if b in known],
        "models": list(available_models()),
        "rules": sorted(games.PRESETS),
        # The komi a new game gets when the player names none (0.5 with handicap stones).
        "komi": {name: games.default_komi(name, 0) for name in sorted(games.PRESETS)},
        "handicap_komi": games.default_komi("chinese", 2),
        "dead_stones": list(games.DEAD_STONES),
        "limits": {
            "min_size": games.MIN_SIZE,
            "max_size": games.MAX_SIZE,
            "max_seconds": games.MAX_SECONDS,
            "max_upload": MAX_UPLOAD,
        },
    }
