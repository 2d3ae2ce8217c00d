"""A grammar-constrained "small model" for the fake server, shaped like llama.cpp's `response_format`.

llama.cpp turns a request's JSON Schema into a grammar and samples only tokens the grammar allows:
an enum value is one of the enum, a string stops at `maxLength`, an object has exactly its
properties in the schema's order. It refuses (400) a schema using keywords its converter does not
know. `GrammarModel` does the same over a `Preference` (what the unconstrained model would like to
write at each place): the preferred value where the grammar allows it, else the first value the
grammar allows. So a test sees what a real constrained server returns, including what the
constraint cannot fix (a quote copied from the rubric is still a string under 120 characters).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GrammarModel", "Preference", "SchemaRefused", "transcript_turns"]

# Keywords llama.cpp's json-schema-to-grammar converter reads (others make it refuse the schema).
LLAMA_CPP_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "enum", "const", "items", "prefixItems",
    "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "pattern", "format", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
    "description", "title", "$schema", "$id", "default", "examples",
})

# (path to the value, e.g. ("goal_completion", "quote"), the request's transcript turns) → value or None.
Preference = Callable[[tuple[str, ...], list[dict[str, Any]]], Any]


class SchemaRefused(ValueError):
    """The schema uses a keyword the converter does not know (llama.cpp answers 400)."""


def check_supported(schema: Any, where: str = "$") -> None:
    """Refuse a schema with a keyword outside `LLAMA_CPP_KEYWORDS`, naming where it is."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key not in LLAMA_CPP_KEYWORDS:
            raise SchemaRefused(f"JSON schema conversion failed: unsupported keyword {key!r} at {where}")
        if key == "properties":
            for name, sub in value.items():
                check_supported(sub, f"{where}.{name}")
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            check_supported(value, f"{where}.{key}")
        elif key in ("anyOf", "oneOf", "allOf"):
            for i, sub in enumerate(value):
                check_supported(sub, f"{where}.{key}[{i}]")


_TRANSCRIPT = re.compile(r"<transcript>\n(.*?)\n</transcript>", re.DOTALL)


def transcript_turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The turns of the transcript block in a request body (its JSON lines that carry a turn)."""
    texts = " ".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")
    found = _TRANSCRIPT.search(texts)
    if found is None:
        return []
    lines = [json.loads(line) for line in found.group(1).splitlines() if line.strip()]
    return [line for line in lines if "turn" in line]


@dataclass
class GrammarModel:
    """Constrained decoding over a preference; `schemas` keeps every schema it was given."""

    prefer: Preference
    schemas: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, schema: dict[str, Any], name: str, body: dict[str, Any]) -> Any:
        check_supported(schema)
        self.schemas.append(schema)
        return self._value(schema, (), transcript_turns(body))

    def _value(self, schema: dict[str, Any], path: tuple[str, ...], turns: list[dict[str, Any]]) -> Any:
        wanted = self.prefer(path, turns)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return wanted if wanted in schema["enum"] else schema["enum"][0]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            return {k: self._value(sub, (*path, k), turns) for k, sub in schema.get("properties", {}).items()}
        if kind == "string":
            text = wanted if isinstance(wanted, str) else ""
            return text[: schema["maxLength"]] if "maxLength" in schema else text
        if kind == "integer":
            number = wanted if isinstance(wanted, int) else schema.get("minimum", 0)
            return max(schema.get("minimum", number), min(schema.get("maximum", number), number))
        return wanted
