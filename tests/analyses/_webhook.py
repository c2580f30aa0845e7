"""A real webhook on 127.0.0.1 that records what is POSTed to it and answers from a script."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.judge._local_http import origin, send, start, stop


@dataclass
class Webhook:
    """What was POSTed (path and JSON body of each request) and what to answer: the
    scripted answers first (a float is a delay in seconds before a 200), then 200."""

    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    answers: deque[int | float] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, *answers: int | float) -> None:
        self.answers.extend(answers)

    def answer(self, path: str, data: bytes) -> int:
        """Records a request and says how to answer it (after any scripted delay)."""
        with self.lock:
            self.requests.append({"path": path, "body": json.loads(data)})
            answer = self.answers.popleft() if self.answers else 200
        if isinstance(answer, float):
            time.sleep(answer)
            return 200
        return answer


@contextmanager
def serving() -> Iterator[Webhook]:
    """A ``Webhook`` listening on a free port of 127.0.0.1 until the block ends."""
    hook = Webhook()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("content-length", "0")))
            send(self, hook.answer(self.path, data), {"content-type": "text/plain"}, b"ok")

    httpd, thread = start(Handler)
    hook.base_url = origin(httpd)
    try:
        yield hook
    finally:
        stop(httpd, thread)


def unused_url(path: str) -> str:
    """An http URL of 127.0.0.1 on a port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}{path}"
