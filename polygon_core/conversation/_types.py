"""The contracts between the turn loop, the agent under test and the simulated caller."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from ..models import DomainModel, Persona, ToolCall, Usage

AgentEnd = Literal["end", "transfer", "callback"]
CallerEnd = Literal["hangup", "accept_transfer", "accept_callback"]


class ToolRequest(DomainModel):
    """A tool call the agent asks for."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class HistoryItem(DomainModel):
    """One entry of the conversation as the agent saw it."""

    role: Literal["caller", "agent", "tool"]
    text: str = ""
    tool_call: ToolCall | None = None


class AgentRequest(DomainModel):
    """What the agent receives at each step (this is also the HTTP agent protocol's request body)."""

    conversation_id: str
    turn: int
    step: int = Field(0, description="tool step within the turn; 0 = first call for this turn")
    heard: str | None = Field(None, description="the caller's words as heard; None at the opening")
    tool_results: list[ToolCall] = Field(default_factory=list)
    history: list[HistoryItem] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    prompt: str | None = None
    language: str = "en"


class AgentAction(DomainModel):
    """The agent's answer: what to say, which tools to call, whether to end or transfer."""

    say: str = ""
    tool_calls: list[ToolRequest] = Field(default_factory=list)
    end: AgentEnd | None = None
    usage: Usage | None = None
    latency_ms: float = Field(0.0, ge=0, description="the agent's own reply time for this step: its "
                              "model call, the HTTP round trip, or what a Python agent declares")


@runtime_checkable
class Agent(Protocol):
    """The agent under test, one instance per conversation."""

    async def act(self, request: AgentRequest) -> AgentAction:
        """Answer one step of the conversation."""
        ...


class CallerView(DomainModel):
    """What the simulated caller knows when it speaks."""

    conversation_id: str
    turn: int
    persona: Persona
    agent_said: str | None = None
    agent_end: AgentEnd | None = None
    history: list[HistoryItem] = Field(default_factory=list)
    language: str = "en"


class CallerUtterance(DomainModel):
    """What the caller says, and an explicit end signal that is never spoken to the agent."""

    text: str = ""
    end: CallerEnd | None = None
    usage: Usage | None = None


@runtime_checkable
class Caller(Protocol):
    """The simulated caller, one instance per conversation."""

    async def speak(self, view: CallerView) -> CallerUtterance:
        """Say the caller's next line."""
        ...


class ProviderFailure(Exception):
    """A model provider failed after its retries: the conversation ends with `provider_error`."""


class SimulatorFailure(Exception):
    """The simulated caller failed: the conversation ends with `simulator_error`."""


class Playback(DomainModel):
    """What the line did with one agent turn on a call."""

    start_ms: int
    end_ms: int
    heard: str = Field("", description="the agent's words that reached the caller before its audio stopped")
    interrupted: bool = Field(False, description="the caller talked over this turn")
    hangup: str | None = Field(None, description="the caller hung up during the silence; why")


class Delivery(DomainModel):
    """What the line did with one caller line on a call: when it was said and what the agent heard."""

    start_ms: int
    end_ms: int
    heard: str


class Interjection(DomainModel):
    """Speech the agent heard before the caller's line that was not meant for it (non-directed
    speech in the room) and that the cascade answers as if it were a turn."""

    text: str
    heard: str
    start_ms: int
    end_ms: int
    kind: Literal["vocal_tic", "non_directed"] = "non_directed"


@runtime_checkable
class Line(Protocol):
    """A call's line under the turn loop (`polygon_core.voice.CallLine`): it places each side's
    audio on the call's clock and says what the other side heard. None: a text conversation."""

    async def agent_spoke(self, turn: Any) -> Playback:
        """Voice and play an agent turn (a `Turn`, tool calls included) after its reply time."""
        ...

    async def interjections(self, turn: int) -> list[Interjection]:
        """The next room speech before the caller's next line that the agent will answer, as a
        list of at most one (empty: none left). The engine answers it and asks again; `turn` is
        the transcript index it will get."""
        ...

    async def caller_spoke(self, turn: int, text: str) -> Delivery:
        """Voice the caller's line through the line's conditions; the agent's recogniser hears it."""
        ...
