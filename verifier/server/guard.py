"""The ASGI layer in front of every route: the Host check, the bearer token, the body
limit, and a last answer for failures.

It is plain ASGI rather than a Starlette ``BaseHTTPMiddleware`` so it sees the request
body as it streams in: a body is refused with 413 as soon as the declared length or
the bytes received pass the limit, without reading the rest. What it lets through is
replayed to the application from memory, so the limit also caps what a request holds.
"""

from __future__ import annotations

import hmac
from collections.abc import MutableMapping
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from verifier.logs import get_logger
from verifier.server.hosts import REFUSED, HostCheck

log = get_logger("verifier.server")

INTERNAL_ERROR = "internal error: the request could not be completed (see the server log)"


class _TooLarge(Exception):
    pass


class Guard:
    """Checks the ``Host`` header, ``Authorization: Bearer <token>`` (when a token is
    set) and the body size, and turns an exception that escaped a route into a
    one-line 500.

    Args:
        app: The application behind the guard.
        token: The bearer token every request needs; ``None`` checks none.
        max_body: Largest request body accepted, in bytes.
        hosts: The ``Host`` values served (others get 421); ``None`` checks none.
    """

    def __init__(
        self, app: ASGIApp, *, token: str | None, max_body: int, hosts: HostCheck | None
    ) -> None:
        self.app = app
        self._token = token.encode("utf-8") if token is not None else None
        self._max_body = max_body
        self._hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        if self._hosts is not None and not self._hosts.accepts(headers.get(b"host")):
            await reply(send, 421, REFUSED)
            return
        if self._token is not None and not self._authorized(headers.get(b"authorization")):
            await reply(
                send, 401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")]
            )
            return
        declared = headers.get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                await reply(send, 400, "Content-Length is not a number")
                return
            if int(declared) > self._max_body:
                await reply(send, 413, self._too_large())
                return
        try:
            body = await self._read_body(receive)
        except _TooLarge:
            await reply(send, 413, self._too_large())
            return
        if body is None:
            return  # the client went away before it finished sending
        started = False

        pending: bytes | None = body

        async def replayed() -> Message:
            nonlocal pending
            if pending is not None:
                message: Message = {"type": "http.request", "body": pending, "more_body": False}
                pending = None
                return message
            return await receive()

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, replayed, tracked)
        except Exception as exc:
            # Only the exception's type is logged: its message may quote request text.
            log.error(
                "request failed",
                method=scope.get("method"),
                path=scope.get("path"),
                error=type(exc).__name__,
            )
            if not started:
                await reply(send, 500, INTERNAL_ERROR)

    def _authorized(self, header: bytes | None) -> bool:
        assert self._token is not None
        scheme, _, credentials = (header or b"").partition(b" ")
        # Compared in constant time whatever the scheme, so timing tells nothing.
        same = hmac.compare_digest(credentials.strip(), self._token)
        return same and scheme.lower() == b"bearer"

    def _too_large(self) -> str:
        return f"request body larger than {self._max_body} bytes"

    async def _read_body(self, receive: Receive) -> bytes | None:
        """The whole body, or ``None`` when the client disconnected first."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max_body:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _headers(scope: Scope) -> dict[bytes, bytes]:
    # A repeated header keeps its first value; the token check sees only that one.
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.lower(), value)
    return found


async def reply(
    send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Sends ``{"detail": ...}`` with ``status``, as FastAPI's own errors look."""
    body = orjson.dumps({"detail": detail})
    start: MutableMapping[str, Any] = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *(headers or []),
        ],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body})
