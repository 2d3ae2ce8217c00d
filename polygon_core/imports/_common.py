"""Helpers shared by the parsers: problems, timestamps, tool arguments."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TextIO

from .._hashing import content_hash
from ._registry import looks_like
from ._streams import JsonValue, iter_json_values, loads_checked
from ._types import ImportedCall, ImportProblem, ParseItem, SpeakerError

__all__ = ["BadRecord", "arguments", "format_time", "iso_time", "parse_values", "stable_id"]


class BadRecord(ValueError):
    """A record that cannot become a conversation (the message says why)."""

    def __init__(self, reason: str, external_id: str | None = None) -> None:
        super().__init__(reason)
        self.external_id = external_id


def iso_time(value: Any, *, unit: str = "s") -> str | None:
    """An ISO-8601 UTC timestamp from an ISO string or a Unix time (`unit` "s" or "ms")."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise BadRecord(f"timestamp {value!r} is not a time")
    if isinstance(value, int | float):
        seconds = value / 1000 if unit == "ms" else value
        return format_time(datetime.fromtimestamp(seconds, UTC))
    text = str(value).strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadRecord(f"timestamp {text!r} is not ISO-8601") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)  # naive times are taken as UTC (documented)
    return format_time(parsed)


def format_time(moment: datetime) -> str:
    """Fixed-width ISO-8601 UTC with microseconds, so times compare correctly as text."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments: a mapping, or a JSON object in a string (the OpenAI wire form).

    BadRecord when the string is JSON holding what a record may not (see `_streams`)."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = loads_checked(raw)
        except json.JSONDecodeError:
            return {"_raw": raw}  # kept as said: a malformed call is itself worth grading
        except ValueError as exc:  # valid JSON that cannot be kept (a huge integer, a lone surrogate)
            raise BadRecord(f"tool arguments: {exc}") from None
        return value if isinstance(value, dict) else {"_value": value}
    return {"_value": raw}


def result_value(raw: Any) -> Any:
    """A tool result: JSON text is decoded (BadRecord as in `arguments`), anything else kept as is."""
    if isinstance(raw, str):
        text = raw.strip()
        if text[:1] in ("{", "["):
            try:
                return loads_checked(text)
            except json.JSONDecodeError:
                return raw
            except ValueError as exc:
                raise BadRecord(f"tool result: {exc}") from None
    return raw


def stable_id(value: Any) -> str:
    """An id for a record that has none: the hash of its content, so re-imports still match."""
    return "sha-" + content_hash(value, 16)


Converter = Callable[[Any, int], ImportedCall]


def parse_values(stream: TextIO, convert: Converter, *, lines: bool,
                 fmt: str | None = None) -> Iterator[ParseItem]:
    """Decode JSON values one by one and turn each into a call, or a problem with its line.

    `fmt` (the format being read) lets a rejection say which other format the record looks like."""
    value: JsonValue
    for value in iter_json_values(stream, lines=lines):
        if value.error is not None:
            yield ImportProblem(value.line, value.error)
            continue
        try:
            yield convert(value.value, value.line)
        except BadRecord as exc:
            yield ImportProblem(value.line, _hinted(str(exc), value.value, fmt), exc.external_id)
        except SpeakerError as exc:
            yield ImportProblem(value.line, _hinted(str(exc), value.value, fmt), _guess_id(value.value))
        except (TypeError, ValueError, AttributeError, LookupError, ArithmeticError) as exc:
            # A record of an unexpected shape costs that record, never the rest of the file.
            reason = f"cannot read this record ({type(exc).__name__}: {exc})"
            yield ImportProblem(value.line, _hinted(reason, value.value, fmt), _guess_id(value.value))


def _hinted(reason: str, record: Any, fmt: str | None) -> str:
    # A Vapi array read as Polygon's format fails on every call with "startedAt: Extra inputs are
    # not permitted", which names a field, not the mistake: say which format the record looks like.
    other = looks_like(record, besides=fmt) if fmt is not None else None
    return reason if other is None else f"{reason}; this looks like a {other} export: use --format {other}"


def _guess_id(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("id", "call_id", "conversation_id", "callId"):
            if isinstance(value.get(key), str | int):
                return str(value[key])
    return None


def require_id(record: dict[str, Any], *keys: str) -> str:
    """The first present id field (as text), or the content hash when `keys` is empty or absent."""
    for key in keys:
        raw = record.get(key)
        if isinstance(raw, str | int) and not isinstance(raw, bool) and str(raw).strip():
            return str(raw).strip()
    return stable_id(record)


def require_object(value: Any, what: str) -> dict[str, Any]:
    """`value` as a JSON object, or BadRecord."""
    if not isinstance(value, dict):
        raise BadRecord(f"{what} must be a JSON object, not {type(value).__name__}")
    return value
