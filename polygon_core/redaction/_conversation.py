"""Redacting a whole conversation: every turn's text, what was heard, tool arguments and results."""

from __future__ import annotations

from typing import Any

from ..models import Conversation
from ._text import Redactor

__all__ = ["redact_conversation", "redact_value"]


def redact_value(value: Any, redactor: Redactor) -> Any:
    """Every string inside `value` (nested lists and mappings too) redacted; keys are kept."""
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, list):
        return [redact_value(v, redactor) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, redactor) for k, v in value.items()}
    return value


def redact_conversation(conversation: Conversation, redactor: Redactor) -> Conversation:
    """A copy of `conversation` with personal data replaced by typed placeholders."""
    turns = []
    for turn in conversation.turns:
        calls = [c.model_copy(update={"arguments": redact_value(c.arguments, redactor),
                                      "result": redact_value(c.result, redactor),
                                      "error": redactor.text(c.error) if c.error else c.error})
                 for c in turn.tool_calls]
        turns.append(turn.model_copy(update={
            "text": redactor.text(turn.text),
            "heard": redactor.text(turn.heard) if turn.heard else turn.heard,
            "tool_calls": calls,
        }))
    return conversation.model_copy(update={
        "turns": turns,
        "end_detail": redactor.text(conversation.end_detail) if conversation.end_detail else None,
        "initial_state": redact_value(conversation.initial_state, redactor),
        "final_state": redact_value(conversation.final_state, redactor),
    })
