"""Conversation: what was said, what was heard, what the tools did, how it ended."""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import Field, model_validator

from ._base import DomainModel
from ._provenance import TRANSCRIPT_FORMAT, stored_format
from ._voice import Channel, VoiceCall

Speaker = Literal["caller", "agent"]
TurnEnd = Literal["hangup", "transfer", "end", "callback"]
TurnKind = Literal["speech", "vocal_tic", "non_directed"]


class EndReason(str, Enum):
    """Why a conversation stopped."""

    CALLER_HANGUP = "caller_hangup"
    AGENT_END = "agent_end"
    TRANSFER = "transfer"
    CALLBACK = "callback"
    LOOP = "loop"
    MAX_TURNS = "max_turns"
    TIMEOUT = "timeout"
    AGENT_ERROR = "agent_error"
    PROVIDER_ERROR = "provider_error"
    SIMULATOR_ERROR = "simulator_error"


# End reasons that say nothing about the agent's quality: they are reported apart and never scored.
UNSCORED_END_REASONS = frozenset({EndReason.PROVIDER_ERROR, EndReason.SIMULATOR_ERROR})


class Distortion(DomainModel):
    """One recognition-noise edit applied to a caller's words."""

    kind: Literal["drop", "digits", "homophone", "filler"]
    original: str
    replacement: str
    position: int = Field(..., description="word index in the text as said")


class DomainEvent(DomainModel):
    """A domain event a stub emitted (e.g. `refund_issued`), with the call's arguments."""

    name: str
    turn: int
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolCall(DomainModel):
    """One tool call the agent made and what the stub answered."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    valid: bool = True
    validation_error: str | None = None
    error: str | None = Field(None, description="injected fault: timeout, server_error, custom")
    latency_ms: float = 0.0
    events: list[str] = Field(default_factory=list)


class Turn(DomainModel):
    """One utterance (with the agent's tool calls before it)."""

    index: int
    speaker: Speaker
    text: str = Field("", description="the text as said")
    heard: str | None = Field(None, description="the text as the other side heard it: the agent's "
                              "recogniser for caller turns; on a call, the agent's words that reached the "
                              "caller before its audio stopped")
    distortions: list[Distortion] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    end: TurnEnd | None = None
    latency_ms: float = 0.0
    # On a call (channel voice) only: where the turn's audio sits on the timeline, and how it went.
    kind: TurnKind = Field("speech", description="speech; on a call, vocal_tic (an \"um\" or a cough) or "
                           "non_directed (the caller spoke to someone else in the room) that the agent "
                           "heard and answered")
    start_ms: int | None = Field(None, description="on a call: when the turn's audio started")
    end_ms: int | None = Field(None, description="on a call: when the turn's audio stopped")
    interrupted: bool = Field(False, description="on a call: an agent turn the caller talked over "
                              "(its audio stopped early when the agent yields)")


class Usage(DomainModel):
    """Token counts; `estimated` when they come from a heuristic, not a provider."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    calls: int = 0
    estimated: bool = False

    def add(self, other: Usage) -> Usage:
        """Return the sum of two usages."""
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            calls=self.calls + other.calls,
            estimated=self.estimated or other.estimated,
        )


class Conversation(DomainModel):
    """A whole simulated (or imported) conversation."""

    id: str = Field(..., description="stable key: agent version, scenario, persona and seed")
    scenario_id: str
    seed: int
    agent_name: str
    agent_version: str
    persona_hash: str
    caller_type: str
    difficulty: int
    language: str = "en"
    noise: float = 0.0
    turns: list[Turn] = Field(default_factory=list)
    end_reason: EndReason
    end_detail: str | None = None
    events: list[DomainEvent] = Field(default_factory=list)
    initial_state: dict[str, Any] = Field(default_factory=dict)
    final_state: dict[str, Any] = Field(default_factory=dict)
    clock_ms: float = Field(0.0, description="simulated conversation clock at the end")
    usage: dict[str, Usage] = Field(default_factory=dict, description="per role")
    models: dict[str, str] = Field(default_factory=dict, description="role → provider:model")
    channel: Channel = Field("text", description="text, or voice: a call in audio (`voice` says how)")
    voice: VoiceCall | None = Field(None, description="on a call: its conditions, speech stack, metrics "
                                    "and the artifact keys of its audio and timeline")
    format_version: int = Field(TRANSCRIPT_FORMAT, description="the transcript format it was written in; "
                                "0: stored before formats were versioned")

    _stored_format = model_validator(mode="before")(stored_format)

    @property
    def agent_replies(self) -> list[str]:
        """The agent's spoken replies, oldest first."""
        return [t.text for t in self.turns if t.speaker == "agent"]

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call in order."""
        return [c for t in self.turns for c in t.tool_calls]
