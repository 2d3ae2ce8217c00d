"""Transports: the line from Polygon, as the phone network, to a voice bot, behind the
`Transport` Protocol and registered by name.

- `twilio` (`make_transport("twilio")`): Twilio Media Streams over a WebSocket (ws:// or wss://),
  on the `websockets` library, imported when a call dials; the messages themselves are
  `polygon_core.voice`'s (`TwilioCaller`, `parse_bot_message`).
- `PacedSender`: the caller's 20 ms frames on absolute deadlines of the loop's clock, each frame's
  send time kept; `cadence` measures jitter and late frames.

Every failure of a line is a `polygon_core.voice.WireError` with a named `reason`: a
`TransportError` (refused, tls, unreachable, timeout, handshake, closed) or a `ProtocolError`
(binary_frame, not_json, malformed, bad_base64, wrong_codec, wrong_stream).
"""

from ._base import (
    Closed,
    LinkFault,
    Transport,
    TransportConfigError,
    TransportError,
    TransportFactory,
    TransportOptions,
)
from ._pacing import FRAME_PERIOD_S, Cadence, FrameTimes, PacedSender, cadence, frame_deadline
from ._registry import PLUGIN_GROUP, TRANSPORTS, make_transport, transport, transport_names
from ._twilio import TwilioTransport, check_url

__all__ = [
    "FRAME_PERIOD_S",
    "PLUGIN_GROUP",
    "TRANSPORTS",
    "Cadence",
    "Closed",
    "FrameTimes",
    "LinkFault",
    "PacedSender",
    "Transport",
    "TransportConfigError",
    "TransportError",
    "TransportFactory",
    "TransportOptions",
    "TwilioTransport",
    "cadence",
    "check_url",
    "frame_deadline",
    "make_transport",
    "transport",
    "transport_names",
]
