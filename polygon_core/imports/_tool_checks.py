"""Imported tool calls checked against the tools' JSON Schemas, as the stubs check simulated ones.

A real call's tool arguments come from the platform's export; when the importing agent's tool
library is known, each call is validated the same way a simulated call is, so the v2/v3
`invalid_tool_call` gate and tool-use scoring can see a real agent's malformed call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import best_match

from ..models import Conversation, ToolCall, ToolDef
from ..stubs import tool_validator

__all__ = ["check_imported_tool_calls"]


def _checked(call: ToolCall, validators: Mapping[str, Any]) -> ToolCall:
    validator = validators.get(call.name)
    if validator is None:
        # Not in the library: nothing to check it against (the platform may have tools Polygon
        # was not told about); it keeps the export's word.
        return call
    error = best_match(validator.iter_errors(call.arguments))
    if error is None:
        return call
    return call.model_copy(update={"valid": False, "validation_error": f"{error.json_path}: {error.message}"})


def check_imported_tool_calls(conversation: Conversation, tools: Mapping[str, ToolDef]) -> Conversation:
    """The conversation with every tool call of a known tool checked against its schema."""
    if not tools or not conversation.tool_calls:
        return conversation
    # RE2 patterns: an export's arguments are untrusted text and must not stall the import.
    validators = {name: tool_validator(tool.parameters) for name, tool in tools.items()}
    turns = [t.model_copy(update={"tool_calls": [_checked(c, validators) for c in t.tool_calls]})
             if t.tool_calls else t for t in conversation.turns]
    return conversation.model_copy(update={"turns": turns})
