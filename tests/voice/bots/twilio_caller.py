"""A minimal Twilio Media Streams phone line, written by hand for the bot tests (the `websockets`
library, client side): `connected`, `start` (streamSid, callSid, mediaFormat audio/x-mulaw 8000 Hz,
customParameters), then one `media` frame of 160 mu-law bytes every 20 ms, on absolute deadlines,
carrying queued speech or else silence, and `stop` at the end.

Everything the bot sends is kept with the number of frames the line had sent when it arrived: the
call's own audio timeline (20 ms a frame), which is what the tests measure, never the wall clock.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from polygon_core.voice import Audio, mulaw_encode, phone_line

FRAME_BYTES = 160  # 20 ms of 8 kHz mu-law
FRAME_S = 0.020
SILENCE = mulaw_encode(Audio.silence(20, 8_000))
STREAM_SID = "MZ00000000000000000000000000000001"
CALL_SID = "CA00000000000000000000000000000001"
ACCOUNT_SID = "AC00000000000000000000000000000001"


def speech_frames(audio: Audio) -> list[bytes]:
    """`audio` as a phone line carries it: 8 kHz mu-law in 160-byte frames (the last padded with silence)."""
    data = mulaw_encode(phone_line(audio))
    data += SILENCE[: -len(data) % FRAME_BYTES]
    return [data[i:i + FRAME_BYTES] for i in range(0, len(data), FRAME_BYTES)]


@dataclass
class Received:
    """One message from the bot and the caller's frame count when it arrived."""

    frame: int
    message: dict[str, Any]

    @property
    def event(self) -> str:
        return str(self.message.get("event"))

    @property
    def audio(self) -> bytes:
        """The mu-law bytes of a `media` message (empty for other events)."""
        return base64.b64decode(self.message["media"]["payload"]) if self.event == "media" else b""


@dataclass
class PhoneLine:
    """The caller's end of one call (see `dial`)."""

    ws: ClientConnection
    sent: int = 0                      # media frames sent so far: the call's clock
    received: list[Received] = field(default_factory=list)
    closed_code: int | None = None     # the close code once the bot's side closed
    _queue: deque[bytes] = field(default_factory=deque)
    _tick: asyncio.Condition = field(default_factory=asyncio.Condition)

    def say(self, frames: list[bytes]) -> int:
        """Queue speech after what is queued; returns the frame count at which it will have ended."""
        self._queue.extend(frames)
        return self.sent + len(self._queue)

    def media(self, since: int = 0) -> list[Received]:
        """The bot's `media` messages that arrived at or after frame `since`."""
        return [r for r in self.received if r.event == "media" and r.frame >= since]

    def events(self, event: str) -> list[Received]:
        """The bot's messages of one event type."""
        return [r for r in self.received if r.event == event]

    async def wait(self, done: Callable[[], bool], *, frames: int) -> bool:
        """Wait until `done()` holds, for at most `frames` more frames of the call (or its close)."""
        limit = self.sent + frames
        async with self._tick:
            await self._tick.wait_for(lambda: done() or self.sent >= limit or self.closed_code is not None)
        return done()

    async def wait_quiet(self, quiet: int, *, frames: int) -> bool:
        """Wait until the bot has spoken and then sent no media for `quiet` frames."""
        def quiet_now() -> bool:
            media = self.media()
            return bool(media) and self.sent - media[-1].frame >= quiet
        return await self.wait(quiet_now, frames=frames)

    async def _notify(self) -> None:
        async with self._tick:
            self._tick.notify_all()

    async def _send_frames(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        while self.closed_code is None:
            payload = self._queue.popleft() if self._queue else SILENCE
            self.sent += 1
            try:
                await self.ws.send(json.dumps({
                    "event": "media", "sequenceNumber": str(self.sent + 2), "streamSid": STREAM_SID,
                    "media": {"track": "inbound", "chunk": str(self.sent), "timestamp": str((self.sent - 1) * 20),
                              "payload": base64.b64encode(payload).decode()}}))
            except ConnectionClosed:
                return
            await self._notify()
            # Absolute deadlines: a late frame does not delay the ones after it (no drift).
            await asyncio.sleep(max(0.0, start + self.sent * FRAME_S - loop.time()))

    async def _receive(self) -> None:
        try:
            async for raw in self.ws:
                self.received.append(Received(self.sent, json.loads(raw)))
                await self._notify()
        except ConnectionClosed:
            pass
        self.closed_code = self.ws.close_code if self.ws.close_code is not None else 1006
        await self._notify()


@asynccontextmanager
async def dial(url: str, custom_parameters: dict[str, str] | None = None, *,
               media_format: dict[str, Any] | None = None) -> AsyncIterator[PhoneLine]:
    """Open a call to the bot at `url`: `connected` and `start` (`media_format` replaces the
    phone's), then frames every 20 ms until the block ends, when the line sends `stop` (if the bot
    has not closed) and hangs up."""
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"event": "connected", "protocol": "Call", "version": "1.0.0"}))
        await ws.send(json.dumps({"event": "start", "sequenceNumber": "1", "streamSid": STREAM_SID, "start": {
            "accountSid": ACCOUNT_SID, "streamSid": STREAM_SID, "callSid": CALL_SID, "tracks": ["inbound"],
            "mediaFormat": media_format or {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
            "customParameters": custom_parameters or {}}}))
        line = PhoneLine(ws)
        tasks = [asyncio.create_task(line._receive()), asyncio.create_task(line._send_frames())]
        try:
            yield line
        finally:
            if line.closed_code is None:
                with suppress(ConnectionClosed):
                    await ws.send(json.dumps({"event": "stop", "sequenceNumber": str(line.sent + 2),
                                              "streamSid": STREAM_SID,
                                              "stop": {"accountSid": ACCOUNT_SID, "callSid": CALL_SID}}))
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
