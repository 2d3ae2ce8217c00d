"""OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, llama.cpp server)."""

from __future__ import annotations

import json
import time
from typing import Any

from ...models import Usage
from ...providers import ChatMessage, ChatRequest, ChatResponse, ChatToolCall
from ._batch import BatchOutcome, BatchStatus, openai_batch_state
from ._clients import SdkAdapter
from ._structured import read_structured

__all__ = ["OpenAIAdapter", "openai_messages"]

_BATCH_ENDPOINT = "/v1/chat/completions"


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
        # The SDK's low-level `post` sends the same request without `create`'s per-call walk of
        # the typed parameters (about 10 ms per call, the largest cost in a concurrent run);
        # the reply is parsed into the same ChatCompletion type.
        resp = await self.guarded(label, lambda: self._client().post(
            "/chat/completions", body=self._params(request), cast_to=self._sdk.types.chat.ChatCompletion))
        return self._reply(resp, request, round((time.perf_counter() - started) * 1000, 1))

    def _reply(self, resp: Any, request: ChatRequest, latency_ms: float) -> ChatResponse:
        """A ChatCompletion as a ChatResponse (the schema'd reply read tolerantly)."""
        message = resp.choices[0].message
        text = message.content or ""
        usage = resp.usage
        cached = 0
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        if details is not None and getattr(details, "cached_tokens", None):
            cached = int(details.cached_tokens)
        out = ChatResponse(
            text=text, tool_calls=[_tool_call(c) for c in (message.tool_calls or [])], provider="openai",
            model=self.model, latency_ms=latency_ms,
            usage=Usage(input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                        cached_tokens=cached, calls=1, estimated=usage is None),
            request_id=getattr(resp, "_request_id", None) or getattr(resp, "id", None))
        if request.response_schema is not None:
            parsed, bad, error = read_structured(text, request.response_schema)
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
            content = await self.guarded(label, lambda f=file_id: client.files.content(f))
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
        completion = self._sdk.types.chat.ChatCompletion.model_validate(response["body"])
        return BatchOutcome(custom_id=cid, response=self._reply(completion, requests[cid], 0.0))
