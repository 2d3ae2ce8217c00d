"""OpenAI-style message lists in JSON Lines: one conversation per line.

    {"id": "c1", "started_at": "...", "messages": [
        {"role": "system", "content": "..."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "lookup_account", "arguments": "{\"id\": \"A1\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"found\": true}"},
        {"role": "assistant", "content": "Found it."}]}

`system` and `developer` messages are the agent's instructions, not speech: they are skipped.
A line without `id` gets the hash of its content as id, so re-importing it still matches.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from ..models import Speaker
from ._builder import TurnBuilder
from ._common import (
    BadRecord,
    arguments,
    iso_time,
    parse_values,
    require_id,
    require_object,
    result_value,
)
from ._format import import_format
from ._types import AGENT, CALLER, ImportedCall, ParseItem, SpeakerMap

__all__ = ["parse_openai"]

DEFAULT_SPEAKERS: dict[str, Speaker] = {"user": CALLER, "assistant": AGENT}
_INSTRUCTIONS = {"system", "developer"}


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict)).strip()
    return str(content)


def _convert(value: Any, line: int, speakers: SpeakerMap) -> ImportedCall:
    record = require_object(value, "a conversation")
    ident = require_id(record, "id", "conversation_id")
    messages = record.get("messages")
    if not isinstance(messages, list):
        raise BadRecord("`messages` must be a list of messages", ident)
    built = TurnBuilder()
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadRecord(f"messages.{i} is not an object", ident)
        role = message.get("role")
        if role in _INSTRUCTIONS:
            continue
        if role == "tool":
            cid = str(message.get("tool_call_id") or "")
            if not cid or not built.result(cid, result_value(_text(message.get("content")))):
                raise BadRecord(f"messages.{i}: tool result for unknown tool_call_id {cid!r}", ident)
            continue
        try:
            side = speakers(role)
        except ValueError as exc:
            raise BadRecord(f"messages.{i}: {exc}", ident) from None
        for k, call in enumerate(message.get("tool_calls") or []):
            fn = (call.get("function") or {}) if isinstance(call, dict) else {}
            if side != AGENT or not fn.get("name"):
                raise BadRecord(f"messages.{i}.tool_calls.{k}: needs function.name on an agent message",
                                ident)
            built.call(str(call.get("id") or f"{ident}-m{i}-c{k}"), fn["name"], arguments(fn.get("arguments")))
        text = _text(message.get("content"))
        if side == AGENT and not text:
            continue  # a tool-calling step (or nothing said): its calls go with the agent's next words
        built.say(side, text, iso_time(message.get("timestamp")))
    turns = built.turns()
    meta = record.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    return ImportedCall(external_id=ident, line=line, turns=turns,
                        started_at=iso_time(record.get("started_at")),
                        ended_at=iso_time(record.get("ended_at")),
                        end_reason=record.get("end_reason"), scenario=record.get("scenario"),
                        language=str(record.get("language") or "en"), metadata=dict(meta))


def looks_like_openai(record: Any) -> bool:
    """A record whose `messages` are Chat Completions messages (`role` and `content`), not Vapi's
    (`message`): for rejection hints only."""
    messages = record.get("messages") if isinstance(record, dict) else None
    return (isinstance(messages, list) and bool(messages) and isinstance(messages[0], dict)
            and "content" in messages[0] and "role" in messages[0])


@import_format("openai", "OpenAI-style message lists with tool calls and tool results, JSON Lines",
               sample="openai.jsonl", name_hints=("openai",), sniff=looks_like_openai)
def parse_openai(stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
                 lines: bool = True) -> Iterator[ParseItem]:
    """OpenAI-style message lists, one conversation per JSON line (`lines` is always true)."""
    speakers = SpeakerMap(DEFAULT_SPEAKERS, speaker_map)
    return parse_values(stream, lambda v, n: _convert(v, n, speakers), lines=True, fmt="openai")
