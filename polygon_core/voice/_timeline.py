"""The call's timeline: both channels' speech segments and the line's events, in milliseconds.

It is what the interaction metrics read (`interaction_metrics`), what the web player draws and
what is stored beside the stereo WAV (`runs/<run>/calls/<conversation>.timeline.json`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..models import DomainModel, LineConditions

TIMELINE_FORMAT = 1
TICK_MS = 200  # the simulated clock's step, as tau-voice's (docs/voice.md, "Turn-taking")

Side = Literal["caller", "agent"]
# speech: a turn's words; backchannel: "mm-hmm" while the agent talks; vocal_tic: "um", a cough;
# non_directed: the caller talking to someone else in the room; hello: "hello?" after a silence.
SegmentKind = Literal["speech", "backchannel", "vocal_tic", "non_directed", "hello"]
EventKind = Literal["noise", "burst", "muffle", "frame_drop", "codec", "barge_in", "yield",
                    "tool_call", "hangup", "silence"]


class Segment(DomainModel):
    """One stretch of one side's audio on the timeline."""

    side: Side
    start_ms: int = Field(..., ge=0)
    end_ms: int = Field(..., ge=0)
    kind: SegmentKind = "speech"
    text: str = Field("", description="what the side said")
    heard: str | None = Field(None, description="what the other side heard (recogniser output)")
    heard_from: Literal["agent", "polygon"] | None = Field(
        None, description="on a call to a voice bot, whose transcript a caller segment's `heard` is: the "
        "bot's own (`agent`, its `user` side message) or Polygon's recogniser (`polygon`); None elsewhere")
    turn: int | None = Field(None, description="the transcript turn this segment voices")
    interrupted: bool = Field(False, description="an agent segment cut short because the agent yielded")

    @property
    def duration_ms(self) -> int:
        """Length of the segment."""
        return self.end_ms - self.start_ms


class LineEvent(DomainModel):
    """Something that happened on the line or in the call: a condition, a barge-in, a tool call."""

    kind: EventKind
    start_ms: int = Field(..., ge=0)
    end_ms: int = Field(..., ge=0)
    side: Side | None = Field(None, description="whose audio it touched (None: the whole line)")
    detail: dict[str, Any] = Field(default_factory=dict)


class Timeline(DomainModel):
    """A whole call: segments sorted by start, events sorted by start."""

    format_version: int = TIMELINE_FORMAT
    conversation_id: str
    tick_ms: int = TICK_MS
    sample_rate: int = 16_000
    duration_ms: int = 0
    conditions: LineConditions = Field(default_factory=LineConditions)
    segments: list[Segment] = Field(default_factory=list)
    events: list[LineEvent] = Field(default_factory=list)

    def side(self, side: Side) -> list[Segment]:
        """One side's segments, in time order."""
        return sorted((s for s in self.segments if s.side == side), key=lambda s: (s.start_ms, s.end_ms))
