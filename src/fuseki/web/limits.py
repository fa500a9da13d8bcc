"""How large a request body may be: an SGF upload up to :data:`MAX_UPLOAD`, any other body up to :data:`MAX_JSON`.

A body is refused with 413 as soon as it passes its cap, before it is parsed:
:class:`BodyLimit` wraps the app and counts the bytes of every request except
the SGF upload, which :func:`read_capped` reads itself (it needs the raw bytes
to tell a multipart form from JSON).
"""

from __future__ import annotations

from fastapi import HTTPException, Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BODY_SLACK", "MAX_JSON", "MAX_UPLOAD", "BodyLimit", "read_capped"]

#: The largest SGF upload, in bytes.
MAX_UPLOAD = 1 << 20
#: Extra bytes a multipart or JSON body may carry around the SGF itself.
BODY_SLACK = 64 << 10
#: The largest JSON body of every other request (game settings, a move, an analysis).
MAX_JSON = 64 << 10


def _too_large(size: int | None, cap: int) -> str:
    if size is None:
        return f"request too large: more than {cap} bytes"
    return f"request too large: {size} bytes (at most {cap})"


class BodyLimit:
    """ASGI middleware: 413 for a body over ``cap`` bytes, on every path but those in ``skip``."""

    def __init__(self, app: ASGIApp, cap: int = MAX_JSON, skip: tuple[str, ...] = ()) -> None:
        self.app = app
        self.cap = cap
        self.skip = skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.skip:
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.cap:
            await JSONResponse({"detail": _too_large(int(length), self.cap)}, status_code=413)(scope, receive, send)
            return
        total = 0

        async def counted() -> Message:
            nonlocal total
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                if total > self.cap:  # FastAPI passes an HTTPException raised while reading the body on unchanged
                    raise HTTPException(413, _too_large(None, self.cap))
            return message

        await self.app(scope, counted, send)


async def read_capped(request: Request, cap: int) -> bytes:
    """The raw body of an SGF upload, refused with 413 once it passes ``cap`` bytes."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap:
        raise HTTPException(413, f"upload too large: {int(length)} bytes (at most {MAX_UPLOAD} bytes of SGF)")
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > cap:
            raise HTTPException(413, f"upload too large: more than {MAX_UPLOAD} bytes of SGF")
        chunks.append(chunk)
    body = b"".join(chunks)
    request._body = body  # lets request.form() parse what was read
    return body
