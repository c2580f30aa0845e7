"""Starting and stopping the local stand-in API servers of the judge tests."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 whose handler threads never block exit."""

    daemon_threads = True
    request_queue_size = 256  # the default 5 drops connections of a concurrent burst


def start(handler: type[BaseHTTPRequestHandler]) -> tuple[LocalServer, threading.Thread]:
    """A ``LocalServer`` on a free port of 127.0.0.1, serving from a daemon thread."""
    httpd = LocalServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    return httpd, thread


def stop(httpd: ThreadingHTTPServer | None, thread: threading.Thread | None) -> None:
    """Stops a server ``start`` made (either may be ``None``: never started)."""
    if httpd is not None:
        httpd.shutdown()
        httpd.server_close()
    if thread is not None:
        thread.join(timeout=5)


def origin(httpd: ThreadingHTTPServer | None) -> str:
    """``http://127.0.0.1:PORT`` of a started server.

    Raises:
        RuntimeError: It is not running.
    """
    if httpd is None:
        raise RuntimeError("the server is not running")
    host, port = httpd.server_address[:2]
    return f"http://{host!s}:{port}"


def send(
    handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str], data: bytes
) -> None:
    """Answers the handler's request with ``data``; a client that gave up is no error."""
    try:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (a timeout under test)
