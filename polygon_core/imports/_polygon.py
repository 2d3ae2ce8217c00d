"""Polygon's own import format (JSON array or JSON Lines), validated strictly (extra='forbid')."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from pydantic import Field, ValidationError

from ..models import FileModel, Speaker
from ._common import BadRecord, arguments, iso_time, parse_values
from ._format import import_format
from ._types import (
    AGENT,
    CALLER,
    ImportedCall,
    ImportedToolCall,
    ImportedTurn,
    ParseItem,
    SpeakerMap,
)

__all__ = ["PolygonCall", "parse_polygon"]

DEFAULT_SPEAKERS: dict[str, Speaker] = {"caller": CALLER, "agent": AGENT}


class PolygonToolCall(FileModel):
    """A tool call as Polygon's format writes it."""

    id: str | None = None
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    result: Any = None
    error: str | None = None


class PolygonTurn(FileModel):
    """One turn: who spoke, what was said, when, and the agent's tool calls before it."""

    speaker: str | None = None
    text: str = ""
    at: str | int | float | None = None
    tool_calls: list[PolygonToolCall] = Field(default_factory=list)


class PolygonCall(FileModel):
    """One conversation in Polygon's import format (see docs/import-formats.md)."""

    id: str = Field(..., min_length=1)
    started_at: str | int | float | None = None
    ended_at: str | int | float | None = None
    end_reason: str | None = None
    scenario: str | None = None
    language: str = "en"
    metadata: dict[str, Any] = Field(default_factory=dict)
    turns: list[PolygonTurn] = Field(default_factory=list)


def _convert(value: Any, line: int, speakers: SpeakerMap) -> ImportedCall:
    try:
        call = PolygonCall.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "conversation"
        ident = value.get("id") if isinstance(value, dict) else None
        raise BadRecord(f"{where}: {first['msg']}", str(ident) if ident else None) from None
    turns = []
    for i, t in enumerate(call.turns):
        try:
            side = speakers(t.speaker)
        except ValueError as exc:
            raise BadRecord(f"turns.{i}: {exc}", call.id) from None
        calls = [ImportedToolCall(id=c.id or f"{call.id}-t{i}-c{j}", name=c.name,
                                  arguments=arguments(c.arguments), result=c.result, error=c.error)
                 for j, c in enumerate(t.tool_calls)]
        turns.append(ImportedTurn(side, t.text, iso_time(t.at), calls))
    return ImportedCall(external_id=call.id, line=line, turns=turns,
                        started_at=iso_time(call.started_at), ended_at=iso_time(call.ended_at),
                        end_reason=call.end_reason, scenario=call.scenario, language=call.language,
                        metadata=call.metadata)


def looks_like_polygon(record: Any) -> bool:
    """A record with Polygon's `turns` list (for rejection hints only)."""
    return isinstance(record, dict) and isinstance(record.get("turns"), list)


@import_format("polygon", "Polygon's own format: JSON Lines (.jsonl) or a JSON array (.json)",
               sample="polygon.jsonl", name_hints=("polygon",), sniff=looks_like_polygon)
def parse_polygon(stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
                  lines: bool = True) -> Iterator[ParseItem]:
    """Polygon's format: JSON Lines (`lines=True`) or a JSON array of conversations."""
    speakers = SpeakerMap(DEFAULT_SPEAKERS, speaker_map)
    return parse_values(stream, lambda v, n: _convert(v, n, speakers), lines=lines, fmt="polygon")
