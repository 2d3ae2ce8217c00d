"""The `offline` ChatModel: deterministic, no network, for tests and defaults.

What it answers:
- a request with a response schema: a value built from the schema alone (the first `enum` value,
  `const`, an integer/number's `minimum` or 0, `false`, `""`, `[]` with `minItems` copies, objects with
  every required property filled the same way), so it always validates;
- any other request: the fixed text `OFFLINE_REPLY`, no tool calls.
Usage is estimated from word counts (labelled `estimated`).
"""

from __future__ import annotations

from typing import Any

from ...models import Usage
from ...providers import ChatRequest, ChatResponse

__all__ = ["OFFLINE_REPLY", "OfflineChatModel", "schema_default"]

OFFLINE_REPLY = "Okay."


def schema_default(schema: dict[str, Any]) -> Any:
    """A value that validates against a (simple) JSON Schema, chosen without randomness."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return schema_default(schema[key][0])
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return schema_default(merged)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties", {})
        return {name: schema_default(props.get(name, {})) for name in schema.get("required", list(props))}
    if kind == "array":
        return [schema_default(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in schema else 0)
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind == "null":
        return None
    return None


class OfflineChatModel:
    """Deterministic replies; see the module docstring."""

    name = "offline"

    async def chat(self, request: ChatRequest) -> ChatResponse:
        """Answer without a model."""
        words = sum(len(m.content.split()) for m in request.messages)
        if request.response_schema is not None:
            value = schema_default(request.response_schema)
            import json

            text = json.dumps(value)
            return ChatResponse(text=text, parsed=value, provider="offline", model="offline",
                                usage=Usage(input_tokens=words, output_tokens=len(text.split()), calls=1,
                                            estimated=True))
        return ChatResponse(text=OFFLINE_REPLY, provider="offline", model="offline",
                            usage=Usage(input_tokens=words, output_tokens=1, calls=1, estimated=True))

    async def aclose(self) -> None:
        """Nothing to close."""
