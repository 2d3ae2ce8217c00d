"""Twilio Media Streams as data: the messages Polygon sends as the phone network, and what it makes
of the messages a bot sends back.

The wire (Twilio's "Media Streams - WebSocket Messages"; what Pipecat's `TwilioFrameSerializer`
and its runner's `parse_telephony_websocket` read and write), one JSON object per text frame:

* Polygon -> bot: `connected` (protocol "Call", version "1.0.0"); `start` (sequenceNumber "1";
  `start.streamSid`, `callSid`, `accountSid`, `tracks`, `customParameters`, `mediaFormat` =
  audio/x-mulaw, 8000 Hz, 1 channel); `media` per 20 ms of the caller (base64 mu-law
  `media.payload`, `track` "inbound", `chunk` from "1", `timestamp` in ms from the stream's start);
  `mark` (the name a bot's mark carried, once the audio before it has played); `stop`. Every
  message but `connected` carries `streamSid` and a `sequenceNumber` counting up; Twilio writes
  the numbers as strings, and so does Polygon.
* bot -> Polygon: `media` (`media.payload`, base64 mu-law at 8 kHz), `mark` (`mark.name`),
  `clear`, and Polygon's own side message for what the bot heard and did:
  `{"event": "polygon", "polygon": {"type": "transcript", "role": "agent"|"user", "text": ...}}`
  or `{"type": "event", "name": ..., "data": {...}}` (docs/voice.md, "A voice bot on the line").

Parsing is strict where a broken message would corrupt the call (a `ProtocolError` with a
`ProtocolFault` reason) and lenient where the wire may grow: a well-formed message of an event
Polygon does not use is returned as `UnknownMessage`, to be counted, and the call goes on.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._signal import FRAME_MS, PHONE_RATE
from ._wire import (
    BotAudio,
    BotClear,
    BotEvent,
    BotMark,
    BotSideEvent,
    BotTranscript,
    CallStart,
    ProtocolError,
    UnknownMessage,
)

__all__ = ["TWILIO_ENCODING", "TWILIO_PROTOCOL", "TWILIO_TRACK", "TWILIO_VERSION", "CallerConnected",
           "CallerMark", "CallerMedia", "CallerMessage", "CallerStart", "CallerStop", "TwilioCaller",
           "TwilioStream", "message_text", "parse_bot_message", "parse_caller_message"]

TWILIO_PROTOCOL = "Call"
TWILIO_VERSION = "1.0.0"
TWILIO_ENCODING = "audio/x-mulaw"
TWILIO_TRACK = "inbound"  # the caller's audio, as Twilio names the track it streams to a bot
SIDE_EVENT = "polygon"
_POLYGON_ACCOUNT = "polygon-bench"  # every call's accountSid is derived from this
_SHOWN = 80  # characters of an offending frame quoted in an error


@dataclass(frozen=True)
class TwilioStream:
    """One call's stream as Twilio identifies it: three SIDs (34 characters: a two-letter prefix and
    32 hex digits, as Twilio's) and the custom parameters."""

    stream_sid: str
    call_sid: str
    account_sid: str
    custom_parameters: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def for_call(cls, start: CallStart) -> TwilioStream:
        """The stream of a call: SIDs derived from the conversation id (the same call, the same
        SIDs, so a redialled call reads the same), `start.parameters()` as custom parameters."""
        return cls(stream_sid=_sid("MZ", "stream", start.conversation_id),
                   call_sid=_sid("CA", "call", start.conversation_id),
                   account_sid=_sid("AC", "account", _POLYGON_ACCOUNT),
                   custom_parameters=start.parameters())


def _sid(prefix: str, *parts: str) -> str:
    return prefix + hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def _media_format() -> dict[str, Any]:
    return {"encoding": TWILIO_ENCODING, "sampleRate": PHONE_RATE, "channels": 1}


class TwilioCaller:
    """The messages Polygon sends on one stream, numbered as Twilio numbers them: `sequenceNumber`
    from "1" (the `start`) up across every message but `connected`, `chunk` from "1" up across
    `media`. Build them in the order they are sent."""

    def __init__(self, stream: TwilioStream) -> None:
        self.stream = stream
        self.sequence = 0  # the last sequenceNumber given
        self.chunks = 0  # media messages built so far

    def _next(self) -> str:
        self.sequence += 1
        return str(self.sequence)

    def connected(self) -> dict[str, Any]:
        """The first message: which protocol follows."""
        return {"event": "connected", "protocol": TWILIO_PROTOCOL, "version": TWILIO_VERSION}

    def start(self) -> dict[str, Any]:
        """The stream's metadata, sent once right after `connected`."""
        s = self.stream
        return {"event": "start", "sequenceNumber": self._next(),
                "start": {"accountSid": s.account_sid, "streamSid": s.stream_sid, "callSid": s.call_sid,
                          "tracks": [TWILIO_TRACK], "customParameters": dict(s.custom_parameters),
                          "mediaFormat": _media_format()},
                "streamSid": s.stream_sid}

    def media(self, frame: bytes, timestamp_ms: int | None = None) -> dict[str, Any]:
        """One frame of the caller's mu-law audio. `timestamp_ms` defaults to the frames before it
        times 20 ms: Polygon streams without gaps (silence is sent as silence), as Twilio does."""
        stamp = self.chunks * FRAME_MS if timestamp_ms is None else timestamp_ms
        self.chunks += 1
        return {"event": "media", "sequenceNumber": self._next(),
                "media": {"track": TWILIO_TRACK, "chunk": str(self.chunks), "timestamp": str(stamp),
                          "payload": base64.b64encode(frame).decode("ascii")},
                "streamSid": self.stream.stream_sid}

    def mark(self, name: str) -> dict[str, Any]:
        """The answer to a bot's mark `name`: the audio it sent before the mark has played."""
        return {"event": "mark", "sequenceNumber": self._next(), "streamSid": self.stream.stream_sid,
                "mark": {"name": name}}

    def stop(self) -> dict[str, Any]:
        """The last message: the call ended."""
        s = self.stream
        return {"event": "stop", "sequenceNumber": self._next(), "streamSid": s.stream_sid,
                "stop": {"accountSid": s.account_sid, "callSid": s.call_sid}}


# One encoder for every message: `json.dumps` with options builds a new one per call, and a call
# sends fifty messages a second.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def message_text(message: Mapping[str, Any]) -> str:
    """A message as the text of one WebSocket frame (compact JSON, as Twilio sends it)."""
    return _COMPACT.encode(message)


# --- parsing --------------------------------------------------------------------------------------

def _shown(text: str) -> str:
    return repr(text[:_SHOWN]) + ("..." if len(text) > _SHOWN else "")


def _load(data: str | bytes) -> tuple[dict[str, Any], str]:
    """The frame's JSON object and its event name."""
    if isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError("binary_frame", f"a binary frame of {len(data)} bytes; expected JSON text")
    try:
        message = json.loads(data)
    except ValueError:
        raise ProtocolError("not_json", f"a text frame that is not JSON: {_shown(data)}") from None
    if not isinstance(message, dict):
        raise ProtocolError("malformed", f"expected a JSON object, got {type(message).__name__}: {_shown(data)}")
    event = message.get("event")
    if not isinstance(event, str) or not event:
        raise ProtocolError("malformed", f"expected a string 'event' field: {_shown(data)}")
    return message, event


def _get(parent: Mapping[str, Any], path: str) -> Any:
    """The field `path` names (dotted from the message's top, e.g. `media.payload`) in its parent."""
    return parent.get(path.rpartition(".")[2])


def _malformed(event: str, path: str, expected: str, value: object) -> ProtocolError:
    return ProtocolError("malformed", f"{event} message: expected {expected} '{path}', got {_kind(value)}")


def _object(parent: Mapping[str, Any], path: str, event: str) -> dict[str, Any]:
    value = _get(parent, path)
    if not isinstance(value, dict):
        raise _malformed(event, path, "an object", value)
    return value


def _text(parent: Mapping[str, Any], path: str, event: str) -> str:
    value = _get(parent, path)
    if not isinstance(value, str):
        raise _malformed(event, path, "a string", value)
    return value


def _kind(value: object) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {json.dumps(value)[:_SHOWN]}"


def _check_stream(message: Mapping[str, Any], event: str, stream_sid: str | None) -> None:
    """A message that names another stream is not this call's (a missing streamSid is let pass:
    the stream is the socket)."""
    sid = message.get("streamSid")
    if stream_sid is not None and sid is not None and sid != stream_sid:
        raise ProtocolError("wrong_stream", f"{event} message: streamSid {sid!r} is not this call's, {stream_sid!r}")


def _payload(media: Mapping[str, Any], event: str) -> bytes:
    text = _text(media, "media.payload", event)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ProtocolError("bad_base64", f"{event} message: 'media.payload' is not base64: {_shown(text)}") from None


def _check_format(start: Mapping[str, Any], event: str) -> None:
    """8 kHz mono mu-law, or a `wrong_codec` fault naming what was declared instead."""
    fmt = _object(start, "start.mediaFormat", event)
    declared = (fmt.get("encoding"), fmt.get("sampleRate"), fmt.get("channels"))
    if declared != (TWILIO_ENCODING, PHONE_RATE, 1):
        raise ProtocolError("wrong_codec", f"{event} message: 'start.mediaFormat' is {json.dumps(fmt)[:2 * _SHOWN]}; "
                                           f"expected {json.dumps(_media_format())}")


def parse_bot_message(data: str | bytes, stream_sid: str | None = None) -> BotEvent:
    """What one frame from the bot says. `stream_sid`: this call's stream, to refuse another's.

    Raises `ProtocolError`: a binary frame, text that is not JSON, a message without the fields its
    event needs, a payload that is not base64, a declared media format other than 8 kHz mono
    mu-law (a `start` echoed by a bot), another stream's message."""
    message, event = _load(data)
    _check_stream(message, event, stream_sid)
    if event == "media":
        return BotAudio(_payload(_object(message, "media", event), event))
    if event == "mark":
        return BotMark(_text(_object(message, "mark", event), "mark.name", event))
    if event == "clear":
        return BotClear()
    if event == SIDE_EVENT:
        return _side_message(_object(message, SIDE_EVENT, event))
    start = message.get("start")
    if event == "start" and isinstance(start, dict) and "mediaFormat" in start:
        _check_format(start, event)  # a bot that declares another format would send it too
    return UnknownMessage(event)


def _side_message(body: Mapping[str, Any]) -> BotEvent:
    kind = _text(body, "polygon.type", SIDE_EVENT)
    if kind == "transcript":
        role = _text(body, "polygon.role", SIDE_EVENT)
        if role not in ("agent", "user"):
            raise ProtocolError("malformed", f"{SIDE_EVENT} message: 'polygon.role' is {role!r}; "
                                             "expected 'agent' or 'user'")
        return BotTranscript("agent" if role == "agent" else "user", _text(body, "polygon.text", SIDE_EVENT))
    if kind == "event":
        data = body.get("data", {})
        if not isinstance(data, dict):
            raise _malformed(SIDE_EVENT, "polygon.data", "an object", data)
        return BotSideEvent(_text(body, "polygon.name", SIDE_EVENT), data)
    return UnknownMessage(f"{SIDE_EVENT}.{kind}")


# --- the caller's side, read back (the test bots and benchmarks' echo bot are the bot side) ------

@dataclass(frozen=True)
class CallerConnected:
    """`connected`: the protocol and its version."""

    protocol: str
    version: str


@dataclass(frozen=True)
class CallerStart:
    """`start`: the stream (its format checked: 8 kHz mono mu-law) and its tracks."""

    stream: TwilioStream
    tracks: tuple[str, ...]
    sequence: int


@dataclass(frozen=True)
class CallerMedia:
    """`media`: one frame of the caller's audio."""

    mulaw: bytes
    chunk: int
    timestamp_ms: int
    sequence: int


@dataclass(frozen=True)
class CallerMark:
    """`mark`: the audio before the bot's mark of this name has played."""

    name: str
    sequence: int


@dataclass(frozen=True)
class CallerStop:
    """`stop`: the call ended."""

    sequence: int


CallerMessage = CallerConnected | CallerStart | CallerMedia | CallerMark | CallerStop | UnknownMessage


def _number(parent: Mapping[str, Any], path: str, event: str) -> int:
    """A counter Twilio writes as a string of digits (a JSON integer is taken too)."""
    value = _get(parent, path)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise _malformed(event, path, "a number", value)


def parse_caller_message(data: str | bytes) -> CallerMessage:
    """What one frame from the phone network's side says (what a bot reads): the inverse of
    `TwilioCaller`. Raises `ProtocolError` as `parse_bot_message` does; a `start` whose media
    format is not 8 kHz mono mu-law is `wrong_codec`."""
    message, event = _load(data)
    if event == "connected":
        return CallerConnected(_text(message, "protocol", event), _text(message, "version", event))
    if event == "start":
        return _caller_start(message, event)
    if event == "media":
        media = _object(message, "media", event)
        return CallerMedia(_payload(media, event), _number(media, "media.chunk", event),
                           _number(media, "media.timestamp", event), _number(message, "sequenceNumber", event))
    if event == "mark":
        return CallerMark(_text(_object(message, "mark", event), "mark.name", event),
                          _number(message, "sequenceNumber", event))
    if event == "stop":
        return CallerStop(_number(message, "sequenceNumber", event))
    return UnknownMessage(event)


def _caller_start(message: Mapping[str, Any], event: str) -> CallerStart:
    start = _object(message, "start", event)
    _check_format(start, event)
    tracks = start.get("tracks", [])
    params = start.get("customParameters", {})
    if not (isinstance(tracks, list) and all(isinstance(t, str) for t in tracks)):
        raise _malformed(event, "start.tracks", "a list of strings", tracks)
    if not (isinstance(params, dict) and all(isinstance(v, str) for v in params.values())):
        raise _malformed(event, "start.customParameters", "an object of strings", params)
    stream = TwilioStream(_text(start, "start.streamSid", event), _text(start, "start.callSid", event),
                          _text(start, "start.accountSid", event), params)
    return CallerStart(stream, tuple(tracks), _number(message, "sequenceNumber", event))
