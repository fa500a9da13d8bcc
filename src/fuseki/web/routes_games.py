"""Games against a bot: ``/api/games`` (create, read, move, pass, resign, undo, download as SGF)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import Response

from fuseki.go.sgf import game_to_sgf
from fuseki.web import games
from fuseki.web.games import GameConflict
from fuseki.web.models import GameSettingsBody, MoveBody
from fuseki.web.server import Server, server

__all__ = ["router"]

router = APIRouter(prefix="/api/games")
Srv = Annotated[Server, Depends(server)]


@router.post("", status_code=201)
async def new_game(srv: Srv, body: GameSettingsBody | None = None) -> dict[str, Any]:
    """A new game with these settings (all optional); the bot moves first if it plays Black."""
    settings = (body or GameSettingsBody()).to_settings()
    gid = srv.store.create_game(settings.to_dict(), [])
    return await srv.bot_turn_as_this_task(gid)


@router.get("/{gid}")
async def get_game(gid: str, srv: Srv) -> dict[str, Any]:
    settings, moves, state, score = srv.load(gid)
    if games.bot_to_move(settings, state) and gid not in srv.thinking:
        srv.start_bot(gid)
    return games.game_json(gid, settings, moves, state, score)


@router.post("/{gid}/moves")
async def play(gid: str, body: MoveBody, srv: Srv) -> dict[str, Any]:
    return await srv.human_move(gid, body.vertex)


@router.post("/{gid}/pass")
async def pass_turn(gid: str, srv: Srv) -> dict[str, Any]:
    return await srv.human_move(gid, "pass")


@router.post("/{gid}/resign")
async def resign(gid: str, srv: Srv) -> dict[str, Any]:
    async with srv.lock_for(gid):
        settings, moves, state, _ = srv.load(gid)
        if state.is_over():
            raise HTTPException(409, "the game is over")
        if state.next_player is not settings.human:
            raise HTTPException(409, "it is not your turn: the bot is to move")
        moves = [*moves, "resign"]
        state = state.play(games.Move.resign())
        score = srv.finish(gid, settings, moves, state)
        return games.game_json(gid, settings, moves, state, score)


@router.post("/{gid}/undo")
async def undo(gid: str, srv: Srv) -> dict[str, Any]:
    if gid in srv.thinking:
        srv.load(gid)
        raise HTTPException(409, "the bot is thinking; undo after its move")
    async with srv.lock_for(gid):
        settings, moves, state, _ = srv.load(gid)
        try:
            moves = games.undo_moves(settings, moves)
        except GameConflict as e:
            raise HTTPException(409, str(e)) from None
        state = games.replay(settings, moves)
        score = srv.finish(gid, settings, moves, state)
        return games.game_json(gid, settings, moves, state, score)


@router.get("/{gid}/sgf")
async def download_sgf(gid: str, srv: Srv) -> Response:
    settings, moves, state, score = srv.load(gid)
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
