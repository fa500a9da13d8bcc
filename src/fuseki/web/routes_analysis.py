"""``/api/analyze``: the bot's view of a position of a review or of a game (win rate, best moves)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException

from fuseki.web import analysis
from fuseki.web.models import AnalyzeBody
from fuseki.web.server import Server, review_state, server

__all__ = ["router"]

router = APIRouter()


@router.post("/api/analyze")
async def analyze(body: AnalyzeBody, srv: Annotated[Server, Depends(server)]) -> dict[str, Any]:
    if body.review is not None:
        record, sgf = srv.record_for(body.review)
        state = review_state(record, body.n)
        if state.is_over():
            raise HTTPException(409, f"the game is over at position {body.n}: there is nothing to analyze")
        return await srv.pool.run(analysis.analyze_review, sgf, body.n, body.seconds)
    assert body.game is not None  # AnalyzeBody requires one of the two
    settings, moves, state, _ = srv.load(body.game)
    if state.is_over():
        raise HTTPException(409, "the game is over: there is nothing to analyze")
    return await srv.pool.run(analysis.analyze_game, settings.to_dict(), list(moves), body.seconds)
