"""Deadlines on reading a request, which uvicorn does not have: a slow client cannot hold a socket.

uvicorn closes an idle keep-alive connection after `timeout_keep_alive`, but once a client has
sent a byte it waits for the rest of the headers, and then of the body, for ever: 60 sockets that
each sent half a request line held `polygon serve` for as long as their clients liked (issue 32,
item 8). `deadline_protocol` is uvicorn's h11 protocol with two deadlines on top:

* the **headers** of a request must have arrived `header_timeout` seconds after the connection
  opened (or, on a kept-alive connection, after the next request's first byte);
* its **body** must have arrived `body_timeout` seconds after its headers.

A connection past its deadline is closed (no response: the request was never read). Nothing limits
how long the app takes to answer, only how long the client takes to ask.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["deadline_protocol"]

_FINISHED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)


class _DeadlineH11(H11Protocol):
    """uvicorn's H11Protocol, closing a connection whose request does not arrive in time."""

    header_timeout = 10.0
    body_timeout = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: str | None = None  # "headers" or "body" while a deadline runs

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("headers", self.header_timeout)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()  # a pipelined request may have been read meanwhile

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Move the deadline along with what the client has sent."""
        state = self.conn.their_state
        if state is h11.SEND_BODY and self._waiting_for != "body":
            self._arm("body", self.body_timeout)
        elif state in _FINISHED:
            self._disarm()
        elif state is h11.IDLE and self._waiting_for is None and self.conn.trailing_data[0]:
            self._arm("headers", self.header_timeout)  # a kept-alive connection's next request began

    def _arm(self, what: str, seconds: float) -> None:
        self._disarm()
        self._waiting_for = what
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._waiting_for = None, None

    def _expired(self) -> None:
        self._deadline, self._waiting_for = None, None
        if not self.transport.is_closing():
            self.transport.close()


def deadline_protocol(header_timeout: float, body_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with these deadlines (seconds), for `uvicorn.Config(http=...)`."""
    return type("DeadlineH11Protocol", (_DeadlineH11,), {"header_timeout": header_timeout,
                                                         "body_timeout": body_timeout})
