"""A real HTTP server on 127.0.0.1 that answers like the Anthropic Messages API.

It serves what the 2.x SDK calls, ``POST /v1/messages`` and the Message Batches routes
(create, retrieve, results as chunked JSONL), plus ``POST /v1/chat/completions`` of an
OpenAI-compatible server and Azure OpenAI's ``POST /openai/deployments/{deployment}/
chat/completions?api-version=...`` (``deployments`` maps each deployment to the model
it serves, which the answer names), and the Messages API as the SDK's platform clients reach it:
Bedrock's ``POST /model/{model id}/invoke``, Vertex AI's ``POST .../publishers/anthropic/
models/{model}:rawPredict`` (both name the model in the path, not the body, and answer
with its Anthropic id, as the platforms do) and Foundry's ``POST /anthropic/v1/messages``;
``POST /token`` grants Google access tokens, as a service account's token endpoint. Answers come from a queue of scripted behaviours, then from a
default responder; every request is recorded (headers and JSON body) and the highest
number of calls in flight at once is tracked::

    with MessagesServer(default=lambda request: tool_use({"pass": True})) as server:
        server.script(rate_limited(retry_after=1), server_error())
        client = AsyncAnthropic(api_key="test-key", base_url=server.base_url)

Tests about timing use responders that wait for events instead of latencies: ``together``
answers only once several calls are in flight at once, a ``Gate`` holds calls until the
test opens it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs

from tests.judge._local_http import LocalServer, send, start, stop
from tests.judge.behaviours import (
    Behaviour,
    error_body,
    http_error,
    render_batch_result,
    render_chat,
    render_message,
    tool_use,
)
from tests.judge.server_batches import Batch

Responder = Callable[[dict[str, Any]], Behaviour]


def default_responder(request: dict[str, Any]) -> Behaviour:
    """Passes every check: ``{"pass": true, "reason": "ok"}`` through the forced tool."""
    return tool_use({"pass": True, "reason": "ok"})


def together(
    parties: int, then: Responder = default_responder, *, patience: float = 30
) -> Responder:
    """Answers (with ``then``) only once ``parties`` calls wait at once: calls meant to
    overlap are then in flight together however the machine schedules them, instead of
    merely overlapping a latency window. Calls that wait ``patience`` seconds in vain are
    answered anyway (and every later one at once), so ``max_in_flight`` shows the
    shortfall instead of a hang."""
    meeting = threading.Barrier(parties)

    def respond(request: dict[str, Any]) -> Behaviour:
        with contextlib.suppress(threading.BrokenBarrierError):
            meeting.wait(patience)
        return then(request)

    return respond


class Gate:
    """A responder holding calls until :meth:`open`: a run stays in progress exactly as
    long as a test needs it to, not as long as some latency happens to last.

    Args:
        then: Answers every call, once let through.
        patience: Longest hold, so a test that never opens the gate still ends.
    """

    def __init__(self, then: Responder = default_responder, *, patience: float = 60) -> None:
        self.then = then
        self.patience = patience
        self._open = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Behaviour:
        self._open.wait(self.patience)
        return self.then(request)

    def open(self) -> None:
        """Lets every held and later call through."""
        self._open.set()


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    query: dict[str, list[str]] = field(default_factory=dict)


class MessagesServer:
    """A scriptable local Messages API (a context manager; ``base_url`` once started).

    Args:
        default: Answers every call the script does not cover.
        latency: Seconds from a model call's arrival to its answer (benchmarks): the
            server's own work on the call is inside it, not added to it.
        batch_polls: Retrievals of a batch before it reports ``ended``.

    Attributes:
        deployments: Azure OpenAI deployment -> the model it serves (change it between
            runs to move a deployment to another model); an unknown one is a 404.
        azure_key: The ``api-key`` (or bearer token) Azure calls must carry.
    """

    def __init__(
        self,
        default: Responder = default_responder,
        *,
        latency: float = 0.0,
        batch_polls: int = 1,
    ) -> None:
        self.default = default
        self.latency = latency
        self.batch_polls = batch_polls
        self.requests: list[RecordedRequest] = []
        self.deployments: dict[str, str] = {}
        self.azure_key = AZURE_TEST_KEY
        self.max_in_flight = 0
        self._in_flight = 0
        self._queue: deque[Behaviour] = deque()
        self._batches: dict[str, Batch] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: LocalServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, the Anthropic SDK's ``base_url``."""
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, an OpenAI-compatible ``base_url``."""
        return f"{self.base_url}/v1"

    @property
    def azure_endpoint(self) -> str:
        """``http://127.0.0.1:PORT``, an Azure OpenAI resource endpoint."""
        return self.base_url

    def script(self, *behaviours: Behaviour) -> None:
        """Queues answers for the next calls (batch items take from the same queue)."""
        with self._lock:
            self._queue.extend(behaviours)

    def model_calls(self) -> list[RecordedRequest]:
        """The recorded Messages (platforms' included) and chat completions requests."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and _is_model_path(r.path)]

    def __enter__(self) -> MessagesServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd, self._thread = start(Handler)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        stop(self._httpd, self._thread)

    # Called from handler threads.

    def _next(self, request: dict[str, Any]) -> Behaviour:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.default(request)

    def _record(self, method: str, target: str, headers: dict[str, str], body: Any) -> None:
        path, _, query = target.partition("?")
        with self._lock:
            self.requests.append(RecordedRequest(method, path, headers, body, parse_qs(query)))

    def _enter_call(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave_call(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    def _wait_until(self, deadline: float) -> None:
        self._wait(deadline - time.monotonic())

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._ids):04d}"

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        items = [
            (str(item["custom_id"]), item["params"], self._next(item["params"]))
            for item in body.get("requests", [])
        ]
        batch = Batch(self._new_id("msgbatch_"), items)
        with self._lock:
            self._batches[batch.id] = batch
        return self._batch_json(batch)

    def _poll_batch(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is None:
                return None
            batch.polls += 1
        return self._batch_json(batch)

    def _batch_json(self, batch: Batch) -> dict[str, Any]:
        return batch.as_json(ended=self._batch_ended(batch), base_url=self.base_url)

    def _batch_ended(self, batch: Batch) -> bool:
        return batch.polls >= self.batch_polls


AZURE_TEST_KEY = "azure-test-key"
OAUTH_TOKEN_PATH = "/token"
"""Where the server grants Google access tokens (a service account's ``token_uri``)."""
GRANTED_TOKEN = "ya29.granted-by-the-stand-in"
"""The access token it grants."""

_MODEL_PATHS = ("/v1/messages", "/v1/chat/completions")
_AZURE_PATH = re.compile(r"/openai/deployments/(?P<deployment>[^/]+)/chat/completions")
_BATCHES = "/v1/messages/batches"
_FOUNDRY = "/anthropic/v1/messages"
_BEDROCK = re.compile(r"/model/(?P<model>[^/]+)/invoke")
_BEDROCK_ID = re.compile(r"(?:[a-z-]+\.)?anthropic\.(?P<base>.+?)(?:-v[0-9]+(?::[0-9]+)?)?")
_VERTEX = re.compile(
    r"(?:/v1)?/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):rawPredict"
)


def platform_model(path: str) -> str | None:
    """The Anthropic id of the model a Bedrock or Vertex AI path names (what the platform
    answers with), ``""`` for Foundry's path (the body names it), else ``None``."""
    if path == _FOUNDRY:
        return ""
    if match := _BEDROCK.fullmatch(path):
        model = urllib.parse.unquote(match["model"])
        bedrock = _BEDROCK_ID.fullmatch(model)
        return bedrock["base"] if bedrock else model
    if match := _VERTEX.fullmatch(path):
        return urllib.parse.unquote(match["model"]).replace("@", "-")
    return None


def _is_model_path(path: str) -> bool:
    return (
        path in _MODEL_PATHS
        or _AZURE_PATH.fullmatch(path) is not None
        or platform_model(path) is not None
    )


class _Handler(BaseHTTPRequestHandler):
    owner: MessagesServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm the body waits for
    # the client's delayed ACK (about 40 ms on Linux), which would swamp ``latency``.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Keeps test output quiet."""

    def do_POST(self) -> None:
        arrived = time.monotonic()
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0]
        self.owner._record("POST", self.path, _headers(self), body)
        platform = platform_model(path)
        if path == _BATCHES:
            self._send(200, {"content-type": "application/json"}, self.owner._create_batch(body))
        elif path in _MODEL_PATHS:
            self._model_call(path, body, arrived)
        elif azure := _AZURE_PATH.fullmatch(path):
            self._azure_call(azure["deployment"], body, arrived)
        elif path == OAUTH_TOKEN_PATH:  # Google's token endpoint, for service account credentials
            token = {"access_token": GRANTED_TOKEN, "expires_in": 3600, "token_type": "Bearer"}
            self._send(200, {"content-type": "application/json"}, token)
        elif platform is not None and isinstance(body, dict):
            self._model_call(
                "/v1/messages", {**body, "model": platform or body.get("model")}, arrived
            )
        else:
            self._send_error(http_error(404, f"no route {path}"))

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.owner._record("GET", self.path, _headers(self), None)
        parts = path.removeprefix(_BATCHES + "/").split("/")
        if not path.startswith(_BATCHES + "/") or len(parts) > 2:
            self._send_error(http_error(404, f"no route {path}"))
        elif len(parts) == 1:
            batch = self.owner._poll_batch(parts[0])
            if batch is None:
                self._send_error(http_error(404, f"no batch {parts[0]}"))
            else:
                self._send(200, {"content-type": "application/json"}, batch)
        elif parts[1] == "results":
            self._stream_results(parts[0])
        else:
            self._send_error(http_error(404, f"no route {path}"))

    def _model_call(self, path: str, body: dict[str, Any], arrived: float) -> None:
        owner = self.owner
        owner._enter_call()
        try:
            behaviour = owner._next(body)
            # The answer is made before the wait, so it leaves ``latency`` after the
            # call arrived, however long the server took to read and answer it.
            if path == "/v1/messages":
                status, headers, payload = render_message(behaviour, body, owner._new_id("msg_"))
            else:
                status, headers, payload = render_chat(behaviour, body, owner._new_id("chatcmpl-"))
            owner._wait_until(arrived + owner.latency + behaviour.delay)
        finally:
            # Out of flight before the answer leaves: a client holding it may call again
            # at once, and that call must not be counted beside this one.
            owner._leave_call()
        self._send(status, headers, payload)

    def _azure_call(self, deployment: str, body: dict[str, Any], arrived: float) -> None:
        """Answers as Azure OpenAI does: 401 without the key, 404 without an
        ``api-version`` or for an unknown deployment, else a chat completion naming
        the model the deployment serves."""
        headers = _headers(self)
        bearer = headers.get("authorization", "").removeprefix("Bearer ")
        query = parse_qs(self.path.partition("?")[2])
        served = self.owner.deployments.get(deployment)
        if self.owner.azure_key not in (headers.get("api-key"), bearer):
            self._send_error(http_error(401, "Access denied due to invalid subscription key."))
        elif not query.get("api-version") or served is None:
            self._send_error(http_error(404, "Resource not found"))
        else:
            self._model_call("/v1/chat/completions", {**body, "model": served}, arrived)

    def _stream_results(self, batch_id: str) -> None:
        with self.owner._lock:
            batch = self.owner._batches.get(batch_id)
        if batch is None or not self.owner._batch_ended(batch):
            self._send_error(http_error(404, f"batch {batch_id} has no results yet"))
            return
        self.send_response(200)
        self.send_header("content-type", "application/binary")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for custom_id, params, behaviour in batch.items:
            line = render_batch_result(behaviour, custom_id, params)
            self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def _send_error(self, behaviour: Behaviour) -> None:
        self._send(behaviour.status, {"content-type": "application/json"}, error_body(behaviour))

    def _send(self, status: int, headers: dict[str, str], payload: bytes | dict[str, Any]) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        send(self, status, headers, data)


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {name.lower(): value for name, value in handler.headers.items()}
