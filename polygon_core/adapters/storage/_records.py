"""Small typed summaries of stored rows that have no domain model of their own."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from polygon_core.models import AssertionResult, EndReason, Usage

__all__ = ["ConversationRecord"]


class ConversationRecord(BaseModel):
    """A stored conversation's index entry: its headline facts and where its transcript is.

    The transcript itself (turns, tool calls, state) lives in the artifact store at
    ``artifact_uri``; load it from there to get the full ``Conversation``. Its fields are the
    columns of ``ConversationRow`` (all but ``id``); the write fills those a ``Conversation`` has
    under the same name from it (see ``_convert`` and docs/design.md, "Stored records").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    conversation_id: str
    scenario_id: str
    seed: int
    caller_type: str
    difficulty: int
    language: str
    noise: float
    agent_version: str
    end_reason: EndReason
    turn_count: int
    artifact_uri: str
    assertions: list[AssertionResult] = Field(default_factory=list)
    metrics: dict[str, Any] | None = None
    usage: dict[str, Usage] = Field(default_factory=dict, description="per role")
    models: dict[str, str] = Field(default_factory=dict, description="role → provider:model")
