"""One real-time call to a voice bot: the engine's `Agent` and `Line` in one object.

The caller's side is a continuous 20 ms stream (silence between lines, as a phone line is), paced
on absolute deadlines (`PacedSender`). The bot's audio plays at line speed from when it arrives
(a bot may send faster than real time, as Pipecat does); `clear` drops what has not played (the
bot yielded) and a `mark` is answered when the audio before it has played. The bot's speech is
found with the VAD on its audio as it plays; a turn ends after `BOT_TURN_END_MS` of silence and
is heard with Polygon's recogniser (or the bot's own `polygon` transcript of it, when it sends
one). A tool call the bot makes on the stub server is handed to the engine as the turn's tool
step; the engine runs the stub and the result goes back as the HTTP/MCP answer.

What is simplified here (docs/voice.md, part 2): the caller does not barge in, backchannel or say
"hello?" in real time; it speaks when the bot's turn has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polygon_core.conversation import AgentAction, AgentRequest, Delivery, Interjection, Playback, ToolRequest
from polygon_core.models import CascadeSettings, LineConditions, ToolCall
from polygon_core.voice import (
    PHONE_RATE,
    Audio,
    BotAudio,
    BotClear,
    BotMark,
    BotTranscript,
    CallParts,
    CallStart,
    LineEvent,
    Segment,
    Timeline,
    WireError,
    caller_frames,
    caller_voice,
    degrade,
    interaction_metrics,
    stereo_wav,
)

from ..stub_server import StubCall, StubRoute
from ..transports import PacedSender, Transport

__all__ = ["BOT_TURN_END_MS", "SILENT_LIMIT_S", "BotCall", "BotFailure"]

BOT_TURN_END_MS = 900  # the bot's turn has ended after this much silence on its channel
SILENT_LIMIT_S = 15.0  # a bot that says nothing this long after the caller (or the dial) fails the call
_POLL_S = 0.02
_SILENCE = bytes([0xFF]) * 160  # one 20 ms frame of mu-law silence
FRAME_MS = 20


class BotFailure(RuntimeError):
    """The call to the bot failed: `reason` names why (`silent`, or a wire fault such as `closed`)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass
class _Pending:
    call: StubCall
    answer: asyncio.Future[ToolCall]


@dataclass
class BotCall:
    """A real-time call to a bot (see the module docstring). Use `async with`: it dials on entry and
    hangs up on exit."""

    transport: Transport
    url: str
    route: StubRoute | None
    parts: CallParts
    conversation_id: str
    scenario_id: str
    seed: int
    caller_type: str
    language: str
    conditions: LineConditions
    cascade: CascadeSettings = field(default_factory=CascadeSettings)
    rate: int = PHONE_RATE
    _queue: asyncio.Queue[tuple[bytes, asyncio.Event | None, list[float] | None]] = field(init=False)
    _pending: list[_Pending] = field(init=False, default_factory=list)
    _asked: list[_Pending] = field(init=False, default_factory=list)
    _bot_audio: list[tuple[float, Audio]] = field(init=False, default_factory=list)  # (play ms, audio)
    _speech: list[int] = field(init=False, default_factory=list)  # start ms of the bot's speech frames
    _caller_audio: list[tuple[float, Audio]] = field(init=False, default_factory=list)
    _said: list[str] = field(init=False, default_factory=list)  # the bot's own transcripts (role agent)
    segments: list[Segment] = field(init=False, default_factory=list)
    events: list[LineEvent] = field(init=False, default_factory=list)
    _play_end: float = field(init=False, default=0.0)
    _turn_from: float = field(init=False, default=0.0)
    _fault: BaseException | None = field(init=False, default=None)
    _tasks: list[asyncio.Task[Any]] = field(init=False, default_factory=list)
    _t0: float = field(init=False, default=0.0)
    _last_turn: tuple[float, float] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self._queue = asyncio.Queue()
        self._voice = caller_voice(self.caller_type, self.seed, self.conversation_id)
        self._sender = PacedSender(self.transport.send_audio)

    # --- the call ------------------------------------------------------------------------------

    async def __aenter__(self) -> BotCall:
        start = CallStart(conversation_id=self.conversation_id, scenario_id=self.scenario_id,
                          tools_url=self.route.tools_url if self.route else None,
                          mcp_url=self.route.mcp_url if self.route else None)
        try:
            await self.transport.connect(self.url, start)
        except WireError as exc:
            raise BotFailure(exc.reason, str(exc)) from None
        self._t0 = asyncio.get_running_loop().time()
        self._tasks = [asyncio.create_task(self._send_loop()), asyncio.create_task(self._receive_loop())]
        return self

    async def __aexit__(self, *_: object) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.transport.close()
        if self.route is not None:
            self.route.close()

    def _now_ms(self) -> float:
        return (asyncio.get_running_loop().time() - self._t0) * 1000

    async def _send_loop(self) -> None:
        try:
            while True:
                try:
                    frame, done, stamp = self._queue.get_nowait()
                except asyncio.QueueEmpty:
                    frame, done, stamp = _SILENCE, None, None
                sent = await self._sender.send(frame)
                if stamp is not None:
                    stamp.append((sent - self._t0) * 1000)
                if done is not None:
                    done.set()
        except WireError as exc:  # the line is gone: no caller line waits for frames that cannot leave
            self._fault = self._fault or exc
            while not self._queue.empty():
                _frame, done, _stamp = self._queue.get_nowait()
                if done is not None:
                    done.set()

    @property
    def closed(self) -> bool:
        """The line has gone (a fault or the bot's hang-up)."""
        return self._fault is not None

    async def _receive_loop(self) -> None:
        try:
            async for event in self.transport.events():
                if isinstance(event, BotAudio):
                    self._play(event.audio)
                elif isinstance(event, BotClear):
                    self._clear()
                elif isinstance(event, BotMark):
                    self._answer_mark(event.name)
                elif isinstance(event, BotTranscript) and event.role == "agent":
                    self._said.append(event.text)
        except WireError as exc:
            self._fault = exc
            return
        self._fault = BotFailure("hung_up", "the bot closed the line")

    def _play(self, audio: Audio) -> None:
        """The bot's audio plays from when it arrives, after what is already queued."""
        at = max(self._now_ms(), self._play_end)
        self._bot_audio.append((at, audio))
        self._play_end = at + audio.duration_ms
        flags = self.parts.vad.speech_frames(audio)
        step = self.parts.vad.frame_ms
        self._speech += [int(at + i * step) for i, speech in enumerate(flags) if speech]

    def _clear(self) -> None:
        """The bot dropped its unplayed audio: it stops now (a yield on the timeline)."""
        now = self._now_ms()
        if self._play_end <= now:
            return
        kept: list[tuple[float, Audio]] = []
        for at, audio in self._bot_audio:
            if at >= now:
                continue
            played = audio if at + audio.duration_ms <= now else \
                Audio(audio.samples[: int((now - at) * self.rate / 1000)], audio.rate)
            kept.append((at, played))
        self._bot_audio, self._play_end = kept, now
        self._speech = [t for t in self._speech if t < now]
        self.events.append(LineEvent(kind="yield", start_ms=int(now), end_ms=int(now), side="agent",
                                     detail={"cause": "clear"}))

    def _answer_mark(self, name: str) -> None:
        delay = max(0.0, (self._play_end - self._now_ms()) / 1000)
        loop = asyncio.get_running_loop()
        loop.call_later(delay, lambda: self._tasks.append(loop.create_task(self.transport.send_mark(name))))

    # --- tools ---------------------------------------------------------------------------------

    async def on_tool_call(self, call: StubCall) -> ToolCall:
        """The stub server's callback: the call waits for the engine to run the stub."""
        answer: asyncio.Future[ToolCall] = asyncio.get_running_loop().create_future()
        self._pending.append(_Pending(call, answer))
        return await answer

    # --- the engine's Agent --------------------------------------------------------------------

    async def act(self, request: AgentRequest) -> AgentAction:
        """The bot's next step: its tool calls (answered from `request.tool_results` on the next
        step), or its next spoken turn as Polygon heard it."""
        for asked, result in zip(self._asked, request.tool_results, strict=False):
            if not asked.answer.done():
                asked.answer.set_result(result)
        self._asked = []
        waited_from = self._now_ms()
        while True:
            if self._pending:
                self._asked, self._pending = self._pending, []
                return AgentAction(tool_calls=[ToolRequest(name=p.call.tool, arguments=p.call.arguments
                                                           if isinstance(p.call.arguments, dict) else {})
                                               for p in self._asked])
            turn = self._bot_turn()
            if turn is not None:
                return await self._heard(turn)
            if isinstance(self._fault, BotFailure) and self._fault.reason == "hung_up":
                return AgentAction(end="end")  # the bot ended the call: its hang-up, not a fault
            if self._fault is not None:
                fault = self._fault
                raise fault if isinstance(fault, BotFailure) else BotFailure(getattr(fault, "reason", "wire"),
                                                                             str(fault))
            if self._now_ms() - max(waited_from, self._turn_from) > SILENT_LIMIT_S * 1000:
                raise BotFailure("silent", f"the bot said nothing for {SILENT_LIMIT_S:.0f} s")
            await asyncio.sleep(_POLL_S)

    def _bot_turn(self) -> tuple[float, float] | None:
        """The bot's finished turn since the caller's last line: (start, end) ms, once its audio has
        played and `BOT_TURN_END_MS` of silence followed."""
        frames = [t for t in self._speech if t >= self._turn_from]
        if not frames:
            return None
        end = frames[-1] + self.parts.vad.frame_ms
        now = self._now_ms()
        if now - end < BOT_TURN_END_MS or self._play_end > now:
            return None
        return float(frames[0]), float(end)

    async def _heard(self, turn: tuple[float, float]) -> AgentAction:
        start, end = turn
        audio = self._channel(self._bot_audio, start, end)
        own = " ".join(self._said).strip()
        self._said = []
        heard = own or (await asyncio.to_thread(self.parts.agent_ears.transcribe, audio, self.language)).text.strip()
        latency = max(0.0, start - self._turn_from)
        self._turn_from, self._last_turn = end, turn
        return AgentAction(say=heard, latency_ms=latency)

    # --- the engine's Line ---------------------------------------------------------------------

    async def agent_spoke(self, turn: Any) -> Playback:
        """The bot's turn as it played (its times from the bot's audio)."""
        start, end = self._last_turn or (self._turn_from, self._turn_from)
        self.segments.append(Segment(side="agent", start_ms=int(start), end_ms=int(end), text=turn.text,
                                     heard=turn.text, turn=turn.index))
        return Playback(start_ms=int(start), end_ms=int(end), heard=turn.text)

    async def interjections(self, turn: int) -> list[Interjection]:
        """None: room sounds are not played to a bot yet."""
        return []

    async def caller_spoke(self, turn: int, text: str) -> Delivery:
        """Stream the caller's line in real time; what the bot heard is Polygon's transcription of
        the audio as sent."""
        clean = await asyncio.to_thread(self.parts.caller_voice.synthesize, text, self._voice, self.language)
        line, events = await asyncio.to_thread(degrade, clean, self.conditions, conversation_id=self.conversation_id,
                                               turn=turn)
        hearing = asyncio.create_task(asyncio.to_thread(self.parts.agent_ears.transcribe, line, self.language))
        frames = caller_frames(line)
        done, stamp = asyncio.Event(), []  # type: ignore[var-annotated]
        if self.closed:
            done.set()  # nobody listens any more: the line is said into the void
        for i, frame in enumerate(frames):
            last = i == len(frames) - 1
            await self._queue.put((frame, done if last else None, stamp if i == 0 else None))
        while not done.is_set() and not self.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), timeout=0.1)
        start = stamp[0] if stamp else self._now_ms()
        end = start + len(frames) * FRAME_MS
        self._caller_audio.append((start, line))
        for event in events:
            self.events.append(event.model_copy(update={"start_ms": int(start) + event.start_ms,
                                                        "end_ms": int(start) + event.end_ms}))
        heard = (await hearing).text.strip()
        self.segments.append(Segment(side="caller", start_ms=int(start), end_ms=int(end), text=text, heard=heard,
                                     turn=turn))
        self._turn_from = end
        return Delivery(start_ms=int(start), end_ms=int(end), heard=heard)

    # --- results -------------------------------------------------------------------------------

    @property
    def duration_ms(self) -> int:
        ends = [at + a.duration_ms for at, a in self._bot_audio + self._caller_audio] + [0.0]
        return int(max(ends))

    def hang_up(self, detail: str = "") -> None:
        """The caller hung up: an event at the end of the call."""
        end = self.duration_ms
        self.events.append(LineEvent(kind="hangup", start_ms=end, end_ms=end, side="caller",
                                     detail={"reason": detail} if detail else {}))

    def timeline(self) -> Timeline:
        """The call's timeline, on the real clock."""
        return Timeline(conversation_id=self.conversation_id, sample_rate=self.rate, duration_ms=self.duration_ms,
                        conditions=self.conditions,
                        segments=sorted(self.segments, key=lambda s: (s.start_ms, s.side)),
                        events=sorted(self.events, key=lambda e: (e.start_ms, e.kind)))

    def render(self) -> bytes:
        """Stereo WAV at 8 kHz: the caller as sent (left), the bot as it played (right)."""
        n = self.rate * self.duration_ms // 1000 + 1
        return stereo_wav(self._whole(self._caller_audio, n), self._whole(self._bot_audio, n))

    def stack(self) -> dict[str, str]:
        """The engines and the line: the caller's voice, Polygon's ears, the VAD and the bot's URL."""
        return {"caller_voice": f"{self.parts.caller_voice.name}:{self.parts.caller_voice.model}",
                "agent_voice": f"bot:{self.transport.name}",
                "agent_ears": f"{self.parts.agent_ears.name}:{self.parts.agent_ears.model}",
                "vad": f"{self.parts.vad.name}:{self.parts.vad.frame_ms}ms"}

    def metrics(self) -> dict[str, Any]:
        """The interaction metrics of the call so far."""
        return interaction_metrics(self.timeline(), language=self.language)

    def _whole(self, pieces: list[tuple[float, Audio]], n: int) -> Audio:
        out = np.zeros(n, dtype=np.float64)
        for at, audio in pieces:
            first = int(at * self.rate / 1000)
            part = audio.samples[: max(0, n - first)].astype(np.float64)
            out[first:first + len(part)] += part
        return Audio(np.clip(out, -1, 1).astype(np.float32), self.rate)

    def _channel(self, pieces: list[tuple[float, Audio]], start: float, end: float) -> Audio:
        """The channel from `start` to `end` ms: only the pieces that overlap it are laid (each turn
        reads its own stretch, not the whole call again)."""
        first, n = int(self.rate * start / 1000), int(self.rate * (end - start) / 1000) + 1
        out = np.zeros(n, dtype=np.float64)
        for at, audio in pieces:
            offset = int(at * self.rate / 1000) - first
            lo, hi = max(0, -offset), min(len(audio.samples), n - offset)
            if lo < hi:
                out[offset + lo:offset + hi] += audio.samples[lo:hi]
        return Audio(np.clip(out, -1, 1).astype(np.float32), self.rate)
