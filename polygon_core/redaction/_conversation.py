"""Redacting a whole conversation: every turn's text, what was heard, tool calls and the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..models import Conversation, ToolCall
from ._keys import placeholder_for_key
from ._text import Redactor

__all__ = ["redact_conversation", "redact_value"]


def redact_value(value: Any, redactor: Redactor) -> Any:
    """Every string inside `value` (nested lists and mappings too) redacted; keys are kept.

    A value under a key that names personal data (`passport`, `phone`, `iban`, …: see `_keys`)
    becomes that key's placeholder whatever it looks like, nested values included."""
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, list):
        return [redact_value(v, redactor) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            placeholder = placeholder_for_key(k) if isinstance(k, str) else None
            out[k] = redact_value(v, redactor) if placeholder is None else _replaced(v, placeholder, redactor)
        return out
    return value


def _replaced(value: Any, placeholder: str, redactor: Redactor) -> Any:
    # Empty values, booleans and null say nothing about a person: kept, so "no phone given" reads.
    if value is None or isinstance(value, bool) or value == "":
        return value
    if isinstance(value, list):
        return [_replaced(v, placeholder, redactor) for v in value]
    if isinstance(value, dict):
        return {k: _replaced(v, placeholder, redactor) for k, v in value.items()}
    if isinstance(value, str) and not _could_be(value, placeholder):
        return redactor.text(value)  # "unknown", "not given": still read by the patterns
    redactor.counts[placeholder] += 1
    return placeholder


def _could_be(text: str, placeholder: str) -> bool:
    if placeholder == "[ADDRESS]":
        return True
    if placeholder == "[EMAIL]":
        return "@" in text
    return any(ch.isdigit() for ch in text)


def _call(call: ToolCall, redactor: Redactor, identifier: Callable[[str], str]) -> ToolCall:
    return call.model_copy(update={
        "id": identifier(call.id),
        "arguments": redact_value(call.arguments, redactor),
        "result": redact_value(call.result, redactor),
        "error": redactor.text(call.error) if call.error else call.error,
        "validation_error": redactor.text(call.validation_error) if call.validation_error else None,
    })


def redact_conversation(conversation: Conversation, redactor: Redactor,
                        identifier: Callable[[str], str] | None = None) -> Conversation:
    """A copy of `conversation` with personal data replaced by typed placeholders.

    `identifier` maps a tool call's id to the id stored (an `IdentifierRedactor`: an id holding
    personal data, such as one a CSV export made from a phone number, becomes a keyed digest);
    without it an id is redacted like text."""
    ids = identifier or redactor.text
    turns = []
    for turn in conversation.turns:
        turns.append(turn.model_copy(update={
            "text": redactor.text(turn.text),
            "heard": redactor.text(turn.heard) if turn.heard else turn.heard,
            "tool_calls": [_call(c, redactor, ids) for c in turn.tool_calls],
        }))
    return conversation.model_copy(update={
        "turns": turns,
        "end_detail": redactor.text(conversation.end_detail) if conversation.end_detail else None,
        "initial_state": redact_value(conversation.initial_state, redactor),
        "final_state": redact_value(conversation.final_state, redactor),
    })
