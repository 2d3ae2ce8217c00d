"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp server)."""

from __future__ import annotations

import functools
import json
import time
from typing import Any

from ...models import Usage
from ...providers import ChatMessage, ChatRequest, ChatResponse, ChatToolCall
from ._batch import BatchOutcome, BatchStatus, openai_batch_state
from ._clients import SdkAdapter
from ._registry import provider
from ._retry import Retryable
from ._stream import ReadLimits, capped_body, read_completion
from ._structured import read_structured

__all__ = ["OpenAIAdapter", "openai_messages"]

_BATCH_ENDPOINT = "/v1/chat/completions"
DEFAULT_READ_TOKENS = 1024  # a request without a cap (never sent by Polygon's model layer)


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


def _tool_call(raw: dict[str, Any], index: int) -> ChatToolCall:
    function = raw.get("function") or {}
    call_id, name = str(raw.get("id") or f"call_{index}"), str(function.get("name") or "")
    text = function.get("arguments") or "{}"
    if not isinstance(text, str):  # a server that sent the arguments as an object
        text = json.dumps(text)
    try:
        args = json.loads(text)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        return ChatToolCall(id=call_id, name=name, raw_arguments=text, arguments_valid=False)
    return ChatToolCall(id=call_id, name=name, arguments=args)


def _usage(raw: Any, request: ChatRequest) -> Usage:
    if not isinstance(raw, dict) or raw.get("estimated"):
        # No usage from the server: estimate from the request's text and the reply's deltas.
        given = raw if isinstance(raw, dict) else {}
        return Usage(input_tokens=sum(len(m.content) for m in request.messages) // 4,
                     output_tokens=int(given.get("completion_tokens") or 0), calls=1, estimated=True)
    details = raw.get("prompt_tokens_details") or {}
    return Usage(input_tokens=int(raw.get("prompt_tokens") or 0),
                 output_tokens=int(raw.get("completion_tokens") or 0),
                 cached_tokens=int(details.get("cached_tokens") or 0), calls=1)


@provider("openai")
class OpenAIAdapter(SdkAdapter):
    """One attempt of one request; the retry layer sits above it."""

    sdk, client_class = "openai", "AsyncOpenAI"
    api_key_env = ("POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY")
    base_url_env = ("POLYGON_OPENAI_BASE_URL",)
    default_url = "https://api.openai.com/v1"
    title = "OpenAI"
    url_example = "http://host:port/v1"

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": openai_messages(request.messages)}
        if request.tools:
            params["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in request.tools]
        if request.response_schema is not None:
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name, "schema": request.response_schema}}
        for key in ("temperature", "top_p", "seed"):
            value = getattr(request, key)
            if value is not None:
                params[key] = value
        if request.max_tokens is not None:
            # OpenAI's own API wants `max_completion_tokens` (its reasoning models refuse
            # `max_tokens`); compatible servers (vLLM, Ollama, llama.cpp) all read `max_tokens`.
            params["max_completion_tokens" if self.base_url is None else "max_tokens"] = request.max_tokens
        return params

    async def call(self, request: ChatRequest, label: str, timeout: float | None = None) -> ChatResponse:
        """Send one request as a stream and read it within the cap; raises Retryable or ProviderFailure."""
        started = time.perf_counter()
        body = {**self._params(request), "stream": True, "stream_options": {"include_usage": True}}
        options: dict[str, Any] = {"headers": {"X-Stainless-Raw-Response": "stream"}}
        if timeout is not None:
            options["timeout"] = timeout
        # The SDK's low-level `post` (no per-call walk of typed parameters) with the body left
        # unread, so `_stream` reads it within the cap.
        resp = await self.guarded(label, lambda: self._client().post(
            "/chat/completions", body=body, cast_to=self._sdk.AsyncAPIResponse[bytes], options=options))
        limits = ReadLimits(request.max_tokens or DEFAULT_READ_TOKENS)
        try:
            completion = await self.guarded(label, lambda: read_completion(
                resp.headers.get("content-type", ""), resp.iter_bytes(), limits))
        finally:
            await resp.close()
        request_id = resp.headers.get("x-request-id")
        return self._reply(completion.body, request, round((time.perf_counter() - started) * 1000, 1),
                           cut=completion.cut, request_id=request_id)

    def _reply(self, body: dict[str, Any], request: ChatRequest, latency_ms: float, *, cut: bool = False,
               request_id: str | None = None) -> ChatResponse:
        """A ChatCompletion (plain JSON) as a ChatResponse (the schema'd reply read tolerantly)."""
        choices = body.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            raise Retryable("the server's reply is not a valid response (no choices)")
        message = choices[0].get("message") or {}
        text = message.get("content") or ""
        out = ChatResponse(
            text=text if isinstance(text, str) else json.dumps(text),
            tool_calls=[_tool_call(c, i) for i, c in enumerate(message.get("tool_calls") or [])],
            provider=self.provider, model=self.model, latency_ms=latency_ms, cut=cut,
            usage=_usage(body.get("usage"), request), request_id=request_id or body.get("id"))
        if request.response_schema is not None:
            parsed, bad, error = read_structured(out.text, request.response_schema)
            out = out.model_copy(update={"parsed": parsed, "unparseable": bad, "parse_error": error})
        return out

    # -- the Batch API: a JSONL file of requests, uploaded, then one batch over it ---------------

    async def submit_batch(self, requests: dict[str, ChatRequest], label: str) -> str:
        """Upload the requests as a JSONL file and start a batch over it; returns the batch id."""
        lines = [json.dumps({"custom_id": cid, "method": "POST", "url": _BATCH_ENDPOINT,
                             "body": self._params(req)}) for cid, req in requests.items()]
        data = ("\n".join(lines) + "\n").encode()
        client = self._client()
        upload = await self.guarded(label, lambda: client.files.create(
            file=("polygon-batch.jsonl", data, "application/jsonl"), purpose="batch"))
        batch = await self.guarded(label, lambda: client.batches.create(
            input_file_id=upload.id, endpoint=_BATCH_ENDPOINT, completion_window="24h",
            metadata={"polygon": label[:500]}))
        return str(batch.id)

    async def batch_status(self, batch_id: str, label: str) -> BatchStatus:
        """One poll of a batch."""
        batch = await self.guarded(label, lambda: self._client().batches.retrieve(batch_id))
        counts = batch.request_counts
        errors = getattr(batch, "errors", None)
        detail = "; ".join(str(e.message) for e in (getattr(errors, "data", None) or [])) or None
        return BatchStatus(batch_id=batch_id, state=openai_batch_state(batch.status),
                           provider_status=str(batch.status), total=int(getattr(counts, "total", 0) or 0),
                           succeeded=int(getattr(counts, "completed", 0) or 0),
                           errored=int(getattr(counts, "failed", 0) or 0), detail=detail)

    async def batch_results(self, batch_id: str, requests: dict[str, ChatRequest],
                            label: str) -> list[BatchOutcome]:
        """Every request's outcome, from the output and error files (a missing line is an error)."""
        client = self._client()
        batch = await self.guarded(label, lambda: client.batches.retrieve(batch_id))
        found: dict[str, BatchOutcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self.guarded(label, functools.partial(client.files.content, file_id))
            for line in content.text.splitlines():
                if line.strip():
                    outcome = self._outcome(json.loads(line), requests)
                    if outcome is not None:
                        found[outcome.custom_id] = outcome
        return [found.get(cid) or BatchOutcome(custom_id=cid, error=f"no result in batch {batch_id} "
                                               f"(status {batch.status})") for cid in requests]

    def _outcome(self, line: dict[str, Any], requests: dict[str, ChatRequest]) -> BatchOutcome | None:
        cid = line.get("custom_id")
        if cid not in requests:
            return None
        response = line.get("response") or {}
        if line.get("error") or response.get("status_code") != 200:
            err = line.get("error") or (response.get("body") or {}).get("error") or {}
            message = err.get("message") if isinstance(err, dict) else str(err)
            return BatchOutcome(custom_id=cid, error=f"HTTP {response.get('status_code')}: {message}")
        completion = capped_body(response["body"], ReadLimits(requests[cid].max_tokens or DEFAULT_READ_TOKENS))
        return BatchOutcome(custom_id=cid, response=self._reply(completion.body, requests[cid], 0.0,
                                                                cut=completion.cut))
