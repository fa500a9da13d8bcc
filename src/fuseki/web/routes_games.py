"""Games against a bot: ``/api/games`` (list, create, read, move, pass, resign, undo, the scoring phase, SGF).

Every request that changes a game may carry ``"revision"``: the revision of
the game the page shows (``game.revision``). When the game has changed since
(another window played, undid, resigned), the request is refused with 409 and
the game as it stands, which the page shows at once. Every other 409 of a game
(an illegal move, not your turn, over) carries the game too.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import Response

from fuseki.web import clock as clocks
from fuseki.web import games
from fuseki.web.games import GameConflict, SettingsError
from fuseki.web.models import ActionBody, DeadBody, GameSettingsBody, MoveBody
from fuseki.web.server import Loaded, Server, game_sgf, server

__all__ = ["router"]

router = APIRouter(prefix="/api/games")
Srv = Annotated[Server, Depends(server)]


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


@router.get("")
async def list_games(
    srv: Srv, limit: Annotated[int, Query(ge=1, le=200)] = 50, offset: Annotated[int, Query(ge=0)] = 0
) -> dict[str, Any]:
    """Every stored game, the most recently changed first: what the page's game list shows."""
    out = []
    for row in srv.store.list_games(limit, offset):
        settings = row.settings
        phase, result, nmoves = row.phase, row.result, row.nmoves
        if phase is None or nmoves is None:  # a row from before the list columns: fill them in once
            g = srv.load(row.id)
            phase, result = g.phase, games.result_of(g.state, g.score, g.clock)
            nmoves = sum(1 for m in g.moves if m != "resign")
            srv.store.set_summary(row.id, phase, result, nmoves)
        out.append({
            "id": row.id,
            "created": _iso(row.created),
            "updated": _iso(row.updated),
            "size": settings["size"],
            "komi": settings["komi"],
            "rules": settings["rules"],
            "handicap": settings["handicap"],
            "human": settings["human"],
            "bot": settings["bot"],
            "phase": phase,
            "result": result,
            "moves": nmoves,
        })
    return {"games": out, "total": srv.store.count_games(), "limit": limit, "offset": offset}


@router.post("", status_code=201)
async def new_game(srv: Srv, body: GameSettingsBody | None = None) -> dict[str, Any]:
    """A new game with these settings (all optional); the bot moves first if it plays Black."""
    settings = (body or GameSettingsBody()).to_settings()
    clock = None
    if settings.clock is not None:
        first = games.replay(settings, []).next_player.name.lower()
        clock = clocks.start(settings.clock, first, time.time())
    gid = srv.store.create_game(settings.to_dict(), [], clock)
    return await srv.bot_turn_as_this_task(gid)


@router.get("/{gid}")
async def get_game(gid: str, srv: Srv) -> dict[str, Any]:
    g = srv.load(gid)
    if games.bot_to_move(g.settings, g.state) and gid not in srv.thinking and g.phase == "play":
        srv.start_bot(g)
    return g.json()


@router.post("/{gid}/moves")
async def play(gid: str, body: MoveBody, srv: Srv) -> dict[str, Any]:
    return await srv.human_move(gid, body.vertex, body.revision)


@router.post("/{gid}/pass")
async def pass_turn(gid: str, srv: Srv, body: ActionBody | None = None) -> dict[str, Any]:
    return await srv.human_move(gid, "pass", (body or ActionBody()).revision)


def _refuse_unless_playing(srv: Server, g: Loaded) -> None:
    if g.phase == "over":
        raise srv.conflict(g, "the game is over")
    if g.phase == "scoring":
        raise srv.conflict(g, "the game is being counted: accept the count, or resume play")


@router.post("/{gid}/resign")
async def resign(gid: str, srv: Srv, body: ActionBody | None = None) -> dict[str, Any]:
    async with srv.lock_for(gid):
        g = srv.load(gid)
        srv.check_revision(g, (body or ActionBody()).revision)
        _refuse_unless_playing(srv, g)
        if g.state.next_player is not g.settings.human:
            raise srv.conflict(g, "it is not your turn: the bot is to move")
        g.moves = [*g.moves, "resign"]
        g.state = g.state.play(games.Move.resign())
        if g.clock is not None and g.settings.clock is not None:
            g.clock = clocks.stop(g.clock, g.settings.clock, time.time())
        g.score = None
        srv.save(g)
        return g.json()


@router.post("/{gid}/undo")
async def undo(gid: str, srv: Srv, body: ActionBody | None = None) -> dict[str, Any]:
    if gid in srv.thinking:
        g = srv.load(gid)
        raise srv.conflict(g, "the bot is thinking; undo after its move")
    async with srv.lock_for(gid):
        g = srv.load(gid)
        srv.check_revision(g, (body or ActionBody()).revision)
        if g.clock is not None and g.clock.get("flagged"):
            raise srv.conflict(g, "the game is over: the time ran out")
        try:
            g.moves = games.undo_moves(g.settings, g.moves)
        except GameConflict as e:
            raise srv.conflict(g, str(e)) from None
        g.state = games.replay(g.settings, g.moves)
        g.score = None
        if g.clock is not None:
            g.clock = clocks.restart(g.clock, g.settings.human.name.lower(), time.time())
        srv.save(g)
        return g.json()


# ---- the scoring phase ------------------------------------------------------------


def _scoring(srv: Server, g: Loaded) -> dict[str, Any]:
    if g.phase != "scoring" or g.score is None:
        raise srv.conflict(g, "the game is not being counted: that needs two passes in a row")
    return g.score


@router.post("/{gid}/dead")
async def toggle_dead(gid: str, body: DeadBody, srv: Srv) -> dict[str, Any]:
    """In the scoring phase: the group at ``vertex`` dead if it was alive, alive if it was dead; the new count."""
    async with srv.lock_for(gid):
        g = srv.load(gid)
        srv.check_revision(g, body.revision)
        score = _scoring(srv, g)
        try:
            g.score = games.toggle_group(g.state, score, body.vertex)
        except GameConflict as e:
            raise srv.conflict(g, str(e)) from None
        except SettingsError as e:
            raise HTTPException(422, str(e)) from None
        srv.save(g)
        return g.json()


@router.post("/{gid}/accept")
async def accept(gid: str, srv: Srv, body: ActionBody | None = None) -> dict[str, Any]:
    """End the scoring phase with the count as it stands: the game is over with that result."""
    async with srv.lock_for(gid):
        g = srv.load(gid)
        srv.check_revision(g, (body or ActionBody()).revision)
        g.score = {**_scoring(srv, g), "accepted": True}
        srv.save(g)
        return g.json()


@router.post("/{gid}/resume")
async def resume(gid: str, srv: Srv, body: ActionBody | None = None) -> dict[str, Any]:
    """Leave the scoring phase and play on: the passes are taken back; the bot moves if it passed first."""
    async with srv.lock_for(gid):
        g = srv.load(gid)
        srv.check_revision(g, (body or ActionBody()).revision)
        _scoring(srv, g)
        g.moves = games.resume_moves(g.moves)
        g.state = games.replay(g.settings, g.moves)
        g.score = None
        if g.clock is not None:
            g.clock = clocks.restart(g.clock, g.state.next_player.name.lower(), time.time())
        srv.save(g)
        if not games.bot_to_move(g.settings, g.state):
            return g.json()
        srv.thinking[gid] = asyncio.current_task()  # type: ignore[assignment]
        try:
            return await srv.bot_turn(g)
        finally:
            srv.thinking.pop(gid, None)


@router.get("/{gid}/sgf")
async def download_sgf(gid: str, srv: Srv) -> Response:
    g = srv.load(gid)
    return Response(
        game_sgf(g),
        media_type="application/x-go-sgf",
        headers={"Content-Disposition": f'attachment; filename="fuseki-{gid}.sgf"'},
    )
