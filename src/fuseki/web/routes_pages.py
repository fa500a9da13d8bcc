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


def default_help() -> str:
    """What ``default`` plays on each size, from the table (so the page's tooltip cannot go stale)."""
    from fuseki.agents.by_size import DEFAULT_BOTS, OTHER_SIZES

    def label(bot: str, options: dict[str, Any]) -> str:
        extra = ", ".join(f"{k}={v}" for k, v in options.items())
        return f"{bot} ({extra})" if extra else bot

    sizes = "; ".join(f"{s}x{s}: {label(d.bot, dict(d.options))}" for s, d in sorted(DEFAULT_BOTS.items()))
    return f"the bot measured strongest on the board size: {sizes}; other sizes: {label(OTHER_SIZES.bot, {})}"


@router.get("/api/bots")
async def bots() -> dict[str, Any]:
    known = available_agents()
    return {
        "bots": [{"name": games.DEFAULT_BOT, "help": default_help()}]
        + [{"name": b, "help": known.get(b, "")} for b in games.BOTS if b in known],
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
