"""Request bodies decoded by orjson rather than the standard library.

``json.loads`` accepts escapes of lone surrogates (``"\\ud800"``), which no UTF-8 store
or report can hold, and recurses until Python's limit. orjson refuses both as invalid
JSON, which FastAPI reports as a 422 ``json_invalid`` with the reason, so such text is
turned away at the door instead of failing deep inside a run. Integers beyond 64 bits
stay exact (orjson alone would make them floats).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from verifier._internal.canonical import loads_exact


class _OrjsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads_exact(await self.body())
        return self._json


class OrjsonRoute(APIRoute):
    """A route whose JSON body is decoded with orjson."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def decoded_with_orjson(request: Request) -> Response:
            return await handler(_OrjsonRequest(request.scope, request.receive))

        return decoded_with_orjson
