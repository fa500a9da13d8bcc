"""Reviews of SGF games: ``/api/reviews`` (upload, read, each position, the win-rate graph).

A review is an uploaded SGF (its id is random) or a web game (its id is
``game-`` and the game's id): the game list opens a game in Review without
uploading it.
"""

from __future__ import annotations

import json
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import ValidationError

from fuseki.go.sgf import GameRecord, SgfError, read_sgf
from fuseki.web import analysis, games
from fuseki.web.limits import BODY_SLACK, MAX_UPLOAD, read_capped
from fuseki.web.models import ReviewBody, WinratesBody
from fuseki.web.server import Server, review_state, server

__all__ = ["router", "review_json"]

router = APIRouter(prefix="/api/reviews")
Srv = Annotated[Server, Depends(server)]


async def _uploaded_sgf(request: Request) -> bytes:
    """The SGF of an upload: a multipart field ``file`` (or ``sgf``), or JSON ``{"sgf": ...}``."""
    body = await read_capped(request, MAX_UPLOAD + BODY_SLACK)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        form = await request.form()
        item = form.get("file") or form.get("sgf")
        if item is None:
            raise HTTPException(422, "no SGF: send a file in the form field 'file' (or text in 'sgf')")
        return item.encode("utf-8") if isinstance(item, str) else await item.read()
    try:
        data = json.loads(body) if body.strip() else None
    except ValueError as e:
        raise HTTPException(422, f"the body is not valid JSON: {e}") from None
    try:
        return ReviewBody.model_validate(data).sgf.encode("utf-8")
    except ValidationError:
        raise HTTPException(422, 'no SGF: send JSON {"sgf": "(;GM[1]...)"} or a multipart file field "file"') from None


@router.post("", status_code=201)
async def new_review(request: Request, srv: Srv) -> dict[str, Any]:
    sgf = await _uploaded_sgf(request)
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
    rid = srv.store.create_review(sgf)
    srv.remember(rid, record, sgf)
    return review_json(rid, record)


def review_json(rid: str, record: GameRecord) -> dict[str, Any]:
    """A review as the page reads it: the game's header and its moves."""
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
        # What the lenient reader repaired (docs/sgf.md): "HA[3] without handicap stones...".
        "warnings": [str(w) for w in record.warnings],
    }


@router.get("/{rid}")
async def get_review(rid: str, srv: Srv) -> dict[str, Any]:
    record, _ = srv.record_for(rid)
    return review_json(rid, record)


@router.get("/{rid}/positions/{n}")
async def review_position(rid: str, n: int, srv: Srv) -> dict[str, Any]:
    record, _ = srv.record_for(rid)
    state = review_state(record, n)
    comment = record.comment if n == 0 else record.comments.get(n, "")
    return {"n": n, **games.position_json(state), "comment": comment}


async def _position_winrate(
    srv: Server, request: Request, job: Any, channel: str, sgf: bytes, n: int, playouts: int, seconds: float
) -> float | None:
    """One position's win rate, searched in steps of at most :data:`analysis.STEP_SECONDS`."""
    done, spent = 0, 0.0
    while True:
        step = await srv.analysis.run(
            analysis.winrate_at, channel, sgf, n, playouts - done, max(0.01, min(analysis.STEP_SECONDS, seconds - spent))
        )
        done += step["playouts"]
        spent += step["seconds"]
        if step["final"] or done >= playouts or spent >= seconds - 0.005:
            return step["winrate"]
        if await job.stopped(request):
            srv.analyses.cancelled += 1
            raise HTTPException(409, "win-rate graph cancelled: a newer request took its place")


@router.post("/{rid}/winrates")
async def review_winrates(rid: str, request: Request, srv: Srv, body: WinratesBody | None = None) -> dict[str, Any]:
    """Black's win rate at every position, one search a position in the analysis pool, stopped like an analysis.

    The graph's channel is the page's channel with ``-graph``: a new graph
    request cancels the one before, not the analysis of the shown position.
    """
    record, sgf = srv.record_for(rid)
    body = body or WinratesBody()
    positions = len(record.moves) + 1
    per, seconds = analysis.winrate_budget(positions, body.playouts)
    channel = (body.channel or "once-" + secrets.token_hex(6)) + "-graph"
    job = srv.analyses.start(channel)
    try:
        out: list[float | None] = []
        for n in range(positions):
            if await job.stopped(request):
                srv.analyses.cancelled += 1
                raise HTTPException(409, "win-rate graph cancelled: a newer request took its place")
            out.append(await _position_winrate(srv, request, job, channel, sgf, n, per, seconds))
    finally:
        srv.analyses.finish(job)
    colors = [m.color.name.lower() for m in record.moves]
    return {
        "winrates": out,
        "playouts": per,
        "requested_playouts": body.playouts,
        "capped": per < body.playouts,
        "cap": {"per_position": analysis.MAX_PLAYOUTS_PER_POSITION, "total": analysis.MAX_TOTAL_PLAYOUTS,
                "seconds": analysis.MAX_TOTAL_SECONDS},
        "mistakes": analysis.mistakes(out, colors),
    }
