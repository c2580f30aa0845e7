"""The HTTP/1.1 connections under the API: uvicorn's protocols with a read deadline.

uvicorn closes a connection that stays idle after a response (its keep-alive timeout),
but any byte received cancels that timer, and nothing bounds the wait for a request's
head or body: a client sending one byte every few seconds (slowloris), or one that
connects and sends nothing, would hold its connection and its memory for ever. Here a
connection must deliver each whole request, head and body, within ``read_timeout``
seconds of being ready for it (when it opens, and after each response); otherwise it
is closed, with a 408 when part of a request had come and was not answered yet. Bytes
arriving do not extend the deadline, so trickling cannot either. Once a request is
read the deadline stops: the time the application takes to answer is not the client's.

Two parsers carry the same deadline: httptools (C, the default when installed, as the
``serve`` extra installs it) and h11 (pure Python, uvicorn's own dependency). The
parser is named explicitly rather than left to uvicorn's ``auto`` choice, so the
server never runs without its deadline; h11 costs about twice the CPU per request.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import h11
import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

# Their side of h11's state machine once a request has been read to its end.
_REQUEST_READ = (h11.DONE, h11.MUST_CLOSE)

_LINGER_S = 1.0
"""How long a timed-out connection is drained after its 408 before it is closed."""


class ReadDeadline(asyncio.Protocol):
    """The deadline of a uvicorn HTTP protocol; mixed in before the protocol's class,
    which says whether an unanswered request had begun (:meth:`_unanswered_request`)
    and stops the deadline once a request is read."""

    read_timeout: ClassVar[float] = 10.0

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    _read_deadline: asyncio.TimerHandle | None = None
    _lingering = False
    """The 408 is sent: what still comes is the rest of that request, read to be dropped."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return
        super().data_received(data)
        self._received()

    def _received(self) -> None:
        """Called after the parser has taken each piece of data."""

    def _unanswered_request(self) -> bool:
        raise NotImplementedError

    def _await_request(self) -> None:
        self._stop_deadline()
        self._read_deadline = self.loop.call_later(self.read_timeout, self._read_timed_out)

    def _stop_deadline(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing():
            return
        if self._unanswered_request():
            # Written past the parser's protocol, which has no response to send before
            # a whole head, because the connection is closed right after.
            self.transport.write(_timeout_response(self.read_timeout))
            if self.transport.can_write_eof():
                # Closed at once with the client's bytes unread, the socket would answer
                # them with a reset, which can destroy the 408 before the client reads
                # it: send the end, drop what still comes for a moment, then close.
                self.transport.write_eof()
                self._lingering = True
                self.loop.call_later(_LINGER_S, self.transport.close)
                return
        self.transport.close()


class ReadDeadlineProtocol(ReadDeadline, H11Protocol):
    """uvicorn's h11 protocol, closing a connection that does not deliver a request in
    time. Subclass it with :func:`verifier.server.serve.protocol_with` to set
    ``read_timeout``."""

    def _received(self) -> None:
        if self.conn.their_state in _REQUEST_READ:
            self._stop_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            return
        # A pipelined request already buffered may have been read in full just now.
        if self.conn.their_state in _REQUEST_READ:
            self._stop_deadline()
        else:
            self._await_request()

    def _unanswered_request(self) -> bool:
        came = self.conn.their_state is not h11.IDLE or bool(self.conn.trailing_data[0])
        return came and self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE)


def _timeout_response(read_timeout: float) -> bytes:
    body = orjson.dumps({"detail": f"the request did not arrive within {read_timeout:g} s"})
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
