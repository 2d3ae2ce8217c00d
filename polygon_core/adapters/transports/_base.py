"""The line to a voice bot: the `Transport` Protocol, its faults, and how the line closed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from polygon_core.voice import BotEvent, CallStart, WireError

__all__ = ["Closed", "LinkFault", "Transport", "TransportConfigError", "TransportError", "TransportFactory",
           "TransportOptions"]

# refused: nothing listens at the URL's port; tls: the TLS handshake failed (a certificate not trusted,
# a plain socket on a wss:// URL); unreachable: the host does not resolve or route; timeout: no
# WebSocket handshake within `open_timeout_s`; handshake: the server answered but refused the
# upgrade (an HTTP status, a malformed response); closed: the socket closed before the call ended,
# other than by a clean hang-up (code 1000) from the bot.
LinkFault = Literal["refused", "tls", "unreachable", "timeout", "handshake", "closed"]


class TransportError(WireError):
    """The line to the bot failed (`reason` a `LinkFault`). For `closed`: the close `code` (1006: the
    connection dropped without a close frame) and the bot's `close_reason` text."""

    reason: LinkFault

    def __init__(self, reason: LinkFault, detail: str, *, code: int | None = None, close_reason: str = "") -> None:
        super().__init__(reason, detail)
        self.code, self.close_reason = code, close_reason


class TransportConfigError(ValueError):
    """A transport asked for in a way it cannot work (an unknown name, a URL that is not ws:// or
    wss://, a CA file that cannot be read): the user's input, one line."""


@dataclass(frozen=True)
class Closed:
    """How the line closed: the WebSocket close code (1000: normal; 1006: dropped, no close frame),
    the reason text, and which side closed it."""

    code: int | None
    reason: str
    by: Literal["bot", "polygon"]


@dataclass(frozen=True)
class TransportOptions:
    """How to reach a bot. `ca_file`: a PEM bundle trusted for wss:// instead of the system's (a
    bot with its own certificate authority); `ping_interval_s`: WebSocket keepalive pings (None:
    none), a bot that answers none for as long closes the line (`closed`, code 1011)."""

    open_timeout_s: float = 10.0
    close_timeout_s: float = 2.0
    ping_interval_s: float | None = 20.0
    ca_file: str | None = None


@runtime_checkable
class Transport(Protocol):
    """One call's line to a bot, speaking one wire. Use it from one event loop: `connect`, then send
    the caller's frames and mark answers while one task reads `events()`, then `close`.

    Every failure is a `WireError`: a `TransportError` (the link) or a `ProtocolError` (a message).
    Timeouts are the caller's: `receive(timeout)` waits as long as it is told (cancelling it loses
    nothing), and `received` and `last_received_at` (the transport's clock, seconds) tell a silent
    bot from a slow one.
    """

    name: str
    received: int  # messages received from the bot
    last_received_at: float | None  # when the last one arrived; None before the first
    closed: Closed | None  # set once the line has closed

    async def connect(self, url: str, start: CallStart, *, headers: Mapping[str, str] | None = None) -> None:
        """Dial `url` (ws:// or wss://) and tell the bot who is calling (the wire's start messages)."""
        ...

    async def send_audio(self, frame: bytes) -> None:
        """Send one 20 ms frame of the caller's 8 kHz mu-law audio (160 bytes), now: pacing is the
        caller's (`PacedSender`)."""
        ...

    async def send_mark(self, name: str) -> None:
        """Tell the bot its audio up to the mark `name` has played."""
        ...

    async def receive(self, timeout: float | None = None) -> BotEvent | None:
        """The bot's next event, None once the line closed cleanly; `TimeoutError` after `timeout`
        seconds without a message (nothing lost: the next call gets it). Faults as `events()`."""
        ...

    def events(self) -> AsyncIterator[BotEvent]:
        """What the bot sends, in order, until the line closes: ends when Polygon closed it or the
        bot hung up cleanly (code 1000); raises `TransportError("closed")` for any other close, and
        `ProtocolError` for a message that breaks the wire."""
        ...

    async def close(self) -> None:
        """End the call (the wire's stop message) and close the socket; closing twice is a no-op."""
        ...


class TransportFactory(Protocol):
    """Builds a transport for one call."""

    def __call__(self, options: TransportOptions) -> Transport: ...
