"""The `twilio` transport against a local `websockets` server on loopback that plays a recorded bot
(tests/voice/fixtures/twilio/bot_call.json), and every way the line fails, each with its named
fault; the paced sender on a fake clock (absolute deadlines: no drift, late frames counted)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from polygon_core.adapters.transports import (
    FRAME_PERIOD_S,
    Cadence,
    Closed,
    FrameTimes,
    PacedSender,
    Transport,
    TransportConfigError,
    TransportError,
    TransportOptions,
    TwilioTransport,
    cadence,
    check_url,
    frame_deadline,
    make_transport,
    transport_names,
)
from polygon_core.voice import (
    SILENT_FRAME,
    BotAudio,
    BotEvent,
    CallerConnected,
    CallerMark,
    CallerMedia,
    CallerMessage,
    CallerStart,
    CallerStop,
    CallStart,
    ProtocolError,
    TwilioStream,
    parse_bot_message,
    parse_caller_message,
)

BOT_CALL = json.loads((Path(__file__).parent / "fixtures" / "twilio" / "bot_call.json").read_text(encoding="utf-8"))
START = CallStart("conv-1", "billing-dispute", tools_url="http://127.0.0.1:8765/calls/conv-1/tools",
                  mcp_url="http://127.0.0.1:8765/calls/conv-1/mcp")
STREAM = TwilioStream.for_call(START)
GUARD_S = 10  # how long a test waits for the server before it fails (never asserted on)
FRAMES = [SILENT_FRAME, bytes(range(160)), bytes(range(160, 256)) + bytes(64)]


class Bot:
    """A recorded bot: what it received (parsed) and a signal once `stop` came."""

    def __init__(self) -> None:
        self.received: list[CallerMessage] = []
        self.stopped = asyncio.Event()

    async def read(self, ws: ServerConnection, count: int) -> None:
        for _ in range(count):
            message = parse_caller_message(await ws.recv())
            self.received.append(message)
            if isinstance(message, CallerStop):
                self.stopped.set()

    async def read_until_stop(self, ws: ServerConnection) -> None:
        while not self.stopped.is_set():
            await self.read(ws, 1)


Play = Callable[[ServerConnection, Bot], Awaitable[None]]


@asynccontextmanager
async def bot_on_loopback(play: Play, *, tls: ssl.SSLContext | None = None,
                          process_request: Any = None) -> AsyncIterator[tuple[str, Bot]]:
    bot = Bot()

    async def handler(ws: ServerConnection) -> None:
        await play(ws, bot)

    async with serve(handler, "127.0.0.1", 0, ssl=tls, process_request=process_request) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"{'wss' if tls else 'ws'}://127.0.0.1:{port}/call", bot


def _recorded() -> list[str]:
    return [line["text"] for line in BOT_CALL["frames"]]


async def _play_the_recording(ws: ServerConnection, bot: Bot) -> None:
    await bot.read(ws, 2)  # connected, start
    for text in _recorded():
        await ws.send(text)
    await bot.read_until_stop(ws)


async def _take(transport: Transport, count: int) -> list[BotEvent]:
    events: list[BotEvent] = []
    while len(events) < count:
        event = await transport.receive(timeout=GUARD_S)
        assert event is not None
        events.append(event)
    return events


# -- a call --------------------------------------------------------------------------------------------

async def test_a_call_plays_over_loopback_as_recorded() -> None:
    async with bot_on_loopback(_play_the_recording) as (url, bot):
        line = make_transport("twilio")
        await line.connect(url, START)
        for frame in FRAMES:
            await line.send_audio(frame)
        await line.send_mark("turn-1-end")
        events = await _take(line, len(BOT_CALL["frames"]))
        await line.close()
        await asyncio.wait_for(bot.stopped.wait(), GUARD_S)
    assert events == [parse_bot_message(text) for text in _recorded()]
    assert bot.received == [
        CallerConnected("Call", "1.0.0"), CallerStart(STREAM, ("inbound",), 1),
        *(CallerMedia(frame, chunk=i + 1, timestamp_ms=20 * i, sequence=i + 2) for i, frame in enumerate(FRAMES)),
        CallerMark("turn-1-end", 5), CallerStop(6)]
    assert (line.received, line.last_received_at is not None, line.closed) == (
        10, True, Closed(1000, "call ended", "polygon"))
    await line.close()  # twice: nothing more happens
    assert line.closed == Closed(1000, "call ended", "polygon")


async def test_events_iterate_until_the_bot_hangs_up_cleanly() -> None:
    async def hang_up(ws: ServerConnection, bot: Bot) -> None:
        await bot.read(ws, 2)
        await ws.send(_recorded()[0])
        await ws.close(1000, "goodbye")

    async with bot_on_loopback(hang_up) as (url, _):
        line = TwilioTransport()
        await line.connect(url, START)
        events = [event async for event in line.events()]
        with pytest.raises(TransportError) as raised:
            await line.send_audio(SILENT_FRAME)
        await line.close()
    assert [type(e) for e in events] == [BotAudio]
    assert line.closed == Closed(1000, "goodbye", "bot")  # Polygon's close does not rewrite the bot's
    assert (raised.value.reason, raised.value.detail, raised.value.code) == (
        "closed", "the bot hung up (code 1000: goodbye)", 1000)


async def test_a_silent_bot_times_out_the_callers_wait_and_loses_nothing() -> None:
    async def silent_until_marked(ws: ServerConnection, bot: Bot) -> None:
        await bot.read(ws, 3)  # connected, start, and the caller's mark
        await ws.send(_recorded()[0])
        await bot.read_until_stop(ws)

    async with bot_on_loopback(silent_until_marked) as (url, _):
        line = TwilioTransport()
        await line.connect(url, START)
        with pytest.raises(TimeoutError):
            await line.receive(timeout=0.05)
        silent = (line.received, line.last_received_at)
        await line.send_mark("are-you-there")
        event = await line.receive(timeout=GUARD_S)
        await line.close()
    assert (silent, line.received, event) == ((0, None), 1, parse_bot_message(_recorded()[0]))


# -- faults --------------------------------------------------------------------------------------------

def _close_with(code: int, reason: str) -> Play:
    async def play(ws: ServerConnection, bot: Bot) -> None:
        await bot.read(ws, 2)
        await ws.send(_recorded()[0])
        await ws.send(_recorded()[1])
        await ws.close(code, reason)
    return play


async def test_a_bot_that_closes_mid_call_is_closed_with_its_code_and_reason() -> None:
    async with bot_on_loopback(_close_with(1011, "pipeline crashed")) as (url, _):
        line = TwilioTransport()
        await line.connect(url, START)
        events: list[BotEvent] = []
        with pytest.raises(TransportError) as raised:
            async for event in line.events():
                events.append(event)
        with pytest.raises(TransportError) as sending:
            await line.send_audio(SILENT_FRAME)
        await line.close()
    assert [type(e) for e in events] == [BotAudio, BotAudio]
    error = raised.value
    assert (error.reason, error.code, error.close_reason, str(error)) == (
        "closed", 1011, "pipeline crashed", "closed: the bot closed the socket mid-call (code 1011: pipeline crashed)")
    assert (sending.value.reason, sending.value.code) == ("closed", 1011)
    assert line.closed == Closed(1011, "pipeline crashed", "bot")


async def test_a_dropped_connection_is_closed_with_code_1006() -> None:
    async def drop(ws: ServerConnection, bot: Bot) -> None:
        await bot.read(ws, 2)
        await ws.send(_recorded()[0])
        await bot.read(ws, 1)  # the caller's mark: the frame arrived
        ws.transport.abort()  # no close frame: the TCP connection just ends

    async with bot_on_loopback(drop) as (url, _):
        line = TwilioTransport()
        await line.connect(url, START)
        events = await _take(line, 1)
        await line.send_mark("heard-it")
        with pytest.raises(TransportError) as raised:
            async for event in line.events():
                events.append(event)
        await line.close()
    assert (len(events), raised.value.reason, raised.value.code, raised.value.detail) == (
        1, "closed", 1006, "the bot closed the socket mid-call (code 1006)")
    assert line.closed == Closed(1006, "", "bot")


@pytest.mark.parametrize(("garbage", "reason"), [("hello bot", "not_json"), (b"\x00\xff", "binary_frame"),
                                                 ('{"event": "media", "media": {}}', "malformed"),
                                                 ('{"event": "start", "start": {"mediaFormat": {"encoding": '
                                                  '"audio/l16", "sampleRate": 16000, "channels": 1}}}', "wrong_codec")])
async def test_garbage_from_the_bot_is_a_named_protocol_fault(garbage: str | bytes, reason: str) -> None:
    async def send_garbage(ws: ServerConnection, bot: Bot) -> None:
        await bot.read(ws, 2)
        await ws.send(garbage)
        await bot.read_until_stop(ws)

    async with bot_on_loopback(send_garbage) as (url, bot):
        line = TwilioTransport()
        await line.connect(url, START)
        with pytest.raises(ProtocolError) as raised:
            await line.receive(timeout=GUARD_S)
        await line.close()
        await asyncio.wait_for(bot.stopped.wait(), GUARD_S)
    assert (raised.value.reason, line.received, line.closed) == (reason, 1, Closed(1000, "call ended", "polygon"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again: nothing listens there


async def test_a_url_that_refuses_is_refused() -> None:
    url = f"ws://127.0.0.1:{_free_port()}/call"
    with pytest.raises(TransportError) as raised:
        await TwilioTransport().connect(url, START)
    assert (raised.value.reason, raised.value.detail) == (
        "refused", f"{url}: connection refused (is the bot listening on that port?)")


async def test_a_server_that_refuses_the_upgrade_is_a_handshake_fault() -> None:
    def forbid(ws: ServerConnection, request: Request) -> Response:
        return ws.respond(HTTPStatus.FORBIDDEN, "no calls today\n")

    async with bot_on_loopback(_play_the_recording, process_request=forbid) as (url, _):
        with pytest.raises(TransportError) as raised:
            await TwilioTransport().connect(url, START)
    assert (raised.value.reason, raised.value.detail) == ("handshake", f"{url}: HTTP 403 instead of a WebSocket upgrade")


async def test_a_server_that_never_answers_the_handshake_times_out() -> None:
    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts the TCP connection, says nothing

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/call"
    try:
        with pytest.raises(TransportError) as raised:
            await TwilioTransport(TransportOptions(open_timeout_s=0.1)).connect(url, START)
    finally:
        server.close()
    assert (raised.value.reason, raised.value.detail) == ("timeout", f"{url}: no WebSocket handshake in time")


# -- TLS -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by itself, and its key (PEM files)."""
    crypto = pytest.importorskip("cryptography")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "polygon test bot")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    return folder / "cert.pem", folder / "key.pem"


def _server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


async def test_wss_with_an_untrusted_certificate_is_a_tls_fault_and_trusted_it_connects(
        self_signed: tuple[Path, Path]) -> None:
    cert, key = self_signed
    async with bot_on_loopback(_play_the_recording, tls=_server_tls(cert, key)) as (url, bot):
        with pytest.raises(TransportError) as raised:
            await TwilioTransport().connect(url, START)  # the system's trust store does not know it
        line = TwilioTransport(TransportOptions(ca_file=str(cert)))
        await line.connect(url, START)
        events = await _take(line, 1)
        await line.close()
        await asyncio.wait_for(bot.stopped.wait(), GUARD_S)
    assert (raised.value.reason, raised.value.detail.startswith(f"{url}: TLS handshake failed (")) == ("tls", True)
    assert "certificate" in raised.value.detail  # OpenSSL's words: "self-signed certificate"
    assert (events, bot.received[1]) == ([parse_bot_message(_recorded()[0])], CallerStart(STREAM, ("inbound",), 1))


async def test_wss_to_a_plain_socket_is_a_handshake_fault_that_says_so() -> None:
    async with bot_on_loopback(_play_the_recording) as (url, _):
        secure = url.replace("ws://", "wss://")
        with pytest.raises(TransportError) as raised:
            await TwilioTransport().connect(secure, START)
    assert (raised.value.reason, raised.value.detail) == (
        "handshake", f"{secure}: the server cut the connection during the opening handshake "
                     "(a plain ws:// server behind a wss:// URL?)")


# -- configuration -------------------------------------------------------------------------------------

def test_transports_are_registered_by_name() -> None:
    assert transport_names() == ("twilio",)
    line = make_transport("twilio", TransportOptions(open_timeout_s=3))
    assert (isinstance(line, Transport), isinstance(line, TwilioTransport), line.name) == (True, True, "twilio")
    with pytest.raises(TransportConfigError) as raised:
        make_transport("telnyx")
    assert str(raised.value) == "unknown voice transport 'telnyx'; expected one of twilio"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/call", "127.0.0.1:8000", "ws:///call", "ws://bot:80a/call"])
def test_a_url_that_is_not_a_websocket_is_bad_input(url: str) -> None:
    with pytest.raises(TransportConfigError) as raised:
        check_url(url)
    assert str(raised.value) == f"voice bot URL {url!r}: expected ws://host[:port]/path or wss://host[:port]/path"
    assert isinstance(raised.value, ValueError)  # the user's input: the CLI's one line and exit 2


async def test_an_unreadable_ca_file_is_bad_input(tmp_path: Path) -> None:
    missing = tmp_path / "none.pem"
    with pytest.raises(TransportConfigError) as raised:
        await TwilioTransport(TransportOptions(ca_file=str(missing))).connect("wss://127.0.0.1:1/call", START)
    assert str(raised.value).startswith(f"voice bot CA file {str(missing)!r}: cannot be read as PEM certificates")


# -- pacing --------------------------------------------------------------------------------------------

class FakeClock:
    """A clock that moves only when the sender sleeps (by `overshoot_s` more than asked, as a loaded
    event loop wakes late) or when a send takes time (`send_takes_s` for chosen frames)."""

    def __init__(self, now: float = 100.0, overshoot_s: float = 0.0) -> None:
        self.now, self.overshoot_s = now, overshoot_s
        self.send_takes_s: dict[int, float] = {}
        self.sent: list[bytes] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.now += delay + self.overshoot_s

    async def send(self, frame: bytes) -> None:
        self.now += self.send_takes_s.get(len(self.sent), 0.0)
        self.sent.append(frame)


async def test_ten_minutes_of_frames_keep_their_deadlines_without_drift() -> None:
    clock = FakeClock(overshoot_s=0.0007)  # every wake-up 0.7 ms late
    sender = PacedSender(clock.send, clock=clock.time, sleep=clock.sleep)
    frames = 10 * 60 * 50
    await sender.send_all([SILENT_FRAME] * frames)
    times = sender.times
    assert times is not None and (len(clock.sent), sender.sent, times.start) == (frames, frames, 100.0)
    lateness = times.lateness_s()
    # The last frame left 0.7 ms after its deadline, like the first: nothing accumulated.
    assert (float(lateness[1]), float(lateness[-1])) == (pytest.approx(0.0007, abs=1e-9),
                                                         pytest.approx(0.0007, abs=1e-9))
    assert times.sent[-1] == pytest.approx(100.0 + (frames - 1) * 0.02 + 0.0007, abs=1e-9)
    assert (times.late(), sender.next_deadline()) == (0, frame_deadline(100.0, frames))


async def test_a_stall_makes_frames_late_until_the_deadlines_catch_up() -> None:
    clock = FakeClock()
    clock.send_takes_s[10] = 0.07  # frame 10's send blocks for 70 ms (a socket pushing back)
    sender = PacedSender(clock.send, clock=clock.time, sleep=clock.sleep, start=100.0)
    await sender.send_all([SILENT_FRAME] * 20)
    assert sender.times is not None
    lateness_ms = [round(float(x) * 1000, 6) for x in sender.times.lateness_s()]
    # 10 left at 270 ms (due 200), 11 and 12 went at once (due 220, 240), 13 too (due 260); 14 waited.
    assert lateness_ms == [0.0] * 10 + [70.0, 50.0, 30.0, 10.0] + [0.0] * 6
    assert (sender.times.late(), [round(d - 100.0, 6) for d in
                                  (sender.times.deadline(13), sender.times.deadline(14))]) == (3, [0.26, 0.28])
    summary = cadence([sender.times])
    assert (summary.frames, summary.late, summary.lateness_max_ms) == (20, 3, pytest.approx(70.0))


def test_cadence_pools_streams_and_measures_gaps() -> None:
    steady = FrameTimes(start=0.0)
    steady.sent.extend([0.0, 0.02, 0.04, 0.06])
    shaky = FrameTimes(start=10.0)
    shaky.sent.extend([10.001, 10.025, 10.040, 10.0605])  # lateness 1, 5, 0, 0.5 ms; gaps 24, 15, 20.5 ms
    summary = cadence([steady, shaky])
    assert summary == Cadence(frames=8, late=0, lateness_p50_ms=pytest.approx(0.0, abs=1e-9),
                              lateness_p99_ms=pytest.approx(4.72, abs=1e-6), lateness_max_ms=pytest.approx(5.0),
                              jitter_p50_ms=pytest.approx(0.25, abs=1e-6), jitter_p99_ms=pytest.approx(4.95, abs=1e-6))
    assert cadence([]) == Cadence(0, 0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert FRAME_PERIOD_S == 0.02


async def test_paced_frames_reach_a_bot_in_order_on_the_real_loop() -> None:
    async with bot_on_loopback(_play_the_recording) as (url, bot):
        line = TwilioTransport()
        await line.connect(url, START)
        sender = PacedSender(line.send_audio)
        await sender.send_all(FRAMES)
        await line.close()
        await asyncio.wait_for(bot.stopped.wait(), GUARD_S)
    media = [m for m in bot.received if isinstance(m, CallerMedia)]
    assert [(m.chunk, m.timestamp_ms, m.mulaw) for m in media] == [(i + 1, 20 * i, f) for i, f in enumerate(FRAMES)]
    assert sender.times is not None and len(sender.times.sent) == 3


# -- a bot that never ends the call --------------------------------------------------------------------

_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


async def test_a_bot_that_never_answers_the_stop_or_the_close_is_cut_off_after_the_close_timeout() -> None:
    """A bot that takes the call, then ignores everything, `stop` and the closing handshake included
    (a raw socket: a `websockets` server would answer the close by itself). Polygon's hang-up still
    ends: the socket is cut after `close_timeout_s`, and the call counts as ended by Polygon."""
    import base64
    import hashlib

    swallowed: list[int] = []

    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        key = next(line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + _WS_GUID.encode()).digest())
        writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        await writer.drain()
        while chunk := await reader.read(4096):  # connected, start, stop, the close frame: all ignored
            swallowed.append(len(chunk))

    server = await asyncio.start_server(deaf, "127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/call"
    try:
        line = TwilioTransport(TransportOptions(close_timeout_s=0.1))
        await line.connect(url, START)
        await line.send_audio(SILENT_FRAME)
        await asyncio.wait_for(line.close(), GUARD_S)  # a hang guard: close must not wait for the bot
        events = [event async for event in line.events()]
    finally:
        server.close()
    assert line.closed == Closed(1000, "call ended", "polygon")
    assert events == []
    assert sum(swallowed) > 0  # the bot did get the frames it ignored
