"""What reads the import-format registry.

The table itself is `_format.REGISTRY`; each format module registers its parser there with
``@import_format``, and every module of this package is imported on the first lookup. A new
built-in format is its module (and its test); a format kept outside Polygon registers itself the
same way when its module is imported, or through the ``polygon.import_formats`` entry points.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

from ..models import EndReason, Speaker
from ._format import REGISTRY, ImportFormat
from ._lines import MAX_TURNS
from ._types import ImportedCall, ImportProblem, ParseItem

__all__ = ["DEFAULT_FORMAT", "FORMATS", "format_for", "get_format", "guess_format", "is_lines_file",
           "looks_like", "read_calls"]

DEFAULT_FORMAT = "polygon"
_END_REASONS = {e.value for e in EndReason}
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Descriptions(Mapping[str, str]):
    """Format name → description, read live from the registry (formats registered later show)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY.loaded()[name].description

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY.names())

    def __len__(self) -> int:
        return len(REGISTRY.loaded())


FORMATS: Mapping[str, str] = _Descriptions()


def get_format(name: str) -> ImportFormat:
    """The registered format `name`; ValueError naming the known ones otherwise."""
    found = REGISTRY.get(name)
    if found is None:
        raise ValueError(f"unknown import format {name!r}; expected one of: {', '.join(REGISTRY)}")
    return found


def format_for(name: str, fmt: str | None = None) -> str:
    """The format of a file: `fmt` when given, else `guess_format(name)`, else polygon."""
    return fmt or guess_format(name) or DEFAULT_FORMAT


def guess_format(name: str) -> str | None:
    """The format a file name says: the first format whose name hint is in it (``vapi_calls.json``
    → vapi), else the first whose suffix ends it (``.csv``); None when the name says nothing.

    The one rule `polygon import` (without ``--format``) and `grade-calls` on a folder both use."""
    base = Path(name.lower()).name
    formats = REGISTRY.loaded().values()
    for known in formats:
        if any(hint in base for hint in known.name_hints):
            return known.name
    for known in formats:
        if base.endswith(known.suffixes) and known.suffixes:
            return known.name
    return None


def looks_like(record: object, *, besides: str) -> str | None:
    """Another format (not `besides`) whose `sniff` recognises this record, or None.

    Only a hint for a rejection reason ("this looks like …"): a record is never read in a format
    the user did not ask for."""
    for known in REGISTRY.loaded().values():
        if known.name != besides and known.sniff is not None and known.sniff(record):
            return known.name
    return None


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
    if len(call.turns) > MAX_TURNS:
        return ImportProblem(call.line, f"{len(call.turns):,} turns in one conversation; the limit is "
                                        f"{MAX_TURNS:,}", call.external_id)
    surrogate = next((i for i, t in enumerate(call.turns) if _SURROGATE.search(t.text)), None)
    if surrogate is not None:  # a parser that reads text itself (a plain text stream, a plugin)
        return ImportProblem(call.line, f"turns.{surrogate}.text: a lone surrogate (not a Unicode "
                                        "character; cannot be stored as UTF-8)", call.external_id)
    if not any(t.text.strip() or t.tool_calls for t in call.turns):
        return ImportProblem(call.line, "empty conversation: no turns with text or tool calls",
                             call.external_id)
    if call.end_reason is not None and call.end_reason not in _END_REASONS:
        return ImportProblem(call.line, f"end_reason {call.end_reason!r} is not one of "
                                        f"{', '.join(sorted(_END_REASONS))}", call.external_id)
    return call
