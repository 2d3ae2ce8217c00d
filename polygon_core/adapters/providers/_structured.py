"""Structured replies: a tolerant JSON parse and a schema check that never raises."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

__all__ = ["read_structured"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def _candidates(text: str) -> list[str]:
    out = [text.strip()]
    out += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start = text.find("{")
    end = text.rfind("}")
    if 0 <= start < end:
        out.append(text[start:end + 1])
    return out


def read_structured(value: Any, schema: dict[str, Any] | None) -> tuple[Any, bool, str | None]:
    """(parsed, unparseable, error). `value` is a dict already, or text that should hold JSON.

    Text is read as JSON directly, then inside a ``` fence, then from the first `{` to the last `}`
    (servers without structured output wrap JSON in prose). A value that does not fit `schema` is
    returned as-is, marked unparseable, so the judge can record "unreadable" instead of failing.
    """
    parsed: Any = value
    if isinstance(value, str):
        parsed = None
        for candidate in _candidates(value):
            try:
                parsed = json.loads(candidate)
                break
            except ValueError:
                continue
        else:
            return value, True, "the reply is not JSON"
    if schema is not None:
        try:
            jsonschema.validate(parsed, schema)
        except jsonschema.ValidationError as exc:
            return parsed, True, f"the reply does not fit the schema: {exc.message}"
        except jsonschema.SchemaError as exc:
            return parsed, True, f"the schema is invalid: {exc.message}"
    return parsed, False, None
