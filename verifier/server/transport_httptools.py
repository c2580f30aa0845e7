"""The read deadline of :mod:`verifier.server.transport` on uvicorn's httptools protocol.

A module of its own because uvicorn's protocol imports httptools, which the server
can do without (it then parses with h11).

httptools reads ahead: a pipelined request can be read whole while the one before it
is still being answered. So the protocol counts the requests begun, read to their end
and answered: the deadline runs while no request that was read waits for its answer,
and a request begun but neither read nor answered gets the 408.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from verifier.server.transport import ReadDeadline


class HttpToolsDeadlineProtocol(ReadDeadline, HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection that does not deliver a
    request in time."""

    _begun = 0
    _read = 0
    _answered = 0

    def on_message_begin(self) -> None:
        self._begun += 1
        super().on_message_begin()

    def on_message_complete(self) -> None:
        self._read += 1
        if self._read > self._answered:
            self._stop_deadline()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self._answered += 1
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if self._read > self._answered:
            self._stop_deadline()  # a pipelined request, read already, is being answered
        else:
            self._await_request()

    def _unanswered_request(self) -> bool:
        return self._begun > self._read and self._begun > self._answered
