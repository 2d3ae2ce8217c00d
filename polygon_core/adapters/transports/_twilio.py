"""`twilio`: Twilio Media Streams over a WebSocket, Polygon as the phone network, on the
`websockets` library's asyncio client (imported when a call dials, never by a text run).

ws:// and wss:// (TLS with the system's trusted certificates, or `TransportOptions.ca_file`).
Loopback bots are dialled directly; any other host through the environment's proxy settings, as
`websockets` does by default. No compression: base64 mu-law does not shrink, and 50 calls on two
cores need the CPU.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from polygon_core.net import is_loopback_host
from polygon_core.voice import BotEvent, CallStart, TwilioCaller, TwilioStream, message_text, parse_bot_message

from ._base import Closed, TransportConfigError, TransportError, TransportOptions
from ._registry import transport

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection
    from websockets.exceptions import ConnectionClosed

__all__ = ["TwilioTransport", "check_url", "twilio_transport"]

NORMAL_CLOSURE = 1000
ABNORMAL_CLOSURE = 1006  # the connection dropped without a close frame (RFC 6455)


def check_url(url: str) -> str:
    """`url` if it is a ws:// or wss:// URL with a host; else `TransportConfigError` (one line)."""
    parts = urlsplit(url)
    try:
        port: int | None = parts.port
    except ValueError:  # a port that is not a number
        port = -1
    if parts.scheme not in ("ws", "wss") or not parts.hostname or port == -1:
        raise TransportConfigError(f"voice bot URL {url!r}: expected ws://host[:port]/path or wss://host[:port]/path")
    return url



def _ssl_context(options: TransportOptions) -> ssl.SSLContext:
    try:
        return ssl.create_default_context(cafile=options.ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise TransportConfigError(f"voice bot CA file {options.ca_file!r}: cannot be read as PEM "
                                   f"certificates ({exc})") from None


def _link_fault(exc: BaseException, url: str) -> TransportError | None:
    """The named fault of a failed dial (None: not a dialling failure)."""
    from websockets.exceptions import InvalidHandshake, InvalidStatus

    where = f"{url}: "
    if isinstance(exc, ssl.SSLError):  # before OSError: an SSLError is one
        said = getattr(exc, "verify_message", None) or exc.reason or str(exc)
        return TransportError("tls", where + f"TLS handshake failed ({said})")
    if isinstance(exc, ConnectionRefusedError):
        return TransportError("refused", where + "connection refused (is the bot listening on that port?)")
    if isinstance(exc, TimeoutError):  # before OSError: a TimeoutError is one
        return TransportError("timeout", where + "no WebSocket handshake in time")
    if isinstance(exc, ConnectionResetError | ConnectionAbortedError | EOFError):
        hint = " (a plain ws:// server behind a wss:// URL?)" if urlsplit(url).scheme == "wss" else ""
        return TransportError("handshake", where + f"the server cut the connection during the opening handshake{hint}")
    if isinstance(exc, socket.gaierror):
        return TransportError("unreachable", where + f"host does not resolve ({exc.strerror})")
    if isinstance(exc, OSError):
        return TransportError("unreachable", where + (exc.strerror or str(exc) or type(exc).__name__))
    if isinstance(exc, InvalidStatus):
        return TransportError("handshake", where + f"HTTP {exc.response.status_code} instead of a WebSocket upgrade")
    if isinstance(exc, InvalidHandshake):
        return TransportError("handshake", where + (str(exc) or type(exc).__name__))
    return None


class TwilioTransport:
    """One call's Twilio Media Streams line (see `Transport`)."""

    name = "twilio"

    def __init__(self, options: TransportOptions | None = None, *, clock: Callable[[], float] | None = None) -> None:
        self.options = options or TransportOptions()
        self.received = 0
        self.last_received_at: float | None = None
        self.closed: Closed | None = None
        self.caller: TwilioCaller | None = None  # the messages sent so far, numbered
        self._clock = clock
        self._ws: ClientConnection | None = None
        self._closing = False

    def _now(self) -> float:
        if self._clock is None:
            self._clock = asyncio.get_running_loop().time
        return self._clock()

    async def connect(self, url: str, start: CallStart, *, headers: Mapping[str, str] | None = None) -> None:
        """Dial the bot, then send `connected` and `start` (see `Transport.connect`)."""
        if self._ws is not None:
            raise RuntimeError("this transport is already connected: one transport per call")
        check_url(url)
        from websockets.asyncio.client import connect  # in the `voice` extra, and a dependency of Prefect's
        parts = urlsplit(url)
        kwargs: dict[str, Any] = {
            "ssl": _ssl_context(self.options) if parts.scheme == "wss" else None,
            "open_timeout": self.options.open_timeout_s, "close_timeout": self.options.close_timeout_s,
            "ping_interval": self.options.ping_interval_s, "compression": None,
            "additional_headers": dict(headers or {}), "user_agent_header": "polygon-bench",
        }
        if is_loopback_host(parts.hostname or ""):
            kwargs["proxy"] = None
        try:
            self._ws = await connect(url, **kwargs)
        except Exception as exc:
            fault = _link_fault(exc, url)
            if fault is None:
                raise
            raise fault from exc
        self.caller = TwilioCaller(TwilioStream.for_call(start))
        await self._send(self.caller.connected())
        await self._send(self.caller.start())

    def _live(self) -> tuple[ClientConnection, TwilioCaller]:
        if self._ws is None or self.caller is None:
            raise RuntimeError("the transport is not connected: call connect() first")
        return self._ws, self.caller

    async def _send(self, message: Mapping[str, Any]) -> None:
        ws, _ = self._live()
        try:
            await ws.send(message_text(message))
        except _connection_closed() as exc:
            raise _closed_fault(self._record_close(exc)) from exc

    async def send_audio(self, frame: bytes) -> None:
        """One `media` message (see `Transport.send_audio`)."""
        _, caller = self._live()
        await self._send(caller.media(frame))

    async def send_mark(self, name: str) -> None:
        """One `mark` message (see `Transport.send_mark`)."""
        _, caller = self._live()
        await self._send(caller.mark(name))

    async def receive(self, timeout: float | None = None) -> BotEvent | None:
        """The bot's next event; None once the line has closed cleanly (by Polygon, or the bot's hang-up
        with code 1000). Raises `TimeoutError` when nothing came in `timeout` seconds: nothing is
        lost, the next call gets the next message (the caller decides when a bot is silent)."""
        ws, caller = self._live()
        try:
            if timeout is None:  # no timeout context per message: a call receives fifty a second
                data = await ws.recv()  # cancelling it loses no message (websockets' contract)
            else:
                async with asyncio.timeout(timeout):
                    data = await ws.recv()
        except _connection_closed() as exc:
            closed = self._record_close(exc)
            if closed.by == "bot" and closed.code != NORMAL_CLOSURE:
                raise _closed_fault(closed) from exc
            return None
        self.received += 1
        self.last_received_at = self._now()
        return parse_bot_message(data, stream_sid=caller.stream.stream_sid)

    async def events(self) -> AsyncIterator[BotEvent]:
        """What the bot sends (see `Transport.events`); `receive` with a timeout for a bot that may be silent."""
        while (event := await self.receive()) is not None:
            yield event

    def _record_close(self, exc: ConnectionClosed) -> Closed:
        """How the line closed, from the close frames: the first record stands."""
        if self.closed is None:
            frame = exc.sent if self._closing else exc.rcvd  # whoever closed it said why
            code = frame.code if frame is not None else ABNORMAL_CLOSURE
            self.closed = Closed(code, frame.reason if frame is not None else "", "polygon" if self._closing else "bot")
        return self.closed

    async def close(self) -> None:
        """`stop`, then close the socket with code 1000 (see `Transport.close`)."""
        from websockets.exceptions import ConnectionClosed

        if self._ws is None or self._closing:
            return
        ws, caller = self._live()
        if self.closed is None:
            try:
                await ws.send(message_text(caller.stop()))
            except ConnectionClosed as exc:
                self._record_close(exc)  # the bot went first: nothing to stop
        self._closing = True
        await ws.close(NORMAL_CLOSURE, "call ended")
        if self.closed is None:
            self.closed = Closed(NORMAL_CLOSURE, "call ended", "polygon")


@functools.cache
def _connection_closed() -> type[ConnectionClosed]:
    """websockets' `ConnectionClosed`, imported once (a call's every frame checks for it; the module
    imports no network library until a call dials)."""
    from websockets.exceptions import ConnectionClosed

    return ConnectionClosed


def _closed_fault(closed: Closed) -> TransportError:
    said = f": {closed.reason}" if closed.reason else ""
    if closed.by == "polygon":
        detail = f"the call's socket is closed (code {closed.code}{said})"
    elif closed.code == NORMAL_CLOSURE:
        detail = f"the bot hung up (code {closed.code}{said})"
    else:
        detail = f"the bot closed the socket mid-call (code {closed.code}{said})"
    return TransportError("closed", detail, code=closed.code, close_reason=closed.reason)


@transport("twilio")
def twilio_transport(options: TransportOptions) -> TwilioTransport:
    """Twilio Media Streams over a WebSocket."""
    return TwilioTransport(options)
