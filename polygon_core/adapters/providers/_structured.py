"""Structured replies: a tolerant JSON parse and a schema check that never raises."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

__all__ = ["read_structured"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_DECODER = json.JSONDecoder()


def _embedded_objects(text: str) -> tuple[list[Any], str | None]:
    """Every JSON object that starts at a `{` in `text` (prose around them, braces in the prose),
    outermost only, in order; and the decoder's error at the first `{` when none decodes.

    A `{` that does not decode is skipped up to where its decoding broke, so the inner objects of
    a broken one (a reply cut mid-object, a trailing comma) are not taken for the answer.
    """
    found: list[Any] = []
    first_error: str | None = None
    at = text.find("{")
    while at >= 0:
        try:
            value, end = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            first_error = first_error or str(exc)
            at = text.find("{", max(at + 1, exc.pos))
            continue
        found.append(value)
        at = text.find("{", end)
    return found, (None if found else first_error)


def _parse_text(text: str) -> Any:
    """The JSON in a reply: the whole text, else a ``` fence, else the one object in the prose.

    Raises ValueError saying why there is none: empty, no `{` at all, the decoder's error at the
    first `{` (a trailing comma, single quotes, a reply cut mid-object), or two different objects.
    """
    whole = text.strip()
    try:
        return json.loads(whole)
    except ValueError:
        pass
    for fenced in _FENCE.finditer(text):
        try:
            return json.loads(fenced.group(1).strip())
        except ValueError:
            continue
    objects, embedded_error = _embedded_objects(text)
    distinct = [o for i, o in enumerate(objects) if o not in objects[:i]]
    if len(distinct) > 1:
        raise ValueError(f"the reply holds {len(distinct)} different JSON objects, expected one")
    if distinct:
        return distinct[0]
    if not whole:
        raise ValueError("the reply is empty")
    raise ValueError("the reply is not JSON" + (f" ({embedded_error})" if embedded_error else ""))


def read_structured(value: Any, schema: dict[str, Any] | None) -> tuple[Any, bool, str | None]:
    """(parsed, unparseable, error). `value` is a dict already, or text that should hold JSON.

    Text is read as JSON directly, then inside a ``` fence, then as the JSON object decoded from a
    `{` in the prose (servers without structured output wrap JSON in prose, which may hold braces
    of its own); two different objects in one reply are unreadable (which one is the answer would
    be a guess). Text that holds no JSON is returned as-is, marked unparseable, with the decoder's
    reason. A value that does not fit `schema` is returned as-is, marked unparseable, so the judge
    can record "unreadable" instead of failing.
    """
    parsed: Any = value
    if isinstance(value, str):
        try:
            parsed = _parse_text(value)
        except ValueError as exc:
            return value, True, str(exc)
    if schema is not None:
        try:
            jsonschema.validate(parsed, schema)
        except jsonschema.ValidationError as exc:
            return parsed, True, f"the reply does not fit the schema: {exc.message}"
        except jsonschema.SchemaError as exc:
            return parsed, True, f"the schema is invalid: {exc.message}"
    return parsed, False, None
