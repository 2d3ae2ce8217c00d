"""Vapi call objects (`GET /call`, `GET /call/{id}` or the end-of-call-report webhook).

Read from the documented Call object: ``id``, ``startedAt``, ``endedAt``, ``endedReason`` and
``artifact.messages`` (older exports: top-level ``messages``), whose entries have ``role``
(``system``, ``user``, ``bot``, ``tool_calls``, ``tool_call_result``), ``message``, ``time`` (Unix
ms) and ``secondsFromStart``; ``tool_calls`` entries carry OpenAI-style ``toolCalls`` and
``tool_call_result`` entries ``toolCallId``, ``name`` and ``result``. A JSON array of calls (what
``GET /call`` returns), one call object, or JSON Lines of call objects.
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

__all__ = ["END_REASONS", "looks_like_vapi", "parse_vapi", "vapi_hmac_signature", "verify_vapi", "webhook_calls"]

DEFAULT_SPEAKERS: dict[str, Speaker] = {"user": CALLER, "customer": CALLER, "bot": AGENT,
                                        "assistant": AGENT}

# Vapi's endedReason → Polygon's end reason (anything else: see the docs' default).
END_REASONS: dict[str, str] = {
    "customer-ended-call": "caller_hangup",
    "assistant-ended-call": "agent_end",
    "assistant-said-end-call-phrase": "agent_end",
    "assistant-forwarded-call": "transfer",
    "exceeded-max-duration": "max_turns",
    "silence-timed-out": "timeout",
    "customer-did-not-answer": "caller_hangup",
}


def _convert(value: Any, line: int, speakers: SpeakerMap) -> ImportedCall:
    call = require_object(value, "a Vapi call")
    ident = require_id(call, "id")
    artifact = call.get("artifact")
    if not isinstance(artifact, dict):
        artifact = {}
    messages = artifact.get("messages", call.get("messages"))
    if not isinstance(messages, list):
        raise BadRecord("no `artifact.messages` list in the call object", ident)
    built = TurnBuilder()
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise BadRecord(f"artifact.messages.{i} is not an object", ident)
        role = m.get("role")
        if role == "system":
            continue
        if role == "tool_calls":
            for c in m.get("toolCalls") or []:
                fn = c.get("function") or {}
                built.call(str(c.get("id") or f"{ident}-{i}"), str(fn.get("name") or "?"),
                           arguments(fn.get("arguments")))
            continue
        if role == "tool_call_result":
            # A result whose call is not waiting (Vapi sends late ones) is not evidence of anything.
            built.result(str(m.get("toolCallId") or ""), result_value(m.get("result")), name=m.get("name"))
            continue
        try:
            side = speakers(role)
        except ValueError as exc:
            raise BadRecord(f"artifact.messages.{i}: {exc}", ident) from None
        built.say(side, str(m.get("message") or ""), iso_time(m.get("time"), unit="ms"))
    turns = built.turns()
    ended = call.get("endedReason")
    return ImportedCall(external_id=ident, line=line, turns=turns,
                        started_at=iso_time(call.get("startedAt") or call.get("createdAt")),
                        ended_at=iso_time(call.get("endedAt")),
                        end_reason=END_REASONS.get(str(ended)) if ended else None,
                        metadata={k: call[k] for k in ("assistantId", "type", "endedReason")
                                  if k in call})


_VAPI_KEYS = frozenset({"artifact", "assistantId", "orgId", "endedReason", "startedAt", "endedAt"})


def looks_like_vapi(record: Any) -> bool:
    """A record with a Vapi call object's camelCase keys (for rejection hints only)."""
    return isinstance(record, dict) and bool(_VAPI_KEYS & record.keys())


def webhook_calls(body: Any) -> list[Any] | None:
    """The call in an ``end-of-call-report`` server message; None for any other message type.

    The report carries the call object under ``message.call`` and the transcript under
    ``message.artifact``; its ``startedAt``/``endedAt``/``endedReason`` are the call's. A report
    without ``message.call.id`` is a BadRecord: every Vapi call has one, and a content hash in its
    place would make the same call, reported again with more in it, a second call.
    """
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, dict) or message.get("type") != "end-of-call-report":
        return None
    call = message.get("call")
    if not isinstance(call, dict):
        call = {}
    ident = call.get("id")
    if not (isinstance(ident, str | int) and not isinstance(ident, bool) and str(ident).strip()):
        raise BadRecord("no `message.call.id` in the end-of-call report (the Vapi call's id, "
                        "which Polygon keys the call by)")
    merged = {**call, **{k: message[k] for k in ("artifact", "startedAt", "endedAt", "endedReason")
                         if message.get(k) is not None}}
    return [merged]


def vapi_hmac_signature(secret: str, timestamp: str, body: bytes) -> str:
    """Vapi's HMAC credential signature: hex HMAC-SHA256 of ``"{timestamp}.{body}"``."""
    return hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def verify_vapi(secret: str, body: bytes, headers: Mapping[str, str], now: float) -> bool:
    """A Vapi request: ``X-Vapi-Signature`` (or the older ``X-Vapi-Secret``) equal to the server URL
    secret, or, with an HMAC credential, a fresh ``X-Signature`` = hex HMAC-SHA256(secret,
    ``"{X-Timestamp}.{body}"``) (compared in constant time)."""
    token = headers.get("x-vapi-signature") or headers.get("x-vapi-secret")
    if token and hmac.compare_digest(token.encode(), secret.encode()):
        return True
    signature, stamp = headers.get("x-signature"), headers.get("x-timestamp")
    if not signature or not stamp or not signed_recently(stamp, now):
        return False
    return hmac.compare_digest(vapi_hmac_signature(secret, stamp, body).encode(),
                               signature.strip().removeprefix("sha256=").encode())


@import_format("vapi", "Vapi call objects: a JSON array (GET /call) or JSON Lines",
               sample="vapi_calls.json", name_hints=("vapi",), webhook=webhook_calls, verify=verify_vapi,
               sniff=looks_like_vapi)
def parse_vapi(stream: TextIO, speaker_map: Mapping[str, Speaker] | None = None, *,
               lines: bool = False) -> Iterator[ParseItem]:
    """Vapi call objects: a JSON array (default) or JSON Lines."""
    speakers = SpeakerMap(DEFAULT_SPEAKERS, speaker_map)
    return parse_values(stream, lambda v, n: _convert(v, n, speakers), lines=lines, fmt="vapi")
