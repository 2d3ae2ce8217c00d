"""The Twilio Media Streams wire as data (polygon_core/voice/_twilio.py, _wire.py), on recorded message
sequences: what Polygon sends on a call, what a Pipecat bot sends back, and every frame that breaks
the wire, each with its named fault (tests/voice/fixtures/twilio/)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polygon_core.voice import (
    FRAME_BYTES,
    SILENT_FRAME,
    Audio,
    BotAudio,
    BotClear,
    BotEvent,
    BotMark,
    BotSideEvent,
    BotTranscript,
    CallerConnected,
    CallerMark,
    CallerMedia,
    CallerStart,
    CallerStop,
    CallStart,
    ProtocolError,
    TwilioCaller,
    TwilioStream,
    UnknownMessage,
    WireError,
    caller_frames,
    join_payloads,
    message_text,
    mulaw_decode,
    mulaw_encode,
    parse_bot_message,
    parse_caller_message,
    to_pcm16,
)

FIXTURES = Path(__file__).parent / "fixtures" / "twilio"


def _fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return loaded


def _call() -> tuple[dict[str, Any], CallStart, list[bytes]]:
    recorded = _fixture("caller_call.json")
    return recorded, CallStart(**recorded["call"]), [bytes.fromhex(h) for h in recorded["frames_hex"]]


# -- what Polygon sends ------------------------------------------------------------------------------

def test_polygon_sends_a_call_byte_for_byte_as_recorded() -> None:
    recorded, start, frames = _call()
    caller = TwilioCaller(TwilioStream.for_call(start))
    built = [caller.connected(), caller.start(), caller.media(frames[0]), caller.media(frames[1]),
             caller.mark("turn-1-end"), caller.stop()]
    assert [message_text(m) for m in built] == recorded["messages"]
    assert (caller.sequence, caller.chunks) == (5, 2)


def test_the_start_carries_twilios_fields_and_polygons_parameters() -> None:
    _, start, _ = _call()
    message = TwilioCaller(TwilioStream.for_call(start)).start()
    assert message == {
        "event": "start", "sequenceNumber": "1", "streamSid": "MZ4df1e9fe52cf36f0174f113f1b5ea752",
        "start": {"accountSid": "AC8fa42bb380ca704592e7f111935f9f6d", "streamSid": "MZ4df1e9fe52cf36f0174f113f1b5ea752",
                  "callSid": "CA90d12b49d9584ff31556a6e9d446a1dd", "tracks": ["inbound"],
                  "customParameters": {"scenario_id": "billing-dispute", "conversation_id": "conv-1",
                                       "tools_url": "http://127.0.0.1:8765/calls/conv-1/tools",
                                       "mcp_url": "http://127.0.0.1:8765/calls/conv-1/mcp"},
                  "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}}}


def test_sids_are_twilio_shaped_and_follow_the_conversation() -> None:
    one, again, other = (TwilioStream.for_call(CallStart(c, "s")) for c in ("conv-1", "conv-1", "conv-2"))
    assert [bool(re.fullmatch(p + "[0-9a-f]{32}", s)) for p, s in
            (("MZ", one.stream_sid), ("CA", one.call_sid), ("AC", one.account_sid))] == [True, True, True]
    assert one == again  # a redialled call reads the same
    assert (other.stream_sid != one.stream_sid, other.call_sid != one.call_sid,
            other.account_sid == one.account_sid) == (True, True, True)


def test_custom_parameters_leave_out_missing_urls_and_polygons_names_win() -> None:
    start = CallStart("conv-9", "refund", extra={"from_number": "+15550100", "scenario_id": "theirs"})
    assert start.parameters() == {"from_number": "+15550100", "scenario_id": "refund", "conversation_id": "conv-9"}


def test_media_timestamps_count_frames_unless_given() -> None:
    caller = TwilioCaller(TwilioStream.for_call(CallStart("c", "s")))
    stamps = [caller.media(SILENT_FRAME)["media"]["timestamp"] for _ in range(3)]
    given = caller.media(SILENT_FRAME, timestamp_ms=1000)["media"]
    assert (stamps, given["timestamp"], given["chunk"]) == (["0", "20", "40"], "1000", "4")


def test_what_polygon_sends_parses_back() -> None:
    recorded, start, frames = _call()
    stream = TwilioStream.for_call(start)
    assert [parse_caller_message(text) for text in recorded["messages"]] == [
        CallerConnected("Call", "1.0.0"),
        CallerStart(stream, ("inbound",), 1),
        CallerMedia(frames[0], chunk=1, timestamp_ms=0, sequence=2),
        CallerMedia(frames[1], chunk=2, timestamp_ms=20, sequence=3),
        CallerMark("turn-1-end", 4),
        CallerStop(5),
    ]
    assert parse_caller_message('{"event": "dtmf", "dtmf": {"digit": "1"}}') == UnknownMessage("dtmf")


# -- what a bot sends ----------------------------------------------------------------------------------

def _expected(expect: dict[str, Any]) -> BotEvent | None:
    """The event a fixture line describes (None for audio: checked by length and first bytes)."""
    kind = expect["kind"]
    if kind == "audio":
        return None
    return {"mark": lambda: BotMark(expect["name"]), "clear": BotClear,
            "transcript": lambda: BotTranscript(expect["role"], expect["text"]),
            "event": lambda: BotSideEvent(expect["name"], expect["data"]),
            "unknown": lambda: UnknownMessage(expect["event"])}[kind]()


def test_a_pipecat_bots_call_parses_frame_by_frame() -> None:
    recorded = _fixture("bot_call.json")
    parsed = [parse_bot_message(line["text"], stream_sid=recorded["stream_sid"]) for line in recorded["frames"]]
    for line, event in zip(recorded["frames"], parsed, strict=True):
        expect = line["expect"]
        if expect["kind"] == "audio":
            assert isinstance(event, BotAudio)
            assert (len(event.mulaw), event.mulaw[:8].hex(), event.duration_ms) == (
                expect["bytes"], expect["head_hex"], 40.0)
        else:
            assert event == _expected(expect)
    assert [type(e).__name__ for e in parsed] == [
        "BotAudio", "BotAudio", "BotMark", "BotTranscript", "BotTranscript", "BotClear", "BotSideEvent",
        "UnknownMessage", "UnknownMessage", "UnknownMessage"]


def test_the_bots_audio_decodes_to_its_tone() -> None:
    # Pipecat's bot said a 440 Hz tone at 0.3 of full scale, 40 ms a message at 8 kHz.
    recorded = _fixture("bot_call.json")
    audio_events = [parse_bot_message(line["text"]) for line in recorded["frames"][:2]]
    joined = join_payloads(e.mulaw for e in audio_events if isinstance(e, BotAudio))
    first = audio_events[0]
    assert isinstance(first, BotAudio)
    assert (joined.rate, len(joined.samples), first.audio.rate, len(first.audio.samples)) == (8000, 640, 8000, 320)
    assert float(np.abs(joined.samples).max()) == pytest.approx(0.3, abs=0.01)
    spectrum = np.abs(np.fft.rfft(joined.samples))
    assert int(np.argmax(spectrum)) * 8000 / len(joined.samples) == pytest.approx(440, abs=12.5)


# -- faults ------------------------------------------------------------------------------------------

FAULTS = _fixture("faults.json")


@pytest.mark.parametrize("case", FAULTS["bot"], ids=[c["name"] for c in FAULTS["bot"]])
def test_a_broken_bot_frame_is_a_named_fault(case: dict[str, Any]) -> None:
    data: str | bytes = bytes.fromhex(case["binary_hex"]) if "binary_hex" in case else case["text"]
    with pytest.raises(ProtocolError) as raised:
        parse_bot_message(data, stream_sid=FAULTS["stream_sid"])
    assert (raised.value.reason, str(raised.value)) == (case["reason"], case["message"])


@pytest.mark.parametrize("case", FAULTS["caller"], ids=[c["name"] for c in FAULTS["caller"]])
def test_a_broken_caller_frame_is_a_named_fault(case: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError) as raised:
        parse_caller_message(case["text"])
    assert (raised.value.reason, str(raised.value)) == (case["reason"], case["message"])


def test_the_faults_cover_every_reason_and_are_not_bad_input() -> None:
    reasons = {c["reason"] for c in FAULTS["bot"] + FAULTS["caller"]}
    assert reasons == {"binary_frame", "not_json", "malformed", "bad_base64", "wrong_codec", "wrong_stream"}
    error = ProtocolError("not_json", "x")
    # A bot's fault ends the call as the agent's error; a ValueError would be the user's bad input (exit 2).
    assert (isinstance(error, WireError), isinstance(error, ValueError), error.reason, error.detail) == (
        True, False, "not_json", "x")


def test_a_bot_message_without_a_stream_is_taken_for_this_call() -> None:
    payload = base64.b64encode(b"\x01\x02").decode()
    assert parse_bot_message(json.dumps({"event": "media", "media": {"payload": payload}}),
                             stream_sid="MZ1") == BotAudio(b"\x01\x02")


# -- frames ------------------------------------------------------------------------------------------

def test_caller_audio_splits_into_padded_20ms_frames() -> None:
    ramp = Audio(np.linspace(-0.5, 0.5, 360, dtype=np.float32), 8000)  # 45 ms
    frames = caller_frames(ramp)
    coded = mulaw_encode(ramp)
    assert [len(f) for f in frames] == [FRAME_BYTES] * 3
    assert b"".join(frames) == coded + b"\xff" * 120  # the last 15 ms are mu-law silence
    heard = join_payloads(frames)
    assert (heard.rate, len(heard.samples)) == (8000, 480)
    assert np.array_equal(heard.samples[:360], mulaw_decode(coded).samples)
    assert not heard.samples[360:].any()


def test_caller_audio_at_another_rate_is_resampled_and_silence_is_silent_frames() -> None:
    assert [len(f) for f in caller_frames(Audio.silence(50, 16_000))] == [FRAME_BYTES] * 3
    assert caller_frames(Audio.silence(40, 8000)) == [SILENT_FRAME, SILENT_FRAME]
    assert caller_frames(Audio.silence(0, 8000)) == []
    assert mulaw_encode(Audio.silence(20, 8000)) == SILENT_FRAME


# -- a real Pipecat bot's serializer (when pipecat-ai is installed) ------------------------------------

class _TwoMessages:
    """The part of FastAPI's WebSocket Pipecat's runner reads: the first text messages."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def iter_text(self) -> Any:
        async def messages() -> Any:
            for text in self.texts:
                yield text
        return messages()


async def test_pipecat_reads_polygons_start_and_media_and_polygon_reads_pipecats() -> None:
    pytest.importorskip("pipecat")
    from pipecat.frames.frames import InterruptionFrame, OutputAudioRawFrame, OutputTransportMessageFrame
    from pipecat.runner.utils import parse_telephony_websocket
    from pipecat.serializers.twilio import TwilioFrameSerializer

    _, start, frames = _call()
    caller = TwilioCaller(TwilioStream.for_call(start))
    # The runner detects Twilio from `start` and hands the bot its custom parameters as `body`.
    kind, data = await parse_telephony_websocket(
        _TwoMessages([message_text(caller.connected()), message_text(caller.start())]))
    assert (kind, data["stream_id"], data["call_id"], data["body"]) == (
        "twilio", caller.stream.stream_sid, caller.stream.call_sid, dict(start.parameters()))

    # auto_hang_up would call Twilio's REST API when the bot ends: a bot on Polygon's line turns it off.
    serializer = TwilioFrameSerializer(stream_sid=caller.stream.stream_sid,
                                       params=TwilioFrameSerializer.InputParams(auto_hang_up=False))

    class Setup:
        audio_in_sample_rate = 8000

    await serializer.setup(Setup())  # type: ignore[arg-type]
    heard = await serializer.deserialize(message_text(caller.media(frames[1])))
    assert (heard.sample_rate, heard.audio) == (8000, to_pcm16(mulaw_decode(frames[1])))  # type: ignore[union-attr]
    assert [await serializer.deserialize(message_text(m)) for m in (caller.mark("m"), caller.stop())] == [None, None]

    tone = to_pcm16(Audio(np.full(320, 0.25, dtype=np.float32), 8000))
    said = [await serializer.serialize(f) for f in (
        OutputAudioRawFrame(audio=tone, sample_rate=8000, num_channels=1), InterruptionFrame(),
        OutputTransportMessageFrame(message={"event": "polygon", "polygon": {"type": "transcript", "role": "user",
                                                                             "text": "I was charged twice."}}))]
    sid = caller.stream.stream_sid
    assert [parse_bot_message(s, stream_sid=sid) for s in said if isinstance(s, str)] == [
        BotAudio(mulaw_encode(Audio(np.full(320, 0.25, dtype=np.float32), 8000))), BotClear(),
        BotTranscript("user", "I was charged twice.")]
