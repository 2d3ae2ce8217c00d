"""A small voice bot speaking Twilio Media Streams on loopback, for the bot-call tests.

It greets, then after each caller line (energy VAD: speech, then 600 ms of silence) looks the
account up through Polygon's stub URL (its first reply) and answers with a canned line in eSpeak's
voice, sent 40 ms a message twice as fast as real time, as Pipecat does. Options make it slow
(`delay_s` before each answer), silent, or drop the socket after `drop_after` answers; after
`turns` answers it hangs up (close 1000).
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np

from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.speech import make_synthesizer
from polygon_core.voice import VoiceProfile, mulaw_decode, mulaw_encode, resample

LINES = ["Hello, this is Northwind billing. How can I help you today?",
         "Thanks. I have found your account and I can see the duplicate charge.",
         "I have passed this to the billing team. Is there anything else?",
         "Thank you for calling. Goodbye."]


@dataclass
class BotOptions:
    turns: int = 3
    delay_s: float = 0.0
    silent: bool = False
    drop_after: int | None = None
    tool_calls: list[Any] = field(default_factory=list)  # (status, body) of each tool call it made


def _speech(text: str) -> bytes:
    audio = make_synthesizer("espeak", PolygonSettings(), "en").synthesize(text, VoiceProfile(variant="f2"), "en")
    return mulaw_encode(resample(audio, 8000))


async def _say(ws: Any, sid: str, mulaw: bytes) -> None:
    for i in range(0, len(mulaw), 320):  # 40 ms a message, every 20 ms
        payload = base64.b64encode(mulaw[i:i + 320]).decode()
        await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
        await asyncio.sleep(0.02)


async def _caller_lines(ws: Any) -> Any:
    """Yields once per caller line: speech frames, then 30 frames (600 ms) of silence."""
    speaking, quiet = False, 0
    async for message in ws:
        data = json.loads(message)
        if data.get("event") != "media":
            continue
        samples = mulaw_decode(base64.b64decode(data["media"]["payload"]), 8000).samples
        loud = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) > 0.02
        if loud:
            speaking, quiet = True, 0
        elif speaking:
            quiet += 1
            if quiet >= 30:
                speaking, quiet = False, 0
                yield


def handler(options: BotOptions) -> Any:
    async def handle(ws: Any) -> None:
        start: dict[str, Any] = {}
        async for message in ws:
            data = json.loads(message)
            if data.get("event") == "start":
                start = data
                break
        sid = start["streamSid"]
        tools_url = start["start"]["customParameters"]["tools_url"]
        if not options.silent:
            await _say(ws, sid, _speech(LINES[0]))
        answers = 0
        async for _ in _caller_lines(ws):
            if options.silent:
                continue
            if answers == 0:
                async with httpx.AsyncClient() as client:
                    got = await client.post(f"{tools_url}/lookup_account",
                                            json={"account_id": "4821", "postcode": "SW1A 2AA"})
                options.tool_calls.append((got.status_code, got.json()))
            answers += 1
            if options.drop_after is not None and answers > options.drop_after:
                ws.transport.abort()  # no close frame: the line drops (1006)
                return
            await asyncio.sleep(options.delay_s)
            await _say(ws, sid, _speech(LINES[min(answers, len(LINES) - 1)]))
            if answers >= options.turns:
                await asyncio.sleep(1.5)
                await ws.close(1000)
                return

    return handle


class ScriptedBot:
    """The bot served on a loopback port from a thread of its own (`url` once started)."""

    def __init__(self, options: BotOptions) -> None:
        self.options = options
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import websockets

        async def main() -> None:
            async with websockets.serve(handler(self.options), "127.0.0.1", 0) as server:
                port = next(iter(server.sockets)).getsockname()[1]
                self.url = f"ws://127.0.0.1:{port}"
                self._ready.set()
                self._stop = asyncio.Event()
                await self._stop.wait()

        self._loop.run_until_complete(main())

    def __enter__(self) -> ScriptedBot:
        self._thread.start()
        self._ready.wait()
        return self

    def __exit__(self, *_: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()
