"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp server)."""

from __future__ import annotations

import json
import time
from typing import Any

from ...conversation import ProviderFailure
from ...models import Usage
from ...providers import ChatMessage, ChatRequest, ChatResponse, ChatToolCall
from ._clients import SdkAdapter
from ._errors import classify
from ._retry import Retryable
from ._structured import read_structured

__all__ = ["OpenAIAdapter", "openai_messages"]


def openai_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Chat messages in the Chat Completions form (tool results as `role: tool` messages)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "assistant" and m.tool_calls:
            out.append({"role": "assistant", "content": m.content or None, "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": c.raw_arguments if not c.arguments_valid
                              and c.raw_arguments is not None else json.dumps(c.arguments)}}
                for c in m.tool_calls]})
        elif m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def _tool_call(raw: Any) -> ChatToolCall:
    text = raw.function.arguments or "{}"
    try:
        args = json.loads(text)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        return ChatToolCall(id=raw.id, name=raw.function.name, raw_arguments=text, arguments_valid=False)
    return ChatToolCall(id=raw.id, name=raw.function.name, arguments=args)


class OpenAIAdapter(SdkAdapter):
    """One attempt of one request; the retry layer sits above it."""

    provider = "openai"
    client_class = "AsyncOpenAI"

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": openai_messages(request.messages)}
        if request.tools:
            params["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in request.tools]
        if request.response_schema is not None:
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name, "schema": request.response_schema}}
        for key in ("temperature", "top_p", "max_tokens", "seed"):
            value = getattr(request, key)
            if value is not None:
                params[key] = value
        return params

    async def call(self, request: ChatRequest, label: str) -> ChatResponse:
        """Send one request; raises Retryable or ProviderFailure."""
        started = time.perf_counter()
        try:
            # The SDK's low-level `post` sends the same request without `create`'s per-call walk of
            # the typed parameters (about 10 ms per call, the largest cost in a concurrent run);
            # the reply is parsed into the same ChatCompletion type.
            resp = await self._client().post("/chat/completions", body=self._params(request),
                                             cast_to=self._sdk.types.chat.ChatCompletion)
            if isinstance(resp, (str, bytes)):
                # The SDK hands back a non-JSON body as text instead of raising.
                raise Retryable("the server's reply is not JSON")
            choice = resp.choices[0]
            message = choice.message
            text = message.content or ""
            calls = [_tool_call(c) for c in (message.tool_calls or [])]
            usage = resp.usage
        except (ProviderFailure, Retryable):
            raise
        except Exception as exc:
            mapped = classify(exc, self._sdk, label, self.secrets())
            if mapped is exc:
                raise
            raise mapped from None
        cached = 0
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        if details is not None and getattr(details, "cached_tokens", None):
            cached = int(details.cached_tokens)
        out = ChatResponse(
            text=text, tool_calls=calls, provider="openai", model=self.model,
            usage=Usage(input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                        cached_tokens=cached, calls=1, estimated=usage is None),
            latency_ms=round((time.perf_counter() - started) * 1000, 1),
            request_id=getattr(resp, "_request_id", None) or getattr(resp, "id", None))
        if request.response_schema is not None:
            parsed, bad, error = read_structured(text, request.response_schema)
            out = out.model_copy(update={"parsed": parsed, "unparseable": bad, "parse_error": error})
        return out
