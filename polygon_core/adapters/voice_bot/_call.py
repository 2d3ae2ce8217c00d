"""One real-time call to a voice bot: the engine's `Agent` and `Line` in one object.

The caller's side is a continuous 20 ms stream (silence between lines, as a phone line is), paced
on absolute deadlines (`PacedSender`). The bot's audio plays at line speed from when it arrives
(a bot may send faster than real time, as Pipecat does); `clear` drops what has not played (the
bot yielded) and a `mark` is answered when the audio before it has played. The bot's speech is
found with the VAD on its audio as it plays; a turn ends after `BOT_TURN_END_MS` of silence and
is heard with Polygon's recogniser (or the bot's own `polygon` transcript of it, when it sends
one). What the bot heard of a caller line is its own `user` transcript of it when it sends one in
the line's window (`_bot_heard`), else Polygon's transcription of the line as sent. A tool call the bot makes on the stub server is handed to the engine as the turn's tool
step; the engine runs the stub and the result goes back as the HTTP/MCP answer.

The caller reacts to the bot's audio as it plays, with its type's habits (`CallerHabits`, as on the
simulated clock; `_turn_taking` has the rules and the seeded draws):

* it talks over a bot turn (`barge_in_p`) once the turn has played 2.0-3.0 s: `act` returns the
  turn early with the words that played so far, the turn is `interrupted`, a `barge_in` event marks
  the caller's start, and its next line streams at once over the bot's audio. A bot that sends
  `clear` yielded (a `yield` event); one that talks on does not, and its audio keeps playing;
* it backchannels (`backchannel_p`) 3.0-4.0 s into a bot turn that is still playing;
* it says "hello?" once per wait when the bot has been silent `hello_after_ms` after its line;
  a bot silent `SILENT_LIMIT_S` fails the call (`silent`): that replaces the habits' hang-up;
* a normal line starts no earlier than the bot's speech end + its reaction pause.

The bot's segments on the timeline are its channel's speech as it played (`agent_segments`), so they
end where the bot really stopped, and the metrics are measured on the real clock.

Many calls share one event loop, so a call keeps no object per message the bot sends (`BotChannel`
keeps its audio as bytes), and a caller line is resampled and cut into frames in a worker thread.
`frame_times`, `frames_sent` and `stop_sending` let a benchmark measure and end the caller's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from polygon_core.conversation import AgentAction, AgentRequest, Delivery, Interjection, Playback, ToolRequest
from polygon_core.models import CascadeSettings, LineConditions, ToolCall
from polygon_core.voice import (
    PHONE_RATE,
    Audio,
    BotAudio,
    BotClear,
    BotMark,
    BotTranscript,
    CallerHabits,
    CallParts,
    CallStart,
    LineEvent,
    Segment,
    SegmentKind,
    Timeline,
    WireError,
    caller_frames,
    caller_habits,
    caller_voice,
    degrade,
    hello_line,
    interaction_metrics,
    resample,
    stereo_wav,
    words_before,
)

from ..stub_server import StubCall, StubRoute
from ..transports import FrameTimes, PacedSender, Transport
from ._channel import BotChannel, lay
from ._turn_taking import SpokenTurn, TurnPlan, agent_segments, reaction_ms, turn_plan

__all__ = ["BOT_TURN_END_MS", "HEARD_WAIT_MS", "SILENT_LIMIT_S", "BotCall", "BotFailure"]

BOT_TURN_END_MS = 900  # the bot's turn has ended after this much silence on its channel
# How long after a caller line's end Polygon waits for the bot's own `user` transcript of it, at most
# (the wait ends sooner when the bot starts answering: it has heard the line by then). The Pipecat
# example's transcript came 1.8 s after the line on a loaded 2-core machine, 3.9 s at a load of 13.
HEARD_WAIT_MS = 5000
SILENT_LIMIT_S = 15.0  # a bot silent this long after the caller (or the dial, or its own speech) fails the call
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
class _Outgoing:
    """A caller line queued for the send loop: its 20 ms frames, `done` once the last has left (or
    the stream has ended), and when the first left (ms on the call's clock)."""

    frames: list[bytes]
    done: asyncio.Event = field(default_factory=asyncio.Event)
    start_ms: float | None = None


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
    habits: CallerHabits | None = None  # the caller type's habits unless given (tests)
    _queue: asyncio.Queue[_Outgoing] = field(init=False)
    _send_limit: float = field(init=False, default=float("inf"))  # the send loop stops after this many frames
    _stream_ended: bool = field(init=False, default=False)  # the send loop has stopped: no frame leaves any more
    _line: _Outgoing | None = field(init=False, default=None)  # the caller line being sent
    _pending: list[_Pending] = field(init=False, default_factory=list)
    _asked: list[_Pending] = field(init=False, default_factory=list)
    _caller_audio: list[tuple[float, Audio]] = field(init=False, default_factory=list)
    _said: list[str] = field(init=False, default_factory=list)  # the bot's own transcripts (role agent)
    # The bot's transcripts of the caller (role user) since the caller's current line started: (arrival ms, text)
    _user_said: list[tuple[float, str]] = field(init=False, default_factory=list)
    segments: list[Segment] = field(init=False, default_factory=list)  # the caller's; the bot's: timeline()
    events: list[LineEvent] = field(init=False, default_factory=list)
    _turn_from: float = field(init=False, default=0.0)
    _fault: BaseException | None = field(init=False, default=None)
    _tasks: list[asyncio.Task[Any]] = field(init=False, default_factory=list)
    _t0: float = field(init=False, default=0.0)
    _last_turn: tuple[float, float] | None = field(init=False, default=None)  # this turn's speech, ms
    _last_heard: str = field(init=False, default="")
    _spoken: list[SpokenTurn] = field(init=False, default_factory=list)
    _barged_at: float | None = field(init=False, default=None)  # the caller talks over the bot from here
    _caller_busy: bool = field(init=False, default=False)  # a barging line is pending or streaming
    _nodded: set[int] = field(init=False, default_factory=set)  # turns the caller backchannelled in
    _helloed: bool = field(init=False, default=False)  # "hello?" said in this wait
    _asides: list[asyncio.Task[None]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self._queue = asyncio.Queue()
        self._bot = BotChannel(self.parts.vad, self.rate)
        self._habits = self.habits or caller_habits(self.caller_type)
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
        if self._asides:  # a backchannel or "hello?" still on its way out is kept on the timeline
            await asyncio.wait(self._asides, timeout=3.0)
        tasks = self._tasks + self._asides
        for task in tasks:
            task.cancel()
        if tasks:  # not `await task` under suppress(CancelledError): that would swallow a cancel of the caller's own
            await asyncio.wait(tasks)
        for task in tasks:
            if not task.cancelled():
                task.exception()  # retrieved: a loop's wire fault is the call's `fault` already
        with contextlib.suppress(Exception):
            await self.transport.close()
        if self.route is not None:
            self.route.close()

    def _now_ms(self) -> float:
        return (asyncio.get_running_loop().time() - self._t0) * 1000

    async def _send_loop(self) -> None:
        """The caller's continuous stream: the queued lines' frames, silence between them."""
        i = 0
        try:
            while self._sender.sent < self._send_limit:
                if self._line is None and not self._queue.empty():
                    self._line, i = self._queue.get_nowait(), 0
                line = self._line
                sent = await self._sender.send(line.frames[i] if line is not None else _SILENCE)
                if line is not None:
                    if i == 0:
                        line.start_ms = (sent - self._t0) * 1000
                    i += 1
                    if i == len(line.frames):
                        line.done.set()
                        self._line = None
        except WireError as exc:
            self._fault = self._fault or exc
        finally:
            self._stream_ended = True
            self._release_lines()

    def _release_lines(self) -> None:
        """The stream has ended or the line has gone: no caller line waits for frames any more."""
        if self._line is not None:
            self._line.done.set()
        while not self._queue.empty():
            self._queue.get_nowait().done.set()

    async def stop_sending(self, after: int | None = None) -> None:
        """End the caller's stream after `after` frames in all (`frames_sent`), or after the frame on
        its way now; returns once the send loop has stopped. A line not yet sent is said into the
        void. The line stays open: the bot's audio is still received until the call ends."""
        self._send_limit = self._sender.sent if after is None else after
        if self._tasks:
            await asyncio.wait(self._tasks[:1])  # (a cancel of this caller's task propagates)

    @property
    def frames_sent(self) -> int:
        """The caller's frames sent so far, silence included."""
        return self._sender.sent

    @property
    def frame_times(self) -> FrameTimes | None:
        """When each of the caller's frames was due and when it left (None before the first):
        `transports.cadence` measures the stream's jitter and late frames from it."""
        return self._sender.times

    @property
    def fault(self) -> BaseException | None:
        """Why the line went (a `WireError`, or `BotFailure("hung_up")`); None while it is up."""
        return self._fault

    @property
    def closed(self) -> bool:
        """The line has gone (a fault or the bot's hang-up)."""
        return self._fault is not None

    async def _receive_loop(self) -> None:
        try:
            async for event in self.transport.events():
                if isinstance(event, BotAudio):
                    self._play(event.mulaw)
                elif isinstance(event, BotClear):
                    self._clear()
                elif isinstance(event, BotMark):
                    self._answer_mark(event.name)
                elif isinstance(event, BotTranscript):
                    self._transcript(event)
        except WireError as exc:
            self._fault = exc
        else:
            self._fault = BotFailure("hung_up", "the bot closed the line")
        self._release_lines()  # the line has gone: a caller line being said does not wait for its frames

    def _transcript(self, event: BotTranscript) -> None:
        """The bot's own transcript: of its speech (`agent`, the turn's text) or of the caller's (`user`,
        what it heard of the caller's line, kept with its arrival time for `_bot_heard`)."""
        if event.role == "agent":
            self._said.append(event.text)
        elif event.text.strip():
            self._user_said.append((self._now_ms(), event.text.strip()))

    def _play(self, mulaw: bytes) -> None:
        """The bot's audio plays from when it arrives, after what is already queued."""
        self._bot.play(mulaw, self._now_ms(), caller_busy=self._caller_busy)

    def _clear(self) -> None:
        """The bot dropped its unplayed audio: it stops now (a yield on the timeline)."""
        now = self._now_ms()
        if self._bot.clear(now):
            self.events.append(LineEvent(kind="yield", start_ms=int(now), end_ms=int(now), side="agent",
                                         detail={"cause": "clear"}))

    def _answer_mark(self, name: str) -> None:
        delay = max(0.0, (self._bot.play_end - self._now_ms()) / 1000)
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
        step), or its next spoken turn as Polygon heard it (early, when the caller talks over it)."""
        for asked, result in zip(self._asked, request.tool_results, strict=False):
            if not asked.answer.done():
                asked.answer.set_result(result)
        self._asked, self._last_turn = [], None
        plan = turn_plan(self._habits, self.conversation_id, request.turn, self.language)
        waited_from = self._now_ms()
        while True:
            if self._pending:
                return self._tool_step()
            turn = self._bot_turn()
            if turn is not None:
                return await self._heard(turn)
            if self._due(plan.barge_at_ms):
                return await self._barge()
            self._react_while_waiting(plan, request.turn)
            if isinstance(self._fault, BotFailure) and self._fault.reason == "hung_up":
                return AgentAction(end="end")  # the bot ended the call: its hang-up, not a fault
            if self._fault is not None:
                fault = self._fault
                raise fault if isinstance(fault, BotFailure) else BotFailure(getattr(fault, "reason", "wire"),
                                                                             str(fault))
            if self._now_ms() - max(waited_from, self._quiet_from()) > SILENT_LIMIT_S * 1000:
                raise BotFailure("silent", f"the bot said nothing for {SILENT_LIMIT_S:.0f} s")
            await asyncio.sleep(_POLL_S)

    def _tool_step(self) -> AgentAction:
        self._asked, self._pending = self._pending, []
        return AgentAction(tool_calls=[ToolRequest(name=p.call.tool, arguments=p.call.arguments
                                                   if isinstance(p.call.arguments, dict) else {})
                                       for p in self._asked])

    def _turn_frames(self) -> Sequence[int]:
        return self._bot.turn_frames(self._turn_from)

    def _bot_turn(self) -> tuple[float, float] | None:
        """The bot's finished turn since the caller's last line: (start, end) ms, once its audio has
        played and `BOT_TURN_END_MS` of silence followed."""
        frames = self._turn_frames()
        if not frames:
            return None
        end = frames[-1] + self.parts.vad.frame_ms
        now = self._now_ms()
        if now - end < BOT_TURN_END_MS or self._bot.play_end > now:
            return None
        return float(frames[0]), float(end)

    def _due(self, after_ms: int | None) -> bool:
        """Has the bot's current turn played `after_ms` since its first speech, and does it still play?"""
        frames = self._turn_frames()
        now = self._now_ms()
        return after_ms is not None and bool(frames) and now - frames[0] >= after_ms and self._bot.play_end > now

    def _react_while_waiting(self, plan: TurnPlan, turn: int) -> None:
        """A backchannel while the bot talks; "hello?" once when it has been silent too long."""
        if turn not in self._nodded and self._due(plan.backchannel_at_ms):
            self._nodded.add(turn)
            self._aside("backchannel", plan.backchannel)
        self._hello_if_quiet()

    def _hello_if_quiet(self) -> None:
        """"Hello?" once per wait when the bot has been silent `hello_after_ms`."""
        if not self._helloed and self._now_ms() - self._quiet_from() >= self._habits.hello_after_ms:
            self._helloed = True
            self._aside("hello", hello_line(self.language))

    def _quiet_from(self) -> float:
        """Since when the line has been quiet: the bot's last speech or the caller's last line."""
        return self._bot.quiet_from(self._now_ms(), self._turn_from)

    async def _heard(self, turn: tuple[float, float]) -> AgentAction:
        start, end = turn
        audio = self._bot.stretch(start, end)
        own = " ".join(self._said).strip()
        self._said = []
        heard = own or (await asyncio.to_thread(self.parts.agent_ears.transcribe, audio, self.language)).text.strip()
        latency = max(0.0, start - self._turn_from)
        self._turn_from, self._last_turn, self._last_heard = end, turn, heard
        return AgentAction(say=heard, latency_ms=latency)

    async def _barge(self) -> AgentAction:
        """The caller talks over the bot now: the turn is what played so far (the bot's own
        transcript, if it sent one, with the share of its speech that played as heard)."""
        frames, now = self._turn_frames(), self._now_ms()
        start = float(frames[0])
        self._barged_at, self._caller_busy = now, True
        self._bot.barged()
        own = " ".join(self._said).strip()
        self._said = []
        if own:
            known = frames[-1] + self.parts.vad.frame_ms
            said, heard = own, words_before(own, (now - start) / max(1.0, known - start))
        else:
            audio = self._bot.stretch(start, now)
            said = heard = (await asyncio.to_thread(self.parts.agent_ears.transcribe, audio,
                                                    self.language)).text.strip()
        self._last_turn, self._last_heard = (start, now), heard
        return AgentAction(say=said, latency_ms=max(0.0, start - self._turn_from))

    # --- the engine's Line ---------------------------------------------------------------------

    async def agent_spoke(self, turn: Any) -> Playback:
        """The bot's turn as it played (its times from the bot's audio); its segments are laid from
        the channel's speech when the timeline is read."""
        if self._last_turn is None:  # nothing played (a hang-up): no segment
            return Playback(start_ms=int(self._turn_from), end_ms=int(self._turn_from), heard="")
        start, end = self._last_turn
        barged = self._barged_at is not None
        heard = self._last_heard if barged else turn.text
        self._spoken.append(SpokenTurn(turn.index, start, turn.text, heard, barged))
        return Playback(start_ms=int(start), end_ms=int(end), heard=heard, interrupted=barged)

    async def interjections(self, turn: int) -> list[Interjection]:
        """None: room sounds are not played to a bot yet."""
        return []

    async def caller_spoke(self, turn: int, text: str) -> Delivery:
        """Stream the caller's line in real time (at once over the bot when it barges in, else after
        its reaction pause); what the bot heard is its own `user` transcript of the line when it sends
        one (`_bot_heard`), else Polygon's transcription of the audio as sent. The caller segment's
        `heard_from` says which (`agent` or `polygon`)."""
        clean = await asyncio.to_thread(self.parts.caller_voice.synthesize, text, self._voice, self.language)

        def prepare() -> tuple[Audio, list[LineEvent], list[bytes], Audio]:
            line, events = degrade(clean, self.conditions, conversation_id=self.conversation_id, turn=turn)
            return line, events, *self._framed(line)

        line, events, frames, played = await asyncio.to_thread(prepare)
        hearing = asyncio.create_task(asyncio.to_thread(self.parts.agent_ears.transcribe, line, self.language))
        barging = self._barged_at is not None
        if not barging:
            await self._reaction_pause(turn)
        self._user_said = []  # the bot's transcripts of earlier speech (an aside) are not this line's
        start, end = await self._send_line(frames, played)
        if barging and self._bot.play_end > start:
            self.events.append(LineEvent(kind="barge_in", start_ms=int(start), end_ms=int(start), side="caller"))
        for event in events:
            self.events.append(event.model_copy(update={"start_ms": int(start) + event.start_ms,
                                                        "end_ms": int(start) + event.end_ms}))
        self._turn_from, self._barged_at, self._caller_busy, self._helloed = end, None, False, False
        if barging:
            self._said = []  # the talked-over turn's own transcript, come late: not the next turn's
        own = await self._bot_heard(start, end)
        polygon = (await hearing).text.strip()
        self.segments.append(Segment(side="caller", start_ms=int(start), end_ms=int(end), text=text,
                                     heard=own or polygon, heard_from="agent" if own else "polygon", turn=turn))
        return Delivery(start_ms=int(start), end_ms=int(end), heard=own or polygon)

    async def _bot_heard(self, start: float, end: float) -> str:
        """The bot's own transcript of the caller's line from `start` to `end` ms ("" when it sent
        none): its `user` transcripts that arrived from the line's first frame until the window
        closes. The window closes when the bot starts answering (its next speech, or a tool call: it
        has heard the line by then), `HEARD_WAIT_MS` after the line's end at the latest, or when the
        line goes. Meanwhile the caller keeps its habits: "hello?" into a silence."""
        while not (self.closed or self._pending or self._turn_frames()) and self._now_ms() - end < HEARD_WAIT_MS:
            self._hello_if_quiet()
            await asyncio.sleep(_POLL_S)
        return " ".join(said for at, said in self._user_said if at >= start).strip()

    async def _reaction_pause(self, turn: int) -> None:
        """Wait until the bot's speech end + the caller's reaction (usually past already: the turn's
        end is only known `BOT_TURN_END_MS` after it)."""
        ready = self._quiet_from() + reaction_ms(self._habits, self.conversation_id, turn)
        wait = (ready - self._now_ms()) / 1000
        if wait > 0:
            await asyncio.sleep(wait)

    def _framed(self, line: Audio) -> tuple[list[bytes], Audio]:
        """`line`'s 20 ms mu-law frames and the line at the call's rate (its WAV): resampling and
        coding a line costs milliseconds, so callers run this in a worker thread, off the loop every
        call's frames leave from."""
        played = resample(line, self.rate)
        return caller_frames(played if self.rate == PHONE_RATE else line), played

    async def _send_line(self, frames: list[bytes], played: Audio) -> tuple[float, float]:
        """Queue a line's frames and wait until they have left: its (start, end) ms on the call."""
        out = _Outgoing(frames)
        if self.closed or self._stream_ended or not frames:
            out.done.set()  # nobody listens any more: the line is said into the void
        else:
            self._queue.put_nowait(out)
        # Set when its last frame has left, or when the stream ends or the line goes first. (Not
        # polled through `wait_for`: in Python 3.11 it swallows a cancel that comes as the event is
        # set, and a caller told to stop went on talking.)
        await out.done.wait()
        start = out.start_ms if out.start_ms is not None else self._now_ms()
        self._caller_audio.append((start, played))
        return start, start + len(frames) * FRAME_MS

    def _aside(self, kind: SegmentKind, text: str) -> None:
        """The caller says `text` into the line while the bot is waited for (a backchannel, "hello?"):
        a segment of its own, no transcript turn."""
        def voiced() -> tuple[list[bytes], Audio]:
            return self._framed(self.parts.caller_voice.synthesize(text, self._voice, self.language))

        async def say() -> None:
            start, end = await self._send_line(*await asyncio.to_thread(voiced))
            self.segments.append(Segment(side="caller", kind=kind, start_ms=int(start), end_ms=int(end), text=text))

        self._asides.append(asyncio.get_running_loop().create_task(say()))

    # --- results -------------------------------------------------------------------------------

    @property
    def duration_ms(self) -> int:
        ends = [at + a.duration_ms for at, a in self._caller_audio] + [self._bot.end_ms]
        return int(max(ends))

    def hang_up(self, detail: str = "") -> None:
        """The caller hung up: an event at the end of the call."""
        end = self.duration_ms
        self.events.append(LineEvent(kind="hangup", start_ms=end, end_ms=end, side="caller",
                                     detail={"reason": detail} if detail else {}))

    def timeline(self) -> Timeline:
        """The call's timeline, on the real clock."""
        cuts = [e.start_ms for e in self.events if e.kind == "yield"]
        bot = agent_segments(self._bot.speech, self.parts.vad.frame_ms, self._spoken, gap_ms=BOT_TURN_END_MS, cuts=cuts)
        return Timeline(conversation_id=self.conversation_id, sample_rate=self.rate, duration_ms=self.duration_ms,
                        conditions=self.conditions,
                        segments=sorted(self.segments + bot, key=lambda s: (s.start_ms, s.side)),
                        events=sorted(self.events, key=lambda e: (e.start_ms, e.kind)))

    def render(self) -> bytes:
        """Stereo WAV at 8 kHz: the caller as sent (left), the bot as it played (right)."""
        n = self.rate * self.duration_ms // 1000 + 1
        return stereo_wav(lay(self._caller_audio, self.rate, n), self._bot.audio(n))

    def stack(self) -> dict[str, str]:
        """The engines and the line: the caller's voice, Polygon's ears, the VAD and the bot's URL."""
        return {"caller_voice": f"{self.parts.caller_voice.name}:{self.parts.caller_voice.model}",
                "agent_voice": f"bot:{self.transport.name}",
                "agent_ears": f"{self.parts.agent_ears.name}:{self.parts.agent_ears.model}",
                "vad": f"{self.parts.vad.name}:{self.parts.vad.frame_ms}ms"}

    def metrics(self) -> dict[str, Any]:
        """The interaction metrics of the call so far."""
        return interaction_metrics(self.timeline(), language=self.language)
