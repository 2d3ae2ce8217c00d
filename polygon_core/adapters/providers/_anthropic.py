"""Anthropic Messages (and Anthropic-compatible servers at a base URL)."""

from __future__ import annotations

import time
from typing import Any

from ...models import Usage
from ...providers import ChatMessage, ChatRequest, ChatResponse, ChatToolCall
from ._batch import BatchOutcome, BatchState, BatchStatus
from ._clients import SdkAdapter
from ._registry import provider
from ._structured import read_structured

__all__ = ["AnthropicAdapter", "anthropic_messages"]

_DEFAULT_MAX_TOKENS = 1024
_CACHE: dict[str, Any] = {"type": "ephemeral"}


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
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
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


@provider("anthropic")
class AnthropicAdapter(SdkAdapter):
    """One attempt of one request; the retry layer sits above it."""

    sdk, client_class = "anthropic", "AsyncAnthropic"
    api_key_env = ("POLYGON_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
    base_url_env = ("POLYGON_ANTHROPIC_BASE_URL",)
    default_url = "https://api.anthropic.com"
    title = "Anthropic"
    url_example = "http://host:port"

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

    async def call(self, request: ChatRequest, label: str, timeout: float | None = None) -> ChatResponse:
        """Send one request; raises Retryable or ProviderFailure."""
        started = time.perf_counter()
        params = self._params(request)
        if timeout is not None:
            params["timeout"] = timeout
        resp = await self.guarded(label, lambda: self._client().messages.create(**params))
        return self._reply(resp, request, round((time.perf_counter() - started) * 1000, 1))

    def _reply(self, resp: Any, request: ChatRequest, latency_ms: float) -> ChatResponse:
        """A Message as a ChatResponse (a forced tool's input is the structured reply)."""
        texts, calls, structured = [], [], None
        for block in resp.content:
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
        usage = resp.usage
        cap = request.max_tokens or _DEFAULT_MAX_TOKENS
        produced = int(getattr(usage, "output_tokens", 0) or 0)
        # The API stops at the cap itself; a compatible server that ignored it is cut here.
        cut = getattr(resp, "stop_reason", None) == "max_tokens" or produced > cap
        if produced > cap:
            text = text[: 4 * cap]
        read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        out = ChatResponse(
            text=text, tool_calls=calls, provider=self.provider, model=self.model, cut=cut,
            usage=Usage(input_tokens=int(getattr(usage, "input_tokens", 0) or 0) + read + written,
                        output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
                        cached_tokens=read, calls=1),
            latency_ms=latency_ms, request_id=getattr(resp, "_request_id", None) or getattr(resp, "id", None))
        if request.response_schema is not None:
            # No tool_use block (a server that ignored tool_choice): read the text tolerantly.
            parsed, bad, error = read_structured(structured if structured is not None else text,
                                                 request.response_schema)
            out = out.model_copy(update={"parsed": parsed, "unparseable": bad, "parse_error": error})
        return out

    # -- Message Batches: the same request bodies, submitted together ---------------------------

    def _batch_params(self, request: ChatRequest) -> dict[str, Any]:
        # A batch item's params are the plain request body: sampling goes in directly.
        params = self._params(request)
        params.update(params.pop("extra_body", {}))
        return params

    async def submit_batch(self, requests: dict[str, ChatRequest], label: str) -> str:
        """Create a Message Batch; returns its id."""
        items = [{"custom_id": cid, "params": self._batch_params(req)} for cid, req in requests.items()]
        batch = await self.guarded(label, lambda: self._client().messages.batches.create(requests=items))
        return str(batch.id)

    async def batch_status(self, batch_id: str, label: str) -> BatchStatus:
        """One poll of a batch (`ended` covers batches whose items expired or were canceled)."""
        batch = await self.guarded(label, lambda: self._client().messages.batches.retrieve(batch_id))
        counts = batch.request_counts
        errored = sum(int(getattr(counts, k, 0) or 0) for k in ("errored", "expired", "canceled"))
        succeeded = int(getattr(counts, "succeeded", 0) or 0)
        total = succeeded + errored + int(getattr(counts, "processing", 0) or 0)
        state: BatchState = "ended" if batch.processing_status == "ended" else "pending"
        return BatchStatus(batch_id=batch_id, state=state, provider_status=str(batch.processing_status),
                           total=total, succeeded=succeeded, errored=errored)

    async def batch_results(self, batch_id: str, requests: dict[str, ChatRequest],
                            label: str) -> list[BatchOutcome]:
        """Every request's outcome, read from the batch's results file."""

        async def read() -> dict[str, BatchOutcome]:
            found: dict[str, BatchOutcome] = {}
            async for item in await self._client().messages.batches.results(batch_id):
                if item.custom_id in requests:
                    found[item.custom_id] = self._outcome(item, requests[item.custom_id])
            return found

        found = await self.guarded(label, read)
        return [found.get(cid) or BatchOutcome(custom_id=cid, error=f"no result in batch {batch_id}")
                for cid in requests]

    def _outcome(self, item: Any, request: ChatRequest) -> BatchOutcome:
        result = item.result
        if result.type == "succeeded":
            return BatchOutcome(custom_id=item.custom_id, response=self._reply(result.message, request, 0.0))
        error = getattr(getattr(result, "error", None), "error", None)
        reason = getattr(error, "message", None) or result.type
        return BatchOutcome(custom_id=item.custom_id, error=f"{result.type}: {reason}")
