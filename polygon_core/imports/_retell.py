"""Retell AI call objects (`GET /v2/get-call/{call_id}`, `POST /v2/list-calls`, call webhooks).

Read from the documented call object: ``call_id``, ``agent_id``, ``start_timestamp`` and
``end_timestamp`` (Unix ms), ``disconnection_reason``, and the transcript, preferring
``transcript_with_tool_calls`` (utterances with ``role`` ``agent``/``user`` and ``content``, plus
``tool_call_invocation`` entries with ``tool_call_id``, ``name``, ``arguments`` (JSON text) and
``tool_call_result`` entries with ``tool_call_id`` and ``content``) over ``transcript_object``
(utterances only). A JSON array of calls (what list-calls returns), one call, or JSON Lines.
"""

from __future__ import annotations

import hashlib
import hmac
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
from ._signing import signed_recently
from ._types import AGENT, CALLER, ImportedCall, ParseItem, SpeakerMap

__all__ = ["END_REASONS", "WEBHOOK_EVENTS", "looks_like_retell", "parse_retell", "retell_signature",
           "verify_retell", "webhook_calls"]

DEFAULT_SPEAKERS: dict[str, Speaker] = {"user": CALLER, "agent": AGENT}

END_REASONS: dict[str, str] = {
    "user_hangup": "caller_hangup",
    "agent_hangup": "agent_end",
    "call_transfer": "transfer",
    "voicemail_reached": "agent_end",
    "inactivity": "timeout",
    "max_duration_reached": "max_turns",
}


# The webhook events that carry a finished call (call_analyzed repeats it, with the analysis).
WEBHOOK_EVENTS = ("call_ended", "call_analyzed")


def _utterance_time(start_ms: Any, words: Any) -> str | None:
    """When an utterance began: the call's start plus its first word's offset (in seconds)."""
    if not isinstance(start_ms, int | float) or not isinstance(words, list) or not words:
        return None
    first = words[0]
    if not isinstance(first, dict) or not isinstance(first.get("start"), int | float):
        return None
    return iso_time(start_ms + 1000 * first["start"], unit="ms")


def _convert(value: Any, line: int, speakers: SpeakerMap) -> ImportedCall:
    call = require_object(value, "a Retell call")
    ident = require_id(call, "call_id")
    entries = call.get("transcript_with_tool_calls")
    if entries is None:
        entries = call.get("transcript_object")
    if not isinstance(entries, list):
        raise BadRecord("no `transcript_with_tool_calls` or `transcript_object` list", ident)
    start_ms = call.get("start_timestamp")
    built = TurnBuilder()
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise BadRecord(f"transcript entry {i} is not an object", ident)
        role = e.get("role")
        if role == "tool_call_invocation":
            built.call(str(e.get("tool_call_id") or f"{ident}-{i}"), str(e.get("name") or "?"),
                       arguments(e.get("arguments")))
            continue
        if role == "tool_call_result":
            built.result(str(e.get("tool_call_id") or ""), result_value(e.get("content")), name=e.get("name"))
            continue
        try:
            side = speakers(role)
        except ValueError as exc:
            raise BadRecord(f"transcript entry {i}: {exc}", ident) from None
        built.say(side, str(e.get("content") or ""), _utterance_time(start_ms, e.get("words")))
    turns = built.turns()
    reason = call.get("disconnection_reason")
    return ImportedCall(external_id=ident, line=line, turns=turns,
                        started_at=iso_time(start_ms, unit="ms"),
                        ended_at=iso_time(call.get("end_timestamp"), unit="ms"),
                        end_reason=END_REASONS.get(str(reason)) if reason else None,
                        metadata={k: call[k] for k in ("agent_id", "call_type", "disconnection_reason")
                                  if k in call})


_RETELL_KEYS = frozenset({"call_id", "transcript_object", "transcript_with_tool_calls", "start_timestamp",
                          "disconnection_reason"})


def looks_like_retell(record: Any) -> bool:
    """A record with a Retell call object's keys (for rejection hints only)."""
    return isinstance(record, dict) and bool(_RETELL_KEYS & record.keys())


def webhook_calls(body: Any) -> list[Any] | None:
    """The call of a ``call_ended`` or ``call_analyzed`` webhook; None for any other event.

    A call without ``call.call_id`` is a BadRecord (as Vapi's without ``message.call.id``)."""
    if not isinstance(body, dict) or body.get("event") not in WEBHOOK_EVENTS:
        return None
    call = body.get("call")
    ident = call.get("call_id") if isinstance(call, dict) else None
    if not (isinstance(ident, str | int) and not isinstance(ident, bool) and str(ident).strip()):
        raise BadRecord(f"no `call.call_id` in the {body.get('event')} webhook (the Retell call's id, "
                        "which Polygon keys the call by)")
    return [call]


def retell_signature(api_key: str, body: bytes, timestamp_ms: int) -> str:
    """The ``X-Retell-Signature`` value Retell sends: ``v=<ms>,d=<hex HMAC-SHA256(key, body + ms)>``."""
    digest = hmac.new(api_key.encode(), body + str(timestamp_ms).encode(), hashlib.sha256).hexdigest()
    return f"v={timestamp_ms},d={digest}"


def verify_retell(api_key: str, body: bytes, headers: Mapping[str, str], now: float) -> bool:
    """A Retell request: a well-formed, fresh and matching ``X-Retell-Signature``."""
    header = headers.get("x-retell-signature") or ""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    stamp, digest = parts.get("v", ""), parts.get("d", "")
    # ASCII digits, at most 16 of them: `isdigit` admits "²", which int() refuses, and a huge number
    # overflows; either was a 500 before any signature was checked.
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 16) or not digest \
            or not signed_recently(str(int(stamp) / 1000), now):
        return False
    return hmac.compare_digest(retell_signature(api_key, body, int(stamp)).encode(),
                               f"v={stamp},d={digest}".encode())


@import_format("retell", "Retell AI call objects: a JSON array (list-calls) or JSON Lines",
               sample="retell_calls.json", name_hints=("retell",), webhook=webhook_calls,
               verify=verify_retell, sniff=looks_like_retell)
def parse_retell(stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
                 lines: bool = False) -> Iterator[ParseItem]:
    """Retell call objects: a JSON array (default) or JSON Lines."""
    speakers = SpeakerMap(DEFAULT_SPEAKERS, speaker_map)
    return parse_values(stream, lambda v, n: _convert(v, n, speakers), lines=lines, fmt="retell")
