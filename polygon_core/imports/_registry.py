"""The built-in import formats (one import line each), and what reads the registry.

The table itself is `_format.REGISTRY`; each format module registers its parser there with
``@import_format``. A new built-in format is its module plus one line below (and its test); a
format kept outside Polygon registers itself the same way when its module is imported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

from ..models import EndReason, Speaker
from . import _csv, _openai, _polygon, _retell, _vapi  # noqa: F401  (registered on import)
from ._format import REGISTRY, ImportFormat
from ._types import ImportedCall, ImportProblem, ParseItem

__all__ = ["DEFAULT_FORMAT", "FORMATS", "format_for", "get_format", "is_lines_file", "read_calls"]

DEFAULT_FORMAT = "polygon"
_END_REASONS = {e.value for e in EndReason}


class _Descriptions(Mapping[str, str]):
    """Format name → description, read live from the registry (formats registered later show)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY[name].description

    def __iter__(self) -> Iterator[str]:
        return iter(list(REGISTRY))

    def __len__(self) -> int:
        return len(REGISTRY)


FORMATS: Mapping[str, str] = _Descriptions()


def get_format(name: str) -> ImportFormat:
    """The registered format `name`; ValueError naming the known ones otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown import format {name!r}; expected one of: {', '.join(REGISTRY)}") from None


def format_for(name: str, fmt: str | None = None) -> str:
    """The format of a file: `fmt` when given, else the first format whose name hint is in the
    file name (``vapi_calls.json`` → vapi) or whose suffix ends it (``.csv``), else polygon."""
    if fmt:
        return fmt
    base = Path(name.lower()).name
    for known in REGISTRY.values():
        if any(hint in base for hint in known.name_hints):
            return known.name
    for known in REGISTRY.values():
        if base.endswith(known.suffixes) and known.suffixes:
            return known.name
    return DEFAULT_FORMAT


def is_lines_file(name: str) -> bool:
    """JSON Lines by file name (.jsonl, .ndjson)."""
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
    parse = get_format(fmt).parse
    for item in parse(stream, speaker_map, lines=is_lines_file(name)):
        yield item if isinstance(item, ImportProblem) else _check(item)


def _check(call: ImportedCall) -> ParseItem:
    if not any(t.text.strip() or t.tool_calls for t in call.turns):
        return ImportProblem(call.line, "empty conversation: no turns with text or tool calls",
                             call.external_id)
    if call.end_reason is not None and call.end_reason not in _END_REASONS:
        return ImportProblem(call.line, f"end_reason {call.end_reason!r} is not one of "
                                        f"{', '.join(sorted(_END_REASONS))}", call.external_id)
    return call
