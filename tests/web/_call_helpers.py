"""A call built by hand for the call-player tests: a voice conversation, its timeline and a WAV.

Six seconds at 8 kHz, stereo 16-bit: the caller's speech is a 440 Hz tone on the left channel, the
agent's a 660 Hz tone on the right, each where the timeline puts its segments. The agent's first
reply is cut short by the caller's barge-in (it yields 200 ms later); the caller backchannels once.
"""

from __future__ import annotations

import io
import math
import struct
import wave
from typing import Any

from polygon.usecases import Stores, call_audio_key, call_timeline_key, transcript_key
from polygon_core.models import Conversation, EndReason, InteractionMetric, LineConditions, Turn, VoiceCall
from polygon_core.voice import LineEvent, Segment, Timeline

RATE = 8000
DURATION_MS = 6000

# (speaker, text, heard, start_ms, end_ms, interrupted): the transcript's turns, in order.
TURNS: list[tuple[str, str, str | None, int, int, bool]] = [
    ("caller", "Hi, I was charged twice.", "hi I was charged twice", 0, 1500, False),
    ("agent", "I can help with that. What is your order number?", "I can help with that.", 2100, 3500, True),
    ("caller", "It is fifteen.", "it is fifty", 3300, 4200, False),
    ("agent", "Thanks, I found order fifty.", "Thanks, I found order fifty.", 4900, 5800, False),
]
# Caller lane: turn 0, a backchannel, turn 2; agent lane: turns 1 and 3.
SEGMENTS: list[Segment] = [
    Segment(side="caller", start_ms=0, end_ms=1500, text=TURNS[0][1], heard=TURNS[0][2], turn=0),
    Segment(side="agent", start_ms=2100, end_ms=3500, text=TURNS[1][1], heard=TURNS[1][2], turn=1,
            interrupted=True),
    Segment(side="caller", start_ms=2500, end_ms=2800, kind="backchannel", text="mm-hmm"),
    Segment(side="caller", start_ms=3300, end_ms=4200, text=TURNS[2][1], heard=TURNS[2][2], turn=2),
    Segment(side="agent", start_ms=4900, end_ms=5800, text=TURNS[3][1], heard=TURNS[3][2], turn=3),
]
EVENTS: list[LineEvent] = [
    LineEvent(kind="codec", start_ms=0, end_ms=DURATION_MS, detail={"codec": "mu-law"}),
    LineEvent(kind="noise", start_ms=0, end_ms=DURATION_MS, side="caller", detail={"snr_db": 15}),
    LineEvent(kind="burst", start_ms=1000, end_ms=1200, side="caller", detail={"sound": "door"}),
    LineEvent(kind="barge_in", start_ms=3300, end_ms=3300, side="caller"),
    LineEvent(kind="yield", start_ms=3500, end_ms=3500, side="agent"),
    LineEvent(kind="silence", start_ms=4200, end_ms=4900),
    LineEvent(kind="frame_drop", start_ms=5000, end_ms=5040, side="agent"),
]
METRICS: dict[str, InteractionMetric] = {
    "response_latency": InteractionMetric(value=0.65, count=2),
    "yield_latency": InteractionMetric(value=0.2, count=1),
    "response_rate": InteractionMetric(value=1.0, count=2),
    "yield_rate": InteractionMetric(value=1.0, count=1),
    "agent_interruption_rate": InteractionMetric(value=0.0, count=2),
    "selectivity_backchannel": InteractionMetric(value=1.0, count=1),
    "selectivity_vocal_tic": InteractionMetric(value=None, count=0),
    "selectivity_non_directed": InteractionMetric(value=None, count=0),
    "time_to_first_audio": InteractionMetric(value=2.1, count=1),
    "longest_silence": InteractionMetric(value=0.7, count=1),
    "word_error_rate": InteractionMetric(value=0.25, count=8),
}


def voice_conversation(base: Conversation | None = None, *, run_id: str = "run-call",
                       conversation_id: str = "call-1") -> Conversation:
    """A call: `base`'s identity (a demo conversation's, so its stored row matches) with the turns,
    times and voice summary above; without `base`, a conversation made up whole."""
    turns = [Turn(index=i, speaker=speaker, text=text, heard=heard, start_ms=start, end_ms=end,  # type: ignore[arg-type]
                  interrupted=cut)
             for i, (speaker, text, heard, start, end, cut) in enumerate(TURNS)]
    cid = base.id if base is not None else conversation_id
    voice = VoiceCall(conditions=LineConditions(preset="street"), sample_rate=RATE, duration_ms=DURATION_MS,
                      metrics=METRICS, audio_key=call_audio_key(run_id, cid),
                      timeline_key=call_timeline_key(run_id, cid),
                      stack={"caller_voice": "espeak:en", "agent_ears": "whisper:tiny.en"})
    if base is not None:
        return base.model_copy(update={"turns": turns, "channel": "voice", "voice": voice})
    return Conversation(id=cid, scenario_id="refund", seed=0, agent_name="demo", agent_version="v1",
                        persona_hash="p", caller_type="busy", difficulty=2, turns=turns,
                        end_reason=EndReason.CALLER_HANGUP, clock_ms=DURATION_MS, channel="voice", voice=voice)


def timeline(conversation_id: str) -> Timeline:
    """The call's timeline."""
    return Timeline(conversation_id=conversation_id, sample_rate=RATE, duration_ms=DURATION_MS,
                    conditions=LineConditions(preset="street"), segments=SEGMENTS, events=EVENTS)


def wav_bytes() -> bytes:
    """The call's stereo WAV: caller left (440 Hz where the caller speaks), agent right (660 Hz)."""
    frames = RATE * DURATION_MS // 1000
    left = _tone([s for s in SEGMENTS if s.side == "caller"], 440.0, frames)
    right = _tone([s for s in SEGMENTS if s.side == "agent"], 660.0, frames)
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(b"".join(struct.pack("<hh", a, b) for a, b in zip(left, right, strict=True)))
    return out.getvalue()


def _tone(segments: list[Segment], hz: float, frames: int) -> list[int]:
    samples = [0] * frames
    for seg in segments:
        for i in range(seg.start_ms * RATE // 1000, min(frames, seg.end_ms * RATE // 1000)):
            samples[i] = int(8000 * math.sin(2 * math.pi * hz * i / RATE))
    return samples


def store_call(stores: Stores | Any, run_id: str, conv: Conversation) -> str:
    """Store the call's transcript (replacing any), its WAV and its timeline where a run keeps them;
    return the transcript's URI."""
    stores.artifacts.put_bytes(call_audio_key(run_id, conv.id), wav_bytes(), content_type="audio/wav")
    stores.artifacts.put_text(call_timeline_key(run_id, conv.id), timeline(conv.id).model_dump_json(indent=2))
    uri: str = stores.artifacts.put_text(transcript_key(run_id, conv.id), conv.model_dump_json(indent=2))
    return uri


def seed_call_run(home: Any, run_id: str = "run-call") -> tuple[str, str]:
    """A POLYGON_HOME holding one run (the demo agent v1 on the demo suite, made by the use cases)
    with two stored conversations: the call above and a text one. Returns their ids."""
    from polygon import usecases
    from polygon_core.adapters.settings import load_settings
    from polygon_core.demo import demo_dir

    stores = usecases.open_stores(load_settings(home=home))
    suite, agent = str(demo_dir() / "suite"), str(demo_dir() / "agents" / "agent_v1.yaml")
    run = usecases.new_run(agent, suite, seeds=[0], run_id=run_id)
    usecases.create_run(stores, run, suite_path=suite, agent_path=agent)
    call = voice_conversation(run_id=run_id, conversation_id="call-1")
    text = call.model_copy(update={"id": "text-1", "channel": "text", "voice": None, "turns": [
        t.model_copy(update={"start_ms": None, "end_ms": None, "interrupted": False}) for t in call.turns]})
    call_uri = store_call(stores, run_id, call)
    text_uri = stores.artifacts.put_text(transcript_key(run_id, text.id), text.model_dump_json(indent=2))
    stores.repo.save_conversation(run_id, call, artifact_uri=call_uri, assertions=[])
    stores.repo.save_conversation(run_id, text, artifact_uri=text_uri, assertions=[])
    return call.id, text.id
