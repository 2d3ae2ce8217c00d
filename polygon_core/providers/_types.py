"""The one chat interface every role uses (agent, caller, judge, probes, generators, analysis).

Pure types only: concrete providers (OpenAI, Anthropic, OpenAI-compatible servers, offline) live in
`polygon_core.adapters.providers` and implement `ChatModel`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from ..models import DomainModel, Usage


class ChatMessage(DomainModel):
    """One message. `tool_calls` on assistant messages; `tool_call_id` on tool results."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ChatToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    cache: bool = Field(False, description="mark this (static) message as a prompt-cache prefix")


class ChatToolCall(DomainModel):
    """A tool call the model asked for, normalised across APIs."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = Field(None, description="the arguments as sent, when not valid JSON")
    arguments_valid: bool = True


class ChatTool(DomainModel):
    """A tool offered to the model (JSON Schema parameters)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


# The prefix of a judge or probe answerer asked in the compact format (a short prompt and a
# constrained schema with turn references, for small local models): `compact:<model name>`.
COMPACT_PREFIX = "compact:"


class ChatRequest(DomainModel):
    """Everything that determines a reply (also the record/replay cache key)."""

    messages: list[ChatMessage]
    tools: list[ChatTool] = Field(default_factory=list)
    response_schema: dict[str, Any] | None = Field(None, description="JSON Schema of a structured reply")
    schema_name: str = "reply"
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = Field(None, description="output cap; None = the role's configured cap, "
                                   "which the model layer always sets")
    seed: int | None = None
    role: str = Field("agent", description="which Polygon role asks: usage and limits are per role")


class ChatResponse(DomainModel):
    """A reply, with where it came from and what it cost."""

    text: str = ""
    tool_calls: list[ChatToolCall] = Field(default_factory=list)
    parsed: Any = Field(None, description="the structured reply, when a schema was asked for")
    unparseable: bool = Field(False, description="a schema was asked for and the reply did not fit")
    cut: bool = Field(False, description="the reply stopped at the output cap (max_tokens)")
    parse_error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    provider: str
    model: str
    request_id: str | None = None
    retries: int = 0
    cached: bool = Field(False, description="served from the record/replay cache")


ChatMessage.model_rebuild()


@runtime_checkable
class ChatModel(Protocol):
    """A model reachable by name (`offline`, `openai:<m>`, `anthropic:<m>`, `…@<base URL>`)."""

    name: str

    async def chat(self, request: ChatRequest) -> ChatResponse:
        """One request. Failures after retries raise `ProviderFailure` (conversation._types)."""
        ...
