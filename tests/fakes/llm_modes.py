"""Extra modes of the fake model server: streamed replies, runaway replies, refused connections.

- `sse_events`: a Chat Completions reply as server-sent events (a few characters per event, one
  usage event when `stream_options.include_usage` asks for it, then `[DONE]`), the way vLLM, Ollama
  and llama.cpp stream;
- `runaway_reply` / `runaway_message` (Anthropic): a reply of `tokens` words that ignores
  `max_tokens` (a small local model that runs on); a structured request gets the start of a JSON
  object that never closes;
- `cut_events`: the first half of a reply's events, before its finish_reason and `[DONE]` (a server
  that crashed or a proxy that hung up mid-reply);
- `refused_url`: a loopback URL where nothing listens (connection refused);
- `default_for` (a schema-valid value) and `request_texts` (every text of a request body).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

__all__ = ["cut_events", "default_for", "refused_url", "request_texts", "results_back", "runaway_events", "runaway_message", "runaway_reply",
           "sse_events"]

_CHUNK = 4  # characters per streamed event (about one token)


def _event(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


def _chunk(reply: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    return _event({"id": reply["id"], "object": "chat.completion.chunk", "created": 0, "model": reply["model"],
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def sse_events(reply: dict[str, Any], include_usage: bool) -> Iterator[bytes]:
    """The events of a whole ChatCompletion `reply`, as a streaming server sends them."""
    message = reply["choices"][0]["message"]
    yield _chunk(reply, {"role": "assistant", "content": ""})
    text = message.get("content") or ""
    for i in range(0, len(text), _CHUNK):
        yield _chunk(reply, {"content": text[i:i + _CHUNK]})
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        yield _chunk(reply, {"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": function["name"], "arguments": ""}}]})
        args = function["arguments"]
        for i in range(0, len(args), _CHUNK):
            yield _chunk(reply, {"tool_calls": [{"index": index, "function": {"arguments": args[i:i + _CHUNK]}}]})
    yield _chunk(reply, {}, reply["choices"][0]["finish_reason"])
    if include_usage:
        yield _event({"id": reply["id"], "object": "chat.completion.chunk", "created": 0, "model": reply["model"],
                      "choices": [], "usage": reply["usage"]})
    yield _event("[DONE]")


def cut_events(events: Iterator[bytes]) -> Iterator[bytes]:
    """The first half of the events before the one that carries a finish_reason (never it, its
    usage event or `[DONE]`): a stream that stops mid-reply."""
    body = []
    for event in events:
        if b'"finish_reason": null' not in event:
            break
        body.append(event)
    yield from body[: max(1, len(body) // 2)]


def _runaway_text(tokens: int, structured: bool) -> Iterator[str]:
    if structured:
        yield '{"goal_completion": {"score": 4, "evidence": "'
    for i in range(tokens):
        yield f"word{i % 10} "


def runaway_reply(reply: dict[str, Any], tokens: int, structured: bool) -> dict[str, Any]:
    """`reply` with its text replaced by `tokens` words (finish "stop": the cap was ignored)."""
    text = "".join(_runaway_text(tokens, structured))
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    usage = {**reply["usage"], "completion_tokens": tokens, "total_tokens": reply["usage"]["prompt_tokens"] + tokens}
    return {**reply, "choices": [choice], "usage": usage}


def runaway_message(reply: dict[str, Any], tokens: int, structured: bool) -> dict[str, Any]:
    """An Anthropic Messages `reply` that ran on for `tokens` words (no tool use, stop "end_turn")."""
    text = "".join(_runaway_text(tokens, structured))
    return {**reply, "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {**reply["usage"], "output_tokens": tokens}}


def runaway_events(reply: dict[str, Any], tokens: int, structured: bool) -> Iterator[bytes]:
    """A streamed runaway reply: one event per word, `tokens` of them, whatever max_tokens said."""
    yield _chunk(reply, {"role": "assistant", "content": ""})
    for piece in _runaway_text(tokens, structured):
        yield _chunk(reply, {"content": piece})
    yield _chunk(reply, {}, "stop")
    yield _event("[DONE]")


def results_back(messages: list[dict[str, Any]]) -> int:
    """Tool results given back as text (`<tool_response>` blocks in user messages)."""
    return sum(str(m.get("content")).count("<tool_response>") for m in messages if m.get("role") == "user")


def refused_url() -> str:
    """An OpenAI-style base URL on a loopback port that was free a moment ago (nothing listens)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def default_for(schema: dict[str, Any], salt: int | None = None) -> Any:
    """A schema-valid value. Integer scores take the schema's maximum (a generous judge); with a
    `salt` they, and enum choices, vary with it instead (replies that differ by request)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0 if salt is None else salt % len(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return default_for(schema[key][0], salt)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        keys = schema.get("required", list(props))
        # Each property its own share of the salt, so fields do not all move together.
        return {k: default_for(props.get(k, {}), None if salt is None else salt // (i + 1) + i)
                for i, k in enumerate(keys)}
    if kind == "array":
        return [default_for(schema.get("items", {}), salt) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        high = schema.get("maximum", schema.get("minimum", 3))
        low = schema.get("minimum", high)
        value = high if salt is None else low + salt % (int(high) - int(low) + 1)
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if kind == "string":
        return "the agent said so" if not schema.get("minLength") else "x" * schema["minLength"]
    return None


def request_texts(body: dict[str, Any]) -> str:
    """Every text a request carries, in order, whatever the wire format (system first)."""
    out: list[str] = []
    system = body.get("system", "")
    out += [system] if isinstance(system, str) else [b.get("text", "") for b in system]
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [c.get("text", "") for c in content if c.get("type") == "text"]
    return "\n".join(t for t in out if t)
