"""A call on a simulated clock: both sides' audio laid on one timeline, turn-taking decided per turn.

`CallLine` is the engine's `Line` (`polygon_core.conversation`): the turn loop asks it to voice an
agent turn (`agent_spoke`), to voice a caller line (`caller_spoke`) and whether room speech came
first (`interjections`). It places each side's audio on the call's clock in milliseconds, with
decisions on 200 ms ticks (`TICK_MS`), and keeps what each side heard. docs/voice.md, "Turn-taking
on the clock", is the reader's version of the rules below.

The cascade (recogniser -> the agent -> synthesis; `CascadeSettings`):

* The agent's audio starts at the tick after: the end of the caller's turn as its VAD endpointed it
  + `endpoint_ms` + `recognition_latency_ms` + the agent's own reply time (`Turn.latency_ms`: the
  model and its tool calls) + `synthesis_latency_ms`. The greeting starts after the agent's reply
  time and the synthesis latency. So a slow model is a late answer, measured.
* Endpointing: the cascade's turn ends at the first silence of `endpoint_ms` in the caller's line
  (WebRTC VAD on the line audio). A pause that long inside the line (a confused caller) ends the turn
  early: the agent starts while the caller still talks. It then stops once it has heard
  `barge_in_ms` more of the caller (when it yields) and says its reply again after the caller's real
  end; an agent that does not yield talks over the rest.
* Barge-in: the agent stops `barge_in_ms` after caller audio starts over its own (rounded up to the
  tick), when that audio lasts at least `barge_in_ms` and `yields` is set. A backchannel, a tic or
  an aside that long makes it stop as a real barge-in does (the selectivity metrics count that).
* `ignore_fillers`: a transcript heard in a silence that is only fillers ("um") or empty is not
  answered; speech to someone in the room is answered as a turn (the cascade cannot tell).

The caller (`CallerHabits`, by persona type): a reaction pause before each line; a chance to talk
over an agent turn of at least `BARGE_MIN_MS` (its next line then starts inside the agent's speech);
a chance of a backchannel ("mm-hmm") in an agent turn of at least `BACKCHANNEL_MIN_MS`; the line's
room sounds (`plan_room_sounds`) during the agent's speech or in the silence after it; after
`hello_after_ms` of silence it says "hello?", after `hangup_after_ms` it hangs up, and it hangs up
when the agent says nothing twice. A line it says again (asked to repeat) is said 15% slower each
time, with longer pauses, as people do on a bad line. What the caller heard of an agent turn is its words in proportion
to the share of the agent's speech that played (`words_before`): the caller is not transcribed.

Every decision draws from its own stream, `stable_seed("polygon.call", aspect, conversation, turn)`:
same seeds, same call, same bytes (`render`).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._hashing import stable_seed
from ..conversation import Delivery, Interjection, Playback
from ..models import CascadeSettings, LineConditions
from ._audio import Audio, Recognizer, Synthesizer, VoiceActivity
from ._conditions import RoomSound, degrade, line_rate, plan_room_sounds, preset
from ._signal import burst, mulaw_decode, mulaw_encode, resample, stereo_wav
from ._timeline import TICK_MS, LineEvent, Segment, SegmentKind, Timeline
from ._voices import VoiceProfile, agent_voice, caller_voice

__all__ = ["BACKCHANNEL_MIN_MS", "BARGE_MIN_MS", "HABITS", "REPEAT_SLOWER", "CallLine", "CallParts", "CallerHabits",
           "backchannels", "caller_habits", "hello_line", "only_fillers", "tick_ceil", "words_before"]

BARGE_MIN_MS = 2000  # the caller only talks over agent speech at least this long
BACKCHANNEL_MIN_MS = 3000  # and only backchannels in agent speech at least this long
REPEAT_SLOWER = 0.15  # a line said again is 15% slower each time
_SLOWEST_WPM = 110
_SOUND_WINDOW_MS = 1500  # a room sound in a silence falls this far at most after the agent stops


@dataclass(frozen=True)
class CallerHabits:
    """How a caller type takes turns on a call."""

    barge_in_p: float  # chance to talk over an agent turn of at least BARGE_MIN_MS
    backchannel_p: float  # chance of a backchannel in an agent turn of at least BACKCHANNEL_MIN_MS
    reaction_ms: tuple[int, int]  # pause before its line, drawn uniformly (whole ticks)
    hello_after_ms: int  # silence before "hello?"
    hangup_after_ms: int  # silence before it hangs up


# Aggressive and busy callers barge in and answer fast; confused ones never barge in and pause
# long; talkative and cooperative ones backchannel (the persona habits).
HABITS: dict[str, CallerHabits] = {
    "aggressive": CallerHabits(0.5, 0.05, (200, 400), 3000, 9000),
    "busy": CallerHabits(0.35, 0.1, (200, 400), 3000, 8000),
    "talkative": CallerHabits(0.15, 0.6, (200, 600), 5000, 15000),
    "distrustful": CallerHabits(0.1, 0.15, (400, 800), 5000, 12000),
    "cooperative": CallerHabits(0.05, 0.4, (400, 800), 5000, 12000),
    "confused": CallerHabits(0.0, 0.3, (800, 1600), 6000, 15000),
}
_DEFAULT_HABITS = HABITS["cooperative"]

_BACKCHANNELS = {"en": ("Mm-hmm.", "Okay.", "Right."), "ru": ("Угу.", "Ага.", "Да-да.")}
_HELLO = {"en": "Hello?", "ru": "Алло?"}
_FILLERS = frozenset({"um", "uh", "erm", "er", "hmm", "mm", "mhm", "ah", "oh", "eh", "uhm", "umm",
                      "э", "ээ", "э-э", "м", "мм", "м-м", "эм", "ну", "а"})
_WORD = re.compile(r"[\w'-]+", re.UNICODE)


def caller_habits(caller_type: str) -> CallerHabits:
    """The turn-taking habits of a caller type (`cooperative`'s for a type the table lacks)."""
    return HABITS.get(caller_type, _DEFAULT_HABITS)


def backchannels(language: str) -> tuple[str, ...]:
    """The backchannels a caller says in `language` ("Mm-hmm.", "Okay." ...; English's for others)."""
    return _BACKCHANNELS.get(language, _BACKCHANNELS["en"])


def hello_line(language: str) -> str:
    """What a caller says into a silence in `language` ("Hello?")."""
    return _HELLO.get(language, _HELLO["en"])


def tick_ceil(ms: float) -> int:
    """`ms` rounded up to the clock's tick: decisions happen on ticks."""
    return int(-(-int(np.ceil(ms)) // TICK_MS) * TICK_MS)


def words_before(text: str, fraction: float) -> str:
    """The words of `text` a listener heard when `fraction` (0..1) of its speech played."""
    words = text.split()
    keep = int(len(words) * min(max(fraction, 0.0), 1.0) + 1e-9)
    return " ".join(words[:keep])


def only_fillers(text: str) -> bool:
    """True when `text` has no words or only fillers ("um", "uh", "э-э"): nothing to answer."""
    return all(w.lower().strip("-'") in _FILLERS for w in _WORD.findall(text))


@dataclass(frozen=True)
class CallParts:
    """The engines of one call: the caller's voice, the agent's voice and ears, and the VAD that
    both the caller and the cascade listen with."""

    caller_voice: Synthesizer
    agent_voice: Synthesizer
    agent_ears: Recognizer
    vad: VoiceActivity

    def stack(self) -> dict[str, str]:
        """Role -> `engine:model`, as a stored call records it (`VoiceCall.stack`)."""
        return {"caller_voice": f"{self.caller_voice.name}:{self.caller_voice.model}",
                "agent_voice": f"{self.agent_voice.name}:{self.agent_voice.model}",
                "agent_ears": f"{self.agent_ears.name}:{self.agent_ears.model}",
                "vad": f"{self.vad.name}:{self.vad.frame_ms}ms"}


@dataclass
class _Voiced:
    """A piece of audio on the line and where its speech is inside it (ms from its start)."""

    audio: Audio
    spans: list[tuple[int, int]]

    @property
    def first(self) -> int:
        return self.spans[0][0] if self.spans else 0

    @property
    def last(self) -> int:
        return self.spans[-1][1] if self.spans else self.audio.duration_ms

    @property
    def speech_ms(self) -> int:
        return self.last - self.first


@dataclass
class _Sound:
    """Something the caller says over the agent's speech: a backchannel or a room sound."""

    kind: SegmentKind
    text: str
    at: int


@dataclass
class CallLine:
    """One call's line (the engine's `Line`): see the module docstring for the rules."""

    parts: CallParts
    conversation_id: str
    seed: int
    caller_type: str
    language: str
    conditions: LineConditions
    cascade: CascadeSettings
    agent_name: str
    noise_bank: Sequence[Audio] = ()
    habits: CallerHabits | None = None
    rate: int = field(init=False)
    segments: list[Segment] = field(init=False, default_factory=list)
    events: list[LineEvent] = field(init=False, default_factory=list)
    _caller_audio: list[tuple[int, Audio]] = field(init=False, default_factory=list)
    _agent_audio: list[tuple[int, Audio]] = field(init=False, default_factory=list)
    _floor: int = field(init=False, default=0)  # when the line last fell silent
    _reply_ref: int | None = field(init=False, default=None)  # the cascade's end of the caller's turn
    _caller_end: int = field(init=False, default=0)  # the caller's real end of its last line
    _barge_at: int | None = field(init=False, default=None)  # the next line starts over the agent here
    _gap_sounds: list[RoomSound] = field(init=False, default_factory=list)
    _silent_turns: int = field(init=False, default=0)
    _answering_room: bool = field(init=False, default=False)
    _said: dict[str, int] = field(init=False, default_factory=dict)  # caller lines said so far
    _babble: Audio | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.rate = line_rate(self.conditions)
        self._habits = self.habits or HABITS.get(self.caller_type, _DEFAULT_HABITS)
        self._caller_profile = caller_voice(self.caller_type, self.seed, self.conversation_id)
        self._agent_profile = agent_voice(self.agent_name, self.cascade.voice)

    # --- the engine's Line -------------------------------------------------------------------

    async def agent_spoke(self, turn: Any) -> Playback:
        """Voice the agent's turn after its reply time; the caller may talk over it."""
        text = (turn.text or "").strip()
        self._tool_events(turn)
        if not text:
            return await self._said_nothing()
        self._silent_turns = 0
        start = self._reply_start(turn.latency_ms)
        silence = start - self._floor
        if silence >= self._habits.hangup_after_ms:
            return await self._hung_up_waiting()
        if silence >= self._habits.hello_after_ms:
            await self._hello(self._floor + self._habits.hello_after_ms)
        voiced = await self._agent_speech(text)
        if self._reply_ref is not None and start < self._caller_end:
            return await self._over_caller(turn, text, voiced, start)
        return await self._play(turn, text, voiced, start)

    async def interjections(self, turn: int) -> list[Interjection]:
        """The next room sound in the silence before the caller's line that the cascade answers (the
        engine answers it, then asks again): sounds it ignores are placed on the way; one it answers
        becomes transcript turn `turn`, and the sounds after it fall in the silence after the answer."""
        if self._barge_at is not None:
            self._gap_sounds = []
            return []  # the caller talks over the agent: there is no silence to fill
        self._gap_sounds.sort(key=lambda s: s.at)
        while self._gap_sounds:
            sound = self._gap_sounds.pop(0)
            at = tick_ceil(self._floor + sound.at * _SOUND_WINDOW_MS)
            voiced = await self._room_sound(sound, turn)
            heard = (await asyncio.to_thread(self.parts.agent_ears.transcribe, voiced.audio, self.language)).text
            heard = heard.strip()
            answered = bool(heard) and not (self.cascade.ignore_fillers and only_fillers(heard))
            kind: SegmentKind = sound.kind
            self._place_caller(voiced, at, kind=kind, text=sound.text or "(cough)", heard=heard,
                               turn=turn if answered else None)
            self._floor = at + voiced.last
            if answered:
                self._reply_ref = self._caller_end = at + voiced.last
                self._answering_room = True  # the answer's own silence plans no new room sounds
                return [Interjection(text=sound.text or "(cough)", heard=heard, start_ms=at + voiced.first,
                                     end_ms=at + voiced.last, kind=sound.kind)]
        return []

    async def caller_spoke(self, turn: int, text: str) -> Delivery:
        """Voice the caller's line through the conditions; the agent's recogniser hears it. A line
        the caller said before is said more slowly (`REPEAT_SLOWER`), as people do when asked again."""
        clean = await asyncio.to_thread(self.parts.caller_voice.synthesize, text, self._repeat_voice(text),
                                        self.language)
        line, events = await asyncio.to_thread(self._degrade, clean, turn)
        voiced = _Voiced(line, await asyncio.to_thread(self._spans, line))
        if self._barge_at is not None:
            start, self._barge_at = self._barge_at - voiced.first, None
        else:
            start = tick_ceil(self._floor + self._reaction(turn))
        heard = (await asyncio.to_thread(self.parts.agent_ears.transcribe, line, self.language)).text.strip()
        self._place_caller(voiced, start, kind="speech", text=text, heard=heard, turn=turn)
        for event in events:
            self.events.append(event.model_copy(update={"start_ms": start + event.start_ms,
                                                        "end_ms": start + event.end_ms}))
        self._caller_end = start + voiced.last
        self._reply_ref = start + self._endpoint(voiced)
        self._floor = max(self._floor, self._caller_end)
        return Delivery(start_ms=start + voiced.first, end_ms=start + voiced.last, heard=heard)

    # --- results -------------------------------------------------------------------------------

    def hang_up(self, detail: str = "") -> None:
        """The caller hung up at the end of the call (a hangup event at the line's last sound)."""
        if not any(e.kind == "hangup" for e in self.events):
            end = self.duration_ms
            self.events.append(LineEvent(kind="hangup", start_ms=end, end_ms=end, side="caller",
                                         detail={"reason": detail} if detail else {}))

    @property
    def duration_ms(self) -> int:
        """The call's length: the end of the last audio or event on the line."""
        ends = [at + a.duration_ms for at, a in self._caller_audio + self._agent_audio]
        ends += [e.end_ms for e in self.events]
        return max(ends, default=0)

    def timeline(self) -> Timeline:
        """The call's timeline: segments and events in time order."""
        return Timeline(conversation_id=self.conversation_id, sample_rate=self.rate,
                        duration_ms=self.duration_ms, conditions=self.conditions,
                        segments=sorted(self.segments, key=lambda s: (s.start_ms, s.side, s.end_ms)),
                        events=sorted(self.events, key=lambda e: (e.start_ms, e.kind, e.end_ms)))

    def render(self) -> bytes:
        """The call as a stereo 16-bit WAV at the line's rate: caller left, agent right."""
        n = self.rate * self.duration_ms // 1000 + 1
        return stereo_wav(self._channel(self._caller_audio, n), self._channel(self._agent_audio, n))

    def stack(self) -> dict[str, str]:
        """The engines this call used (`CallParts.stack`)."""
        return self.parts.stack()

    # --- the agent's side ----------------------------------------------------------------------

    def _reply_start(self, latency_ms: float) -> int:
        """When the agent's audio starts: the cascade's chain after the caller's turn (module docstring)."""
        c = self.cascade
        if self._reply_ref is None:  # the greeting: no caller turn to endpoint
            return tick_ceil(latency_ms + c.synthesis_latency_ms)
        return tick_ceil(self._reply_ref + c.endpoint_ms + c.recognition_latency_ms + latency_ms
                         + c.synthesis_latency_ms)

    async def _agent_speech(self, text: str) -> _Voiced:
        audio = await asyncio.to_thread(self.parts.agent_voice.synthesize, text, self._agent_profile, self.language)
        line = self._on_line(audio)
        return _Voiced(line, await asyncio.to_thread(self._spans, line))

    async def _play(self, turn: Any, text: str, voiced: _Voiced, start: int) -> Playback:
        """The agent's audio from `start`, with what the caller does over it."""
        seg_start, full_end = start + voiced.first, start + voiced.last
        stop, cause = full_end, ""
        sounds = self._sounds_over(turn, seg_start, voiced.speech_ms)
        barge = self._barge(turn, seg_start, voiced.speech_ms)
        for sound in sounds:
            if barge is not None and sound.at >= barge:
                continue
            if sound.at >= stop:
                continue
            piece = await self._caller_piece(sound, turn.index)
            self._place_caller(piece, sound.at - piece.first, kind=sound.kind, text=sound.text or "(cough)",
                               heard=None, turn=None)
            if self._yields_to(piece.speech_ms):
                stop, cause = min(stop, tick_ceil(sound.at + self.cascade.barge_in_ms)), sound.kind
        interrupted = False
        if barge is not None and barge < stop:
            interrupted = True
            self._barge_at = barge
            self.events.append(LineEvent(kind="barge_in", start_ms=barge, end_ms=barge, side="caller"))
            if self.cascade.yields:
                stop, cause = min(stop, tick_ceil(barge + self.cascade.barge_in_ms)), "barge_in"
        stop = max(stop, seg_start)
        played = self._place_agent(voiced, start, until=stop)
        cut = stop < full_end
        if cut:
            self.events.append(LineEvent(kind="yield", start_ms=stop, end_ms=stop, side="agent",
                                         detail={"cause": cause}))
        fraction = (stop - seg_start) / voiced.speech_ms if voiced.speech_ms else 1.0
        heard = words_before(text, fraction) if cut else text
        self.segments.append(Segment(side="agent", start_ms=seg_start, end_ms=played, text=text, heard=heard,
                                     turn=turn.index, interrupted=cut))
        self._floor = played
        return Playback(start_ms=seg_start, end_ms=played, heard=heard, interrupted=interrupted or cut)

    async def _over_caller(self, turn: Any, text: str, voiced: _Voiced, start: int) -> Playback:
        """The cascade endpointed inside the caller's line: its reply starts over the caller's speech."""
        seg_start, full_end = start + voiced.first, start + voiced.last
        over = self._caller_end - seg_start  # how much more caller speech the agent hears once it talks
        if not (self.cascade.yields and over >= self.cascade.barge_in_ms):
            played = self._place_agent(voiced, start, until=full_end)
            self.segments.append(Segment(side="agent", start_ms=seg_start, end_ms=played, text=text,
                                         heard=text, turn=turn.index))
            self._floor = played
            return Playback(start_ms=seg_start, end_ms=played, heard=text, interrupted=False)
        stop = min(full_end, tick_ceil(seg_start + self.cascade.barge_in_ms))
        fragment = self._place_agent(voiced, start, until=stop)
        self.segments.append(Segment(side="agent", start_ms=seg_start, end_ms=fragment, text=text,
                                     heard=words_before(text, (stop - seg_start) / max(voiced.speech_ms, 1)),
                                     turn=turn.index, interrupted=True))
        self.events.append(LineEvent(kind="yield", start_ms=stop, end_ms=stop, side="agent",
                                     detail={"cause": "caller_still_speaking"}))
        # It heard the rest of the line and answers again after the caller's real end.
        self._reply_ref = self._caller_end
        self._floor = max(fragment, self._caller_end)
        again = await self._play(turn, text, voiced, self._reply_start(0))
        return Playback(start_ms=seg_start, end_ms=again.end_ms, heard=again.heard, interrupted=True)

    def _yields_to(self, speech_ms: int) -> bool:
        return self.cascade.yields and speech_ms >= self.cascade.barge_in_ms

    def _place_agent(self, voiced: _Voiced, start: int, *, until: int) -> int:
        """Put the agent's audio on the line from `start`, cut at `until`; returns where its speech ends."""
        keep = max(0, until - start)
        samples = voiced.audio.samples[: self.rate * keep // 1000]
        self._agent_audio.append((start, Audio(samples, self.rate)))
        return min(until, start + voiced.last)

    def _tool_events(self, turn: Any) -> None:
        """The agent's tool calls on the timeline, one after another from the end of the caller's turn."""
        at = float((self._reply_ref or 0) + (self.cascade.endpoint_ms + self.cascade.recognition_latency_ms
                                            if self._reply_ref is not None else 0))
        for call in turn.tool_calls:
            end = at + call.latency_ms
            self.events.append(LineEvent(kind="tool_call", start_ms=int(at), end_ms=int(np.ceil(end)), side="agent",
                                         detail={"name": call.name, "valid": call.valid,
                                                 **({"error": call.error} if call.error else {})}))
            at = end

    async def _said_nothing(self) -> Playback:
        """An agent turn with no words: "hello?" the first time, a hang-up the second."""
        self._silent_turns += 1
        if self._silent_turns >= 2:
            at = self._floor + self._habits.hello_after_ms
            self.events.append(LineEvent(kind="hangup", start_ms=at, end_ms=at, side="caller",
                                         detail={"reason": "the agent said nothing twice"}))
            return Playback(start_ms=self._floor, end_ms=self._floor, hangup="the agent said nothing twice")
        end = await self._hello(self._floor + self._habits.hello_after_ms)
        return Playback(start_ms=end, end_ms=end)

    async def _hung_up_waiting(self) -> Playback:
        """The agent's reply came too late: "hello?", then the caller hung up before it."""
        floor = self._floor
        await self._hello(floor + self._habits.hello_after_ms)
        at = floor + self._habits.hangup_after_ms
        detail = f"caller hung up after {self._habits.hangup_after_ms / 1000:.1f} s of silence"
        self.events.append(LineEvent(kind="silence", start_ms=floor, end_ms=at, detail={}))
        self.events.append(LineEvent(kind="hangup", start_ms=at, end_ms=at, side="caller",
                                     detail={"reason": detail}))
        self._floor = at
        return Playback(start_ms=at, end_ms=at, hangup=detail)

    async def _hello(self, at: int) -> int:
        """The caller says "hello?" into a silence (the cascade does not answer it); returns its end."""
        text = _HELLO.get(self.language, _HELLO["en"])
        piece = await self._caller_piece(_Sound("hello", text, at), None)
        start = tick_ceil(at) - piece.first
        self._place_caller(piece, start, kind="hello", text=text, heard=None, turn=None)
        self._floor = max(self._floor, start + piece.last)
        return start + piece.last

    # --- the caller's side ---------------------------------------------------------------------

    def _repeat_voice(self, text: str) -> VoiceProfile:
        """The caller's voice for `text`: slower by `REPEAT_SLOWER` each time it says the line again
        (never below `_SLOWEST_WPM`), with longer pauses between sentences."""
        key = " ".join(text.lower().split())
        times = self._said.get(key, 0)
        self._said[key] = times + 1
        if not times:
            return self._caller_profile
        voice = self._caller_profile
        rate = max(_SLOWEST_WPM, round(voice.rate_wpm * (1 - REPEAT_SLOWER) ** times))
        return replace(voice, rate_wpm=rate, sentence_pause_ms=voice.sentence_pause_ms + 150 * times)

    def _rng(self, aspect: str, turn: int | None) -> random.Random:
        return random.Random(stable_seed("polygon.call", aspect, self.conversation_id, turn))

    def _reaction(self, turn: int) -> int:
        low, high = self._habits.reaction_ms
        return self._rng("reaction", turn).randint(low // TICK_MS, high // TICK_MS) * TICK_MS

    def _barge(self, turn: Any, seg_start: int, speech_ms: int) -> int | None:
        """When the caller's next line starts over this agent turn (None: it waits)."""
        rng = self._rng("barge", turn.index)
        u, where = rng.random(), rng.uniform(0.3, 0.7)
        if turn.end is not None or speech_ms < BARGE_MIN_MS or u >= self._habits.barge_in_p:
            return None
        return tick_ceil(seg_start + where * speech_ms)

    def _sounds_over(self, turn: Any, seg_start: int, speech_ms: int) -> list[_Sound]:
        """Backchannels and room sounds during this agent turn; room sounds for the silence after
        it are kept for `interjections`."""
        rng = self._rng("backchannel", turn.index)
        u, where, pick = rng.random(), rng.uniform(0.4, 0.7), rng.randrange(1 << 30)
        sounds: list[_Sound] = []
        if speech_ms >= BACKCHANNEL_MIN_MS and u < self._habits.backchannel_p:
            options = _BACKCHANNELS.get(self.language, _BACKCHANNELS["en"])
            sounds.append(_Sound("backchannel", options[pick % len(options)],
                                 tick_ceil(seg_start + where * speech_ms)))
        room = plan_room_sounds(self.conditions, conversation_id=self.conversation_id, turn=turn.index,
                                caller_type=self.caller_type, language=self.language)
        if self._answering_room:  # answering an aside: the silence's other sounds are still to come
            self._answering_room = False
        else:
            self._gap_sounds = [s for s in room if s.during == "silence"] if turn.end is None else []
        sounds += [_Sound(s.kind, s.text, tick_ceil(seg_start + s.at * speech_ms))
                   for s in room if s.during == "agent_speech"]
        return sorted(sounds, key=lambda s: s.at)

    async def _caller_piece(self, sound: _Sound, turn: int | None) -> _Voiced:
        """A backchannel, "hello?" or room sound in the caller's voice, on the line."""
        if sound.kind in ("vocal_tic", "non_directed"):
            return await self._room_sound(RoomSound(sound.kind, sound.text, "agent_speech", 0.5), turn)
        audio = await asyncio.to_thread(self.parts.caller_voice.synthesize, sound.text, self._caller_profile,
                                        self.language)
        line = self._on_line(audio)
        return _Voiced(line, await asyncio.to_thread(self._spans, line))

    async def _room_sound(self, sound: RoomSound, turn: int | None) -> _Voiced:
        if sound.text:
            audio = await asyncio.to_thread(self.parts.caller_voice.synthesize, sound.text, self._caller_profile,
                                            self.language)
        else:  # a cough
            rng = np.random.default_rng(stable_seed("polygon.call", "cough", self.conversation_id, turn))
            audio = burst("cough", int(rng.integers(250, 600)), self.rate, rng)
        line = self._on_line(audio)
        return _Voiced(line, await asyncio.to_thread(self._spans, line))

    def _place_caller(self, voiced: _Voiced, start: int, *, kind: SegmentKind, text: str, heard: str | None,
                      turn: int | None) -> None:
        self._caller_audio.append((start, voiced.audio))
        self.segments.append(Segment(side="caller", start_ms=start + voiced.first, end_ms=start + voiced.last,
                                     kind=kind, text=text, heard=heard, turn=turn))

    def _endpoint(self, voiced: _Voiced) -> int:
        """Where the cascade's VAD ends the caller's turn: the first silence of `endpoint_ms`."""
        for (_, end), (nxt, _) in zip(voiced.spans, voiced.spans[1:], strict=False):
            if nxt - end >= self.cascade.endpoint_ms:
                return end
        return voiced.last

    # --- signal --------------------------------------------------------------------------------

    def _degrade(self, audio: Audio, turn: int) -> tuple[Audio, list[LineEvent]]:
        babble = self._office_babble() if preset(self.conditions).name == "office" else None
        return degrade(audio, self.conditions, conversation_id=self.conversation_id, turn=turn,
                       noise_bank=self.noise_bank, babble=babble)

    def _office_babble(self) -> Audio:
        """Babble for the office preset: four colleagues' voices over each other, made once per call."""
        if self._babble is None:
            lines = _BABBLE.get(self.language, _BABBLE["en"])
            parts = [resample(self.parts.caller_voice.synthesize(text, _colleague(i), self.language), self.rate)
                     for i, text in enumerate(lines)]
            n = max(len(p.samples) for p in parts)
            mix = np.zeros(n, dtype=np.float64)
            for i, p in enumerate(parts):
                mix += np.roll(np.pad(p.samples, (0, n - len(p.samples))), i * n // len(parts))
            self._babble = Audio((mix / max(1e-9, float(np.abs(mix).max())) * 0.9).astype(np.float32), self.rate)
        return self._babble

    def _on_line(self, audio: Audio) -> Audio:
        """Audio at the line's rate, through its codec (the agent's voice and the caller's asides)."""
        out = resample(audio, self.rate)
        if preset(self.conditions).codec:
            out = mulaw_decode(mulaw_encode(out), out.rate)
        return out

    def _spans(self, audio: Audio) -> list[tuple[int, int]]:
        """Where `audio` has speech, as (start, end) ms spans of the VAD's frames."""
        frame = self.parts.vad.frame_ms
        spans: list[tuple[int, int]] = []
        for i, speech in enumerate(self.parts.vad.speech_frames(audio)):
            if not speech:
                continue
            start = i * frame
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], start + frame)
            else:
                spans.append((start, start + frame))
        end = audio.duration_ms
        return [(s, min(e, end)) for s, e in spans if s < end]

    def _channel(self, pieces: list[tuple[int, Audio]], n: int) -> Audio:
        out = np.zeros(n, dtype=np.float64)
        for at, audio in pieces:
            first = self.rate * at // 1000
            part = audio.samples[: max(0, n - first)].astype(np.float64)
            out[first:first + len(part)] += part
        return Audio(np.clip(out, -1.0, 1.0).astype(np.float32), self.rate)


_BABBLE = {
    "en": ("Did you send the report to finance yet?", "The meeting moved to three o'clock.",
           "Can someone check the printer on the second floor?", "I'll call them back after lunch."),
    "ru": ("Ты отправил отчёт в бухгалтерию?", "Совещание перенесли на три часа.",
           "Кто-нибудь посмотрит принтер на втором этаже?", "Я перезвоню им после обеда."),
}


def _colleague(i: int) -> VoiceProfile:
    return VoiceProfile(rate_wpm=160 + 10 * i, pitch=35 + 10 * i, variant=("m1", "f2", "m4", "f3")[i % 4])
