"""The import formats by name, and the checks every format shares (empty conversations)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TextIO

from ..models import EndReason, Speaker
from ._csv import parse_csv
from ._openai import parse_openai
from ._polygon import parse_polygon
from ._retell import parse_retell
from ._types import ImportedCall, ImportProblem, ParseItem
from ._vapi import parse_vapi

__all__ = ["FORMATS", "is_lines_file", "read_calls"]

Parser = Callable[[TextIO, Mapping[str, Speaker] | None, bool], Iterator[ParseItem]]

FORMATS: dict[str, str] = {
    "polygon": "Polygon's own format: JSON Lines (.jsonl) or a JSON array (.json)",
    "openai": "OpenAI-style message lists with tool calls and tool results, JSON Lines",
    "csv": "CSV: conversation_id,turn,speaker,text [,timestamp, tool_name, tool_arguments, tool_result]",
    "vapi": "Vapi call objects: a JSON array (GET /call) or JSON Lines",
    "retell": "Retell AI call objects: a JSON array (list-calls) or JSON Lines",
}

_PARSERS: dict[str, Parser] = {
    "polygon": lambda s, m, lines: parse_polygon(s, m, lines=lines),
    "openai": lambda s, m, _lines: parse_openai(s, m),
    "csv": lambda s, m, _lines: parse_csv(s, m),
    "vapi": lambda s, m, lines: parse_vapi(s, m, lines=lines),
    "retell": lambda s, m, lines: parse_retell(s, m, lines=lines),
}

_END_REASONS = {e.value for e in EndReason}


def is_lines_file(name: str) -> bool:
    """JSON Lines by file name (.jsonl, .ndjson, also when compressed-free suffixes follow)."""
    lowered = name.lower()
    return lowered.endswith((".jsonl", ".ndjson"))


def read_calls(stream: TextIO, fmt: str, *, speaker_map: Mapping[str, Speaker] | None = None,
               name: str = "") -> Iterator[ParseItem]:
    """Parse `stream` in format `fmt`, one conversation at a time (a generator: constant memory).

    Yields an ImportedCall per good conversation and an ImportProblem (with its line) per bad row
    or conversation; a bad one never stops the good ones after it (except inside a broken JSON
    array, where nothing after a syntax error can be located). `name` (the file name) tells JSON
    Lines (.jsonl/.ndjson) from a JSON array for the formats that accept both.
    """
    if fmt not in _PARSERS:
        raise ValueError(f"unknown import format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    for item in _PARSERS[fmt](stream, speaker_map, is_lines_file(name)):
        yield item if isinstance(item, ImportProblem) else _check(item)


def _check(call: ImportedCall) -> ParseItem:
    if not any(t.text.strip() or t.tool_calls for t in call.turns):
        return ImportProblem(call.line, "empty conversation: no turns with text or tool calls",
                             call.external_id)
    if call.end_reason is not None and call.end_reason not in _END_REASONS:
        return ImportProblem(call.line, f"end_reason {call.end_reason!r} is not one of "
                                        f"{', '.join(sorted(_END_REASONS))}", call.external_id)
    return call
