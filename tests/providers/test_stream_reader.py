"""The bounded reader of Chat Completions replies (`_stream`), on scripted byte streams."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from polygon_core.adapters.providers._retry import Retryable
from polygon_core.adapters.providers._stream import Completion, ReadLimits, read_completion


async def _chunks(parts: list[bytes], counter: list[int]) -> AsyncIterator[bytes]:
    for part in parts:
        counter[0] += 1
        yield part


def _read(content_type: str, parts: list[bytes], cap: int) -> tuple[Completion, int]:
    counter = [0]
    done = asyncio.run(read_completion(content_type, _chunks(parts, counter), ReadLimits(cap)))
    return done, counter[0]


def _event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    return b"data: " + json.dumps({"id": "c1", "choices": [{"index": 0, "delta": delta,
                                                            "finish_reason": finish}], **extra}).encode() + b"\n\n"


def test_events_add_up_to_one_completion_with_tool_calls_and_usage() -> None:
    parts = [_event({"role": "assistant", "content": "Let me "}), _event({"content": "check."}),
             _event({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "lookup", "arguments": '{"id"'}}]}),
             _event({"tool_calls": [{"index": 0, "function": {"arguments": ': "7"}'}}]}, "tool_calls"),
             b'data: {"id": "c1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}\n\n',
             b"data: [DONE]\n\n"]
    done, _ = _read("text/event-stream; charset=utf-8", parts, cap=100)
    assert done.cut is False
    assert done.body == {"id": "c1", "usage": {"prompt_tokens": 9, "completion_tokens": 4}, "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Let me check.",
            "tool_calls": [{"id": "call_a", "type": "function",
                            "function": {"name": "lookup", "arguments": '{"id": "7"}'}}]}}]}


def test_reading_stops_at_the_cap_and_reads_no_further() -> None:
    parts = [_event({"content": f"w{i} "}) for i in range(1000)]
    done, pulled = _read("text/event-stream", parts, cap=5)
    assert done.cut is True and done.body["choices"][0]["finish_reason"] == "length"
    assert done.body["choices"][0]["message"]["content"] == "w0 w1 w2 w3 w4 "
    assert done.body["usage"] == {"completion_tokens": 5, "estimated": True}
    assert pulled == 6  # the sixth event, past the cap, was the last one read


def test_a_server_honouring_the_cap_is_cut_too() -> None:
    done, _ = _read("text/event-stream", [_event({"content": "ab"}), _event({}, "length")], cap=5)
    assert done.cut is True and done.body["choices"][0]["message"]["content"] == "ab"


def test_an_endless_line_is_bounded_by_bytes() -> None:
    parts = [b"data: " + b"x" * 65_536 for _ in range(100)]  # never a newline
    done, pulled = _read("text/event-stream", parts, cap=4)
    assert done.cut is True and pulled == 2  # 64 KB + 1 KB per token of cap, then it stops


def test_a_whole_json_body_is_read_and_cut_when_past_the_cap() -> None:
    body = {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "w " * 50},
                                    "finish_reason": "stop"}], "usage": {"completion_tokens": 50}}
    done, _ = _read("application/json", [json.dumps(body).encode()], cap=10)
    assert done.cut is True and done.body["choices"][0]["message"]["content"] == "w " * 20
    assert done.body["choices"][0]["finish_reason"] == "length"
    small, _ = _read("application/json", [json.dumps({**body, "usage": {"completion_tokens": 5}}).encode()], cap=100)
    assert small.cut is False and small.body["choices"][0]["message"]["content"] == "w " * 50


def test_a_huge_json_body_is_not_read_whole() -> None:
    done, pulled = _read("application/json", [b"{" + b" " * 70_000 for _ in range(50)], cap=1)
    assert done.cut is True and pulled == 1  # 70 KB is past 64 KB + 1 KB for a cap of one token


@pytest.mark.parametrize(("content_type", "parts", "reason"), [
    ("application/json", [b"<html>busy</html>"], "the server's reply is not JSON"),
    ("application/json", [b'{"id": "x"}'], "the server's reply is not a valid response (no choices)"),
    ("text/event-stream", [b"data: {not json\n\n"], "the server's stream holds an event that is not JSON"),
    ("text/event-stream", [b'data: {"error": {"message": "model crashed"}}\n\n'],
     "the server sent an error mid-reply: model crashed"),
])
def test_garbled_replies_are_transient(content_type: str, parts: list[bytes], reason: str) -> None:
    with pytest.raises(Retryable) as info:
        _read(content_type, parts, cap=10)
    assert info.value.reason == reason


def test_events_labelled_as_json_are_still_read_as_events() -> None:
    done, _ = _read("application/json", [_event({"content": "hi"}, "stop"), b"data: [DONE]\n\n"], cap=10)
    assert (done.cut, done.body["choices"][0]["message"]["content"]) == (False, "hi")
