"""Anthropic Messages (and Anthropic-compatible servers at a base URL)."""

from __future__ import annotations

import time
from typing import Any

from ...conversation import ProviderFailure
from ...models import Usage
from ...providers import ChatMessage, ChatRequest, ChatResponse, ChatToolCall
from ._clients import SdkAdapter
from ._errors import classify
from ._retry import Retryable
from ._structured import read_structured

__all__ = ["AnthropicAdapter", "anthropic_messages"]

_DEFAULT_MAX_TOKENS = 1024
_CACHE = {"type": "ephemeral"}


def anthropic_messages(messages: list[ChatMessage]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in the Messages form: tool results are `tool_result` blocks in a
    user message; consecutive same-role messages are merged; `cache=True` marks a cache prefix."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        if m.role == "system":
            block: dict[str, Any] = {"type": "text", "text": m.content}
            if m.cache:
                block["cache_control"] = _CACHE
            system.append(block)
        elif m.role == "tool":
            add("user", [{"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": m.content}])
        elif m.role == "assistant":
            blocks = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in m.tool_calls]
            add("assistant", blocks or [{"type": "text", "text": "…"}])
        else:
            block = {"type": "text", "text": m.content or "…"}
            if m.cache:
                block["cache_control"] = _CACHE
            add("user", [block])
    if not out or out[0]["role"] != "user":
        # The Messages API wants a user turn first (an agent that speaks first has none yet).
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(the call is connected)"}]})
    return system, out


class AnthropicAdapter(SdkAdapter):
    """One attempt of one request; the retry layer sits above it."""

    provider = "anthropic"
    client_class = "AsyncAnthropic"

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        system, messages = anthropic_messages(request.messages)
        params: dict[str, Any] = {"model": self.model, "messages": messages,
                                  "max_tokens": request.max_tokens or _DEFAULT_MAX_TOKENS}
        if system:
            params["system"] = system
        tools = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                 for t in request.tools]
        if request.response_schema is not None:
            # Structured output by forced tool use: the reply is the tool's input.
            tools.append({"name": request.schema_name, "description": "Give your answer.",
                          "input_schema": request.response_schema})
            params["tool_choice"] = {"type": "tool", "name": request.schema_name}
        if tools:
            params["tools"] = tools
        # Sampling goes in the body directly: recent SDKs no longer type these arguments, and the
        # Messages API takes no seed.
        extra = {k: getattr(request, k) for k in ("temperature", "top_p") if getattr(request, k) is not None}
        if extra:
            params["extra_body"] = extra
        return params

    async def call(self, request: ChatRequest, label: str) -> ChatResponse:
        """Send one request; raises Retryable or ProviderFailure."""
        started = time.perf_counter()
        try:
            resp = await self._client().messages.create(**self._params(request))
            if isinstance(resp, (str, bytes)):
                # The SDK hands back a non-JSON body as text instead of raising.
                raise Retryable("the server's reply is not JSON")
            blocks = list(resp.content)
            usage = resp.usage
        except (ProviderFailure, Retryable):
            raise
        except Exception as exc:
            mapped = classify(exc, self._sdk, label, self.secrets())
            if mapped is exc:
                raise
            raise mapped from None
        texts, calls, structured = [], [], None
        for block in blocks:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use":
                if request.response_schema is not None and block.name == request.schema_name:
                    structured = block.input
                    continue
                if isinstance(block.input, dict):
                    calls.append(ChatToolCall(id=block.id, name=block.name, arguments=block.input))
                else:
                    calls.append(ChatToolCall(id=block.id, name=block.name, raw_arguments=str(block.input),
                                              arguments_valid=False))
        text = "".join(texts)
        read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        out = ChatResponse(
            text=text, tool_calls=calls, provider="anthropic", model=self.model,
            usage=Usage(input_tokens=int(getattr(usage, "input_tokens", 0) or 0) + read + written,
                        output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
                        cached_tokens=read, calls=1),
            latency_ms=round((time.perf_counter() - started) * 1000, 1),
            request_id=getattr(resp, "_request_id", None) or getattr(resp, "id", None))
        if request.response_schema is not None:
            # No tool_use block (a server that ignored tool_choice): read the text tolerantly.
            parsed, bad, error = read_structured(structured if structured is not None else text,
                                                 request.response_schema)
            out = out.model_copy(update={"parsed": parsed, "unparseable": bad, "parse_error": error})
        return out
