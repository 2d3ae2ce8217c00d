"""What travels on a voice bot's line, whatever the wire: the call's start parameters, the caller's
20 ms frames, the bot's events and the line's faults.

A wire module (`_twilio.py`: Twilio Media Streams) turns these into messages and back; a transport
(`polygon_core.adapters.transports`) moves the messages over a socket in real time. Pure: no I/O,
no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._audio import Audio
from ._signal import FRAME_MS, PHONE_RATE, mulaw_decode, mulaw_encode, resample

__all__ = ["FRAME_BYTES", "MULAW_SILENCE", "PARAM_CONVERSATION", "PARAM_MCP_URL", "PARAM_SCENARIO",
           "PARAM_TOOLS_URL", "SILENT_FRAME", "BotAudio", "BotClear", "BotEvent", "BotMark", "BotSideEvent",
           "BotTranscript", "CallStart", "ProtocolError", "ProtocolFault", "UnknownMessage", "WireError",
           "caller_frames", "join_payloads"]

FRAME_BYTES = PHONE_RATE * FRAME_MS // 1000  # 160: 20 ms of 8 kHz G.711 mu-law, one byte a sample
MULAW_SILENCE = 0xFF  # mu-law's code for a zero sample (0x00 is the loudest negative one)
SILENT_FRAME = bytes([MULAW_SILENCE]) * FRAME_BYTES

# The custom parameters every call carries (Twilio's `start.customParameters`; a Pipecat bot reads
# them as `call_data["body"]`).
PARAM_SCENARIO = "scenario_id"
PARAM_CONVERSATION = "conversation_id"
PARAM_TOOLS_URL = "tools_url"
PARAM_MCP_URL = "mcp_url"

# binary_frame: a binary WebSocket frame where the wire has only text; not_json: text that is not
# JSON; malformed: JSON without the fields the message needs (or of the wrong type); bad_base64: an
# audio payload that is not base64; wrong_codec: a media format other than 8 kHz mono mu-law;
# wrong_stream: a message for another stream than this call's.
ProtocolFault = Literal["binary_frame", "not_json", "malformed", "bad_base64", "wrong_codec", "wrong_stream"]


class WireError(Exception):
    """A call's line failed. `reason` is a short code naming how (a `ProtocolFault`, or a transport's:
    refused, tls, closed...), `detail` one line saying what was seen.

    Not a ValueError on purpose: a bot that breaks the line is the agent's failure (the call ends
    with `agent_error`), not bad input from the user.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class ProtocolError(WireError):
    """A message that breaks the wire's protocol (`reason` is a `ProtocolFault`)."""

    reason: ProtocolFault

    def __init__(self, reason: ProtocolFault, detail: str) -> None:
        super().__init__(reason, detail)


@dataclass(frozen=True)
class CallStart:
    """What Polygon tells a bot when it dials: which conversation this is and where its tools are.

    `extra` adds custom parameters of the agent's own; Polygon's four names win over it.
    """

    conversation_id: str
    scenario_id: str
    tools_url: str | None = None  # the tool stubs' HTTP root (one POST endpoint per tool)
    mcp_url: str | None = None  # the same stubs as an MCP server (streamable HTTP)
    extra: Mapping[str, str] = field(default_factory=dict)

    def parameters(self) -> dict[str, str]:
        """The custom parameters, as strings; a URL that is None is left out."""
        ours = {PARAM_SCENARIO: self.scenario_id, PARAM_CONVERSATION: self.conversation_id,
                PARAM_TOOLS_URL: self.tools_url, PARAM_MCP_URL: self.mcp_url}
        return {**self.extra, **{k: v for k, v in ours.items() if v is not None}}


# --- what the bot sends, decoded ----------------------------------------------------------------

@dataclass(frozen=True)
class BotAudio:
    """Audio the bot sent for the caller to hear: G.711 mu-law bytes at 8 kHz (any length; Pipecat
    sends 40 ms a message, twice as fast as real time, for the line to buffer)."""

    mulaw: bytes

    @property
    def audio(self) -> Audio:
        """The samples, decoded."""
        return mulaw_decode(self.mulaw, PHONE_RATE)

    @property
    def duration_ms(self) -> float:
        """How long the audio plays."""
        return len(self.mulaw) * 1000 / PHONE_RATE


@dataclass(frozen=True)
class BotMark:
    """The bot asks to be told, with this name, when the audio it sent before has played."""

    name: str


@dataclass(frozen=True)
class BotClear:
    """The bot flushed the audio it sent that has not played yet (it stopped talking: a yield)."""


@dataclass(frozen=True)
class BotTranscript:
    """The bot's own transcript of one finished utterance: its own (`agent`) or the caller's as it
    heard it (`user`)."""

    role: Literal["agent", "user"]
    text: str


@dataclass(frozen=True)
class BotSideEvent:
    """Something the bot reports about itself (a tool it called, a state it entered), kept as is."""

    name: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UnknownMessage:
    """A well-formed message of an event this wire does not use (`dtmf` from a bot, a newer
    protocol's event): kept so that it can be counted, never an error."""

    event: str


BotEvent = BotAudio | BotMark | BotClear | BotTranscript | BotSideEvent | UnknownMessage


# --- frames ---------------------------------------------------------------------------------------

def caller_frames(audio: Audio) -> list[bytes]:
    """`audio` as 20 ms frames of 8 kHz mu-law, 160 bytes each (resampled to 8 kHz first if it is
    not), the last one padded with mu-law silence. No audio, no frames."""
    coded = mulaw_encode(resample(audio, PHONE_RATE))
    short = -len(coded) % FRAME_BYTES
    coded += bytes([MULAW_SILENCE]) * short
    return [coded[i:i + FRAME_BYTES] for i in range(0, len(coded), FRAME_BYTES)]


def join_payloads(payloads: Iterable[bytes]) -> Audio:
    """One stretch of 8 kHz audio from mu-law payloads received in order."""
    return mulaw_decode(b"".join(payloads), PHONE_RATE)
