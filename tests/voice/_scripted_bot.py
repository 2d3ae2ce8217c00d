"""A small voice bot speaking Twilio Media Streams on loopback, for the bot-call tests.

It greets, then after each caller line (energy VAD: speech, then 600 ms of silence) looks the
account up through Polygon's stub URL (its first reply) and answers with a canned line in eSpeak's
voice, sent 40 ms a message twice as fast as real time, as Pipecat does. It hears the caller while
it talks. Options make it slow (`delay_s` before each answer), silent, drop the socket after
`drop_after` answers, yield (send `clear` and stop when the caller talks over it), say its own
lines, send its own transcripts (of its lines, and `heard`: what it says it heard of each caller
line, on hearing it or, with `heard_late`, after its answer), or ignore short speech (`min_line_ms`);
after `turns` answers it hangs up (close 1000) once its last line has played.
"""

from __future__ import annotations

import asyncio
import base64
import functools
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
    lines: list[str] = field(default_factory=lambda: list(LINES))  # greeting, then its answers
    yields: bool = False  # send `clear` and stop when the caller talks over it
    use_tools: bool = True  # look the account up before its first answer
    transcripts: bool = False  # send its own `agent` transcript before each line
    heard: list[str] = field(default_factory=list)  # its `user` transcript of each caller line, sent on hearing it
    heard_late: bool = False  # send that transcript only once its answer has played, not on hearing the line
    min_line_ms: int = 0  # shorter caller speech ("mm-hmm", "hello?") is not a line to answer
    cleared: list[float] = field(default_factory=list)  # when it sent `clear` (its loop's clock)


REPLY_GAP_S = 1.0  # a pause longer than a bot turn's end (BOT_TURN_END_MS, 0.9 s)


@functools.lru_cache(maxsize=64)
def _speech(text: str) -> bytes:
    audio = make_synthesizer("espeak", PolygonSettings(), "en").synthesize(text, VoiceProfile(variant="f2"), "en")
    return mulaw_encode(resample(audio, 8000))


async def _say(ws: Any, sid: str, mulaw: bytes) -> None:
    for i in range(0, len(mulaw), 320):  # 40 ms a message, every 20 ms
        payload = base64.b64encode(mulaw[i:i + 320]).decode()
        await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
        await asyncio.sleep(0.02)


def _loud(payload: str) -> bool:
    samples = mulaw_decode(base64.b64decode(payload), 8000).samples
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) > 0.02


class _Bot:
    """One call: a reader that hears the caller's lines (and, for a yielding bot, stops talking
    when the caller talks over it: 10 loud frames while its audio plays), and the bot's turns."""

    def __init__(self, ws: Any, sid: str, options: BotOptions) -> None:
        self.ws, self.sid, self.options = ws, sid, options
        self.lines: asyncio.Queue[None] = asyncio.Queue()
        self.until = 0.0  # when its audio sent so far has played (its loop's clock)
        self.talking: asyncio.Task[None] | None = None

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def read(self) -> None:
        """Caller lines: speech, then 30 frames (600 ms) of silence."""
        loud_frames, quiet = 0, 0
        async for message in self.ws:
            data = json.loads(message)
            if data.get("event") != "media":
                continue
            if _loud(data["media"]["payload"]):
                loud_frames, quiet = loud_frames + 1, 0
                if loud_frames >= 10 and self.options.yields and self.now() < self.until:
                    await self.stop()
            elif loud_frames:
                quiet += 1
                if quiet >= 30:
                    if loud_frames * 20 >= self.options.min_line_ms:
                        self.lines.put_nowait(None)
                    loud_frames, quiet = 0, 0

    async def stop(self) -> None:
        if self.talking is not None:
            self.talking.cancel()
        self.until = self.now()
        self.options.cleared.append(self.now())
        await self.ws.send(json.dumps({"event": "clear", "streamSid": self.sid}))

    async def tell_heard(self, text: str) -> None:
        """Its own transcript of the caller's line (a `user` side message)."""
        await self.ws.send(json.dumps({"event": "polygon", "streamSid": self.sid,
                                       "polygon": {"type": "transcript", "role": "user", "text": text}}))

    async def say(self, text: str) -> None:
        if self.options.transcripts:
            await self.ws.send(json.dumps({"event": "polygon", "streamSid": self.sid,
                                           "polygon": {"type": "transcript", "role": "agent", "text": text}}))
        mulaw = _speech(text)
        self.until = max(self.now(), self.until) + len(mulaw) / 8000
        self.talking = asyncio.create_task(_say(self.ws, self.sid, mulaw))
        await asyncio.wait([self.talking])


def handler(options: BotOptions) -> Any:
    async def handle(ws: Any) -> None:
        start: dict[str, Any] = {}
        async for message in ws:
            data = json.loads(message)
            if data.get("event") == "start":
                start = data
                break
        bot = _Bot(ws, start["streamSid"], options)
        reader = asyncio.create_task(bot.read())
        talker = asyncio.create_task(converse(bot, start["start"]["customParameters"].get("tools_url")))
        await asyncio.wait([reader, talker], return_when=asyncio.FIRST_COMPLETED)  # the reader ends with the line
        for task in (reader, talker):
            task.cancel()
        await asyncio.gather(reader, talker, return_exceptions=True)

    async def converse(bot: _Bot, tools_url: str | None) -> None:
        lines = options.lines
        if not options.silent:
            await bot.say(lines[0])
        answers = heard = 0
        while True:
            await bot.lines.get()
            told = options.heard[heard] if heard < len(options.heard) else None
            heard += 1
            if told is not None and not options.heard_late:
                await bot.tell_heard(told)
            if options.silent:
                continue
            if answers == 0 and options.use_tools:
                async with httpx.AsyncClient() as client:
                    got = await client.post(f"{tools_url}/lookup_account",
                                            json={"account_id": "4821", "postcode": "SW1A 2AA"})
                options.tool_calls.append((got.status_code, got.json()))
            answers += 1
            if options.drop_after is not None and answers > options.drop_after:
                bot.ws.transport.abort()  # no close frame: the line drops (1006)
                return
            if bot.until > bot.now():
                # Still talking (it does not yield): it finishes, pauses and then answers, as a
                # pipeline that queued its reply would. Queued straight behind the playing audio,
                # the answer ran on without a gap and, on a loaded machine, read as the same turn.
                await asyncio.sleep(bot.until - bot.now() + REPLY_GAP_S)
            await asyncio.sleep(options.delay_s)
            await bot.say(lines[min(answers, len(lines) - 1)])
            if told is not None and options.heard_late:
                await bot.tell_heard(told)
            if answers >= options.turns:
                await asyncio.sleep(max(0.0, bot.until - bot.now()) + 1.5)
                await bot.ws.close(1000)
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

        for line in self.options.lines:  # made before the line opens: the first synthesis loads eSpeak
            _speech(line)

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
