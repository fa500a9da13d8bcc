"""The bot's opinion of a position: ``POST /api/analyze`` (a review's position or a game's) and its cancellation.

The analysis runs in steps of :data:`fuseki.web.analysis.STEP_SECONDS` in the
analysis pool. Between steps it stops when the same ``channel`` asked for
another analysis (the page stepped on), when ``DELETE /api/analyze/{channel}``
said so, or when the client went away; a stopped request answers 409
("cancelled"), which the page never waits for.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request

from fuseki.web import analysis
from fuseki.web.models import AnalyzeBody
from fuseki.web.server import Server, review_state, server

__all__ = ["router", "run_analysis"]

router = APIRouter()
Srv = Annotated[Server, Depends(server)]


async def run_analysis(
    srv: Server, request: Request | None, channel: str, source: tuple[Any, ...], n: int | None, seconds: float
) -> dict[str, Any]:
    """Analyse ``source``'s position ``n`` for ``seconds`` in steps; 409 when superseded or abandoned."""
    job = srv.analyses.start(channel)
    try:
        left = seconds
        out: dict[str, Any] | None = None
        while left > 1e-9:
            if await job.stopped(request):
                srv.analyses.cancelled += 1
                raise HTTPException(409, "analysis cancelled: the page asked for another position")
            step = min(analysis.STEP_SECONDS, left)
            out = await srv.analysis.run(analysis.analyze_step, channel, source, n, step, out is None)
            left -= step
        assert out is not None
        return out
    finally:
        srv.analyses.finish(job)


@router.post("/api/analyze")
async def analyze(body: AnalyzeBody, request: Request, srv: Srv) -> dict[str, Any]:
    channel = body.channel or "once-" + secrets.token_hex(6)
    if body.review is not None:
        record, sgf = srv.record_for(body.review)
        state = review_state(record, body.n)
        if state.is_over():
            raise HTTPException(409, f"the game is over at position {body.n}: there is nothing to analyze")
        return await run_analysis(srv, request, channel, ("sgf", sgf), body.n, body.seconds)
    assert body.game is not None  # AnalyzeBody requires one of the two
    g = srv.load(body.game)
    if g.state.is_over():
        raise HTTPException(409, "the game is over: there is nothing to analyze")
    return await run_analysis(srv, request, channel, ("game", g.settings.to_dict(), list(g.moves)), None, body.seconds)


@router.delete("/api/analyze/{channel}")
async def cancel(channel: str, srv: Srv) -> dict[str, Any]:
    """Stop the channel's analysis (the page turned analysis off); ``cancelled`` says whether one ran."""
    return {"cancelled": srv.analyses.cancel(channel)}
