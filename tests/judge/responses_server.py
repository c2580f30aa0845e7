"""A real HTTP server on 127.0.0.1 that answers like OpenAI's Responses API.

``POST /v1/responses`` is answered from a queue of scripted behaviours (the same
``Behaviour`` values the Messages API stand-in takes: a forced tool call, a 429, a 500,
a refusal, a cut-off or malformed answer), then from a default responder, and every
request's JSON body is recorded::

    with ResponsesServer() as server:
        server.script(b.server_error())
        ...  # a judge with base_url=server.base_url
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.judge._local_http import LocalServer, origin, send, start, stop
from tests.judge.behaviours import ECHO, Behaviour, http_error, tool_use

Responder = Callable[[dict[str, Any]], Behaviour]
PATH = "/v1/responses"


def passing(request: dict[str, Any]) -> Behaviour:
    """Passes every claim the request's ``assertions`` variable names."""
    variables = request["prompt"]["variables"]
    claims = json.loads(variables["assertions"])
    results = [
        {"id": claim["id"], "criteria": [], "reasoning": "it holds", "pass": True}
        for claim in claims
    ]
    return tool_use({"results": results})


def render_response(behaviour: Behaviour, request: dict[str, Any], response_id: str) -> bytes:
    """The body of a Responses API answer (not an error) for ``behaviour``."""
    if behaviour.kind == "malformed":
        return b'{"id": "resp_cut", "outp'
    output: list[dict[str, Any]] = []
    if behaviour.kind == "refusal":
        content = [{"type": "refusal", "refusal": behaviour.text}]
        output.append({"type": "message", "role": "assistant", "content": content})
    elif behaviour.text:
        content = [{"type": "output_text", "text": behaviour.text, "annotations": []}]
        output.append({"type": "message", "role": "assistant", "content": content})
    if behaviour.tool_input is not None:
        arguments = json.dumps(behaviour.tool_input)
        if behaviour.kind == "max_tokens":
            arguments = arguments[: max(1, len(arguments) // 2)]
        name = (request.get("tool_choice") or {}).get("name", "tool")
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{response_id}",
                "call_id": f"call_{response_id}",
                "name": name,
                "arguments": arguments,
                "status": "completed",
            }
        )
    incomplete = behaviour.kind == "max_tokens"
    body: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "prompt": request.get("prompt"),
        "output": output,
        "usage": {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "total_tokens": 120,
            **behaviour.usage,
        },
    }
    model = str(request.get("model", "")) if behaviour.model == ECHO else behaviour.model
    if model is not None:
        body["model"] = model
    return json.dumps(body).encode()


class ResponsesServer:
    """A scriptable local Responses API (a context manager; ``base_url`` once started).

    Args:
        default: Answers every call the script does not cover.
    """

    def __init__(self, default: Responder = passing) -> None:
        self.default = default
        self.bodies: list[Any] = []
        self.paths: list[str] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._count = 0
        self._httpd: LocalServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the judge's ``base_url``."""
        return origin(self._httpd) + "/v1"

    def script(self, *behaviours: Behaviour) -> None:
        """Queues answers for the next calls."""
        with self._lock:
            self._queue.extend(behaviours)

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, str], bytes]:
        """Records one call and renders its answer (called from handler threads)."""
        with self._lock:
            self.paths.append(path)
            self.bodies.append(body)
            self._count += 1
            response_id = f"resp_{self._count:04d}"
            scripted = self._queue.popleft() if self._queue else None
        if path != PATH or not isinstance(body, dict):
            scripted = http_error(404, f"no route {path}")
        behaviour = scripted or self.default(body)
        headers = {"content-type": "application/json", **behaviour.headers}
        if behaviour.kind == "error":
            error = {"message": behaviour.text, "type": "server_error", "code": None}
            return behaviour.status, headers, json.dumps({"error": error}).encode()
        return 200, headers, render_response(behaviour, body, response_id)

    def __enter__(self) -> ResponsesServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Keeps test output quiet."""

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                send(self, *owner.answer(self.path.split("?", 1)[0], body))

        self._httpd, self._thread = start(Handler)
        return self

    def __exit__(self, *exc_info: object) -> None:
        stop(self._httpd, self._thread)
