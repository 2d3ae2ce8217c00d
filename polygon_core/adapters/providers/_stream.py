"""Reading a Chat Completions reply incrementally, so a runaway reply is cut at the output cap.

Live requests ask for a stream (`stream: true`). A server-sent-events reply is read event by event
and the reading stops when output comes past the cap (content, tool-call and reasoning deltas
count as one token each; eight characters per token of cap bound the text too): the connection is
then closed, which also stops a local server generating. A server that ignores `stream` and sends
one JSON body is read up to a byte bound, and cut to the cap when it ran past it. Either way at most
`max_bytes` are read, so a server that ignores `max_tokens` can neither hang Polygon past its
timeout nor fill its memory. The result is a plain dict in the ChatCompletion shape, and whether
the reply was cut. A stream whose bytes run out before `[DONE]` or a `finish_reason` came was cut
by the server or the network, not by the cap: that is `Retryable`, never a (short) reply.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ._retry import Retryable

__all__ = ["Completion", "ReadLimits", "capped_body", "read_completion"]


@dataclass(frozen=True)
class ReadLimits:
    """How much of a reply is read: its token cap and, from it, bounds on characters and bytes."""

    max_tokens: int

    @property
    def max_chars(self) -> int:
        """Text beyond this many characters is past the cap, whatever the tokenizer."""
        return 8 * self.max_tokens

    @property
    def max_bytes(self) -> int:
        """Bytes read at most (an event is a few hundred bytes of JSON around each token)."""
        return 65_536 + 1024 * self.max_tokens


@dataclass(frozen=True)
class Completion:
    """A reply in the ChatCompletion shape (plain JSON), and whether it stopped at the cap."""

    body: dict[str, Any]
    cut: bool


@dataclass
class _Events:
    """What the events of a streamed reply add up to."""

    limits: ReadLimits
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    tokens: int = 0
    chars: int = 0
    finish: str | None = None
    usage: dict[str, Any] | None = None
    ident: str | None = None

    def _count(self, piece: str) -> None:
        self.tokens += 1
        self.chars += len(piece)

    def _tool_delta(self, delta: dict[str, Any]) -> None:
        slot = self.calls.setdefault(int(delta.get("index") or 0), {"id": None, "name": "", "arguments": []})
        slot["id"] = slot["id"] or delta.get("id")
        function = delta.get("function") or {}
        name = function.get("name")
        if name and name != slot["name"]:
            slot["name"] += name
        if function.get("arguments"):
            slot["arguments"].append(function["arguments"])
            self._count(function["arguments"])

    def add(self, event: dict[str, Any]) -> None:
        """Fold one event in; an error event is a transient failure."""
        if event.get("error"):
            error = event["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise Retryable(f"the server sent an error mid-reply: {str(message)[:300]}")
        self.ident = self.ident or event.get("id")
        if isinstance(event.get("usage"), dict):
            self.usage = event["usage"]
        for choice in event.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(delta["content"])
                self._count(delta["content"])
            for key in ("reasoning_content", "reasoning"):  # thinking models spend the cap too
                if isinstance(delta.get(key), str) and delta[key]:
                    self._count(delta[key])
            for call in delta.get("tool_calls") or []:
                self._tool_delta(call)
            self.finish = choice.get("finish_reason") or self.finish

    @property
    def full(self) -> bool:
        """The reply has reached the cap: more output is past it."""
        return self.tokens >= self.limits.max_tokens or self.chars >= self.limits.max_chars

    def body(self, cut: bool) -> dict[str, Any]:
        """The events as one ChatCompletion-shaped dict."""
        calls = [{"id": c["id"] or f"call_{i}", "type": "function",
                  "function": {"name": c["name"], "arguments": "".join(c["arguments"])}}
                 for i, c in sorted(self.calls.items())]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if calls:
            message["tool_calls"] = calls
        usage = self.usage or {"completion_tokens": self.tokens, "estimated": True}
        return {"id": self.ident, "choices": [{"index": 0, "message": message,
                                               "finish_reason": "length" if cut else self.finish}],
                "usage": usage}


def _has_output(event: dict[str, Any]) -> bool:
    """The event carries generated output (text, tool-call arguments or reasoning)."""
    for choice in event.get("choices") or []:
        delta = choice.get("delta") or {}
        if any(delta.get(k) for k in ("content", "tool_calls", "reasoning_content", "reasoning")):
            return True
    return False


async def _lines(chunks: AsyncIterator[bytes], limits: ReadLimits) -> AsyncIterator[bytes | None]:
    """The lines of a byte stream; None (then the end) once `max_bytes` have been read."""
    buffer, read = b"", 0
    async for chunk in chunks:
        read += len(chunk)
        buffer += chunk
        if b"\n" in chunk:  # (a long line arriving in pieces is not split again and again)
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield line.rstrip(b"\r")
        if read > limits.max_bytes:
            yield None
            return
    if buffer:
        yield buffer


# A stream whose bytes ran out before it said it was done: the server or the network cut it, and
# what came is a fragment (an agent turn stopped mid-sentence, a caller line without its `[END:`
# marker, half a judgment), a transient fault for the retry layer, never a reply.
_UNFINISHED = "the stream ended before the reply was complete (no [DONE])"


async def _read_events(chunks: AsyncIterator[bytes], limits: ReadLimits) -> Completion:
    """A streamed reply, complete only when the stream says so: `data: [DONE]` (OpenAI, vLLM,
    Ollama, llama.cpp since 2024) or a chunk with a `finish_reason` (vLLM puts it on the last
    content chunk; llama.cpp before it sent `[DONE]`, and its forks, end with that chunk alone)."""
    events = _Events(limits)
    done = False
    async for line in _lines(chunks, limits):
        if line is None:
            return Completion(events.body(cut=True), cut=True)
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            done = True
            await _drain(chunks)
            break
        try:
            event = json.loads(data)
        except ValueError:
            raise Retryable("the server's stream holds an event that is not JSON") from None
        if not isinstance(event, dict):
            continue
        if events.full and _has_output(event):
            return Completion(events.body(cut=True), cut=True)
        events.add(event)
    if not done and events.finish is None:
        raise Retryable(_UNFINISHED)
    return Completion(events.body(cut=events.finish == "length"), cut=events.finish == "length")


# Bytes read past `[DONE]` before the connection is given up instead of kept (normally none: the
# stream ends right after it).
_DRAIN_BYTES = 65536


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read a finished stream to its end, so its connection goes back to the pool for the next
    request instead of being closed (a new connection, and with TLS a new handshake, per request)."""
    read = 0
    async for chunk in chunks:
        read += len(chunk)
        if read > _DRAIN_BYTES:
            return


async def _read_body(chunks: AsyncIterator[bytes], limits: ReadLimits) -> Completion:
    parts, read = [], 0
    async for chunk in chunks:
        parts.append(chunk)
        read += len(chunk)
        if read > limits.max_bytes:
            cut = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None},
                                "finish_reason": "length"}], "usage": {"estimated": True}}
            return Completion(cut, cut=True)
    try:
        body = json.loads(b"".join(parts))
    except ValueError:
        raise Retryable("the server's reply is not JSON") from None
    if not isinstance(body, dict) or not body.get("choices"):
        raise Retryable("the server's reply is not a valid response (no choices)")
    return capped_body(body, limits)


def capped_body(body: dict[str, Any], limits: ReadLimits) -> Completion:
    """A whole reply, cut to the cap when the server went past it (it ignored `max_tokens`)."""
    if not body.get("choices") or not isinstance(body["choices"][0], dict):
        return Completion(body, cut=False)  # not a reply at all: the reader says so
    choice = body["choices"][0]
    message = choice.get("message") or {}
    text = message.get("content") or ""
    produced = (body.get("usage") or {}).get("completion_tokens")
    past = (produced or 0) > limits.max_tokens or len(text) > limits.max_chars
    if not past:
        return Completion(body, cut=choice.get("finish_reason") == "length")
    message = {**message, "content": text[: 4 * limits.max_tokens] or None}
    choice = {**choice, "message": message, "finish_reason": "length"}
    return Completion({**body, "choices": [choice, *body["choices"][1:]]}, cut=True)


async def _replayed(first: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    if first:
        yield first
    async for chunk in rest:
        yield chunk


async def read_completion(content_type: str, chunks: AsyncIterator[bytes], limits: ReadLimits) -> Completion:
    """Read a reply (events or one JSON body) within `limits`. Events are recognised by their
    content type, or by their first bytes when a server labels them otherwise."""
    stream = aiter(chunks)
    first = await anext(stream, b"")
    events = "text/event-stream" in content_type or first.lstrip().startswith((b"data:", b"event:", b":"))
    whole = _replayed(first, stream)
    return await (_read_events(whole, limits) if events else _read_body(whole, limits))
