"""`make_chat_model(name, settings)`: a ChatModel with retries, limits, record/replay and metering."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...conversation import ProviderFailure
from ...providers import ChatModel, ChatRequest, ChatResponse
from ..settings import PolygonSettings
from ._batch import BatchOutcome, BatchStatus, NoBatchApi, missing_batch_api
from ._cache import ReplayMiss, ResponseCache, cache_key
from ._clients import SdkAdapter
from ._errors import ProviderConfigError, redact
from ._limits import Limiter, ModelLimits, limiter_for, prefect_slot
from ._meter import UsageMeter
from ._names import ModelSpec, parse_model_name
from ._offline import OfflineChatModel
from ._registry import adapter_class
from ._retry import Retryable, RetryPolicy, call_with_retries
from ._roles import RoleBudget, role_budgets, settings_group

__all__ = ["ProviderChatModel", "make_chat_model"]


def _estimate_tokens(request: ChatRequest) -> int:
    chars = sum(len(m.content) for m in request.messages)
    return chars // 4 + (request.max_tokens or 256)


class ProviderChatModel:
    """A provider adapter behind Polygon's one retry layer, the per-model limiter, the cache and a meter.

    Every request gets its role's output cap (when it names none) before anything else, so the cap
    is on the wire, in batch bodies and in the cache key; each attempt has its role's timeout as a
    deadline on the whole reply (a server trickling tokens cannot outlast it), and the role's
    attempts bound the retries.
    """

    def __init__(self, spec: ModelSpec, adapter: Any, *, policy: RetryPolicy, limiter: Limiter,
                 cache: ResponseCache | None, meter: UsageMeter | None,
                 budgets: dict[str, RoleBudget], prefect_limits: bool = False) -> None:
        self.spec, self.adapter, self.policy = spec, adapter, policy
        self.limiter, self.cache, self.meter = limiter, cache, meter
        self.prefect_limits = prefect_limits
        self.budgets = budgets
        self.name = spec.name

    def budget(self, role: str) -> RoleBudget:
        """The budget of a request role."""
        return self.budgets[settings_group(role)]

    def capped(self, request: ChatRequest) -> ChatRequest:
        """The request with its role's output cap when it names none (the agent's own wins)."""
        if request.max_tokens is not None:
            return request
        return request.model_copy(update={"max_tokens": self.budget(request.role).max_tokens})

    async def _attempt(self, request: ChatRequest, budget: RoleBudget) -> ChatResponse:
        async with prefect_slot(self.spec, enabled=self.prefect_limits):
            handle = await self.limiter.acquire(_estimate_tokens(request))
            used = None
            try:
                try:
                    async with asyncio.timeout(budget.timeout):
                        reply = await self.adapter.call(request, self.name, budget.timeout)
                except (TimeoutError, Retryable) as exc:
                    if isinstance(exc, Retryable) and exc.kind != "timeout":
                        raise
                    raise Retryable(f"timed out after {budget.timeout:g} s", kind="timeout",
                                    final=budget.timeout_message) from None
                used = reply.usage.input_tokens + reply.usage.output_tokens
                return reply
            finally:
                self.limiter.release(handle, used)

    def _marked(self, request: ChatRequest, reply: ChatResponse) -> ChatResponse:
        """A structured reply cut at the cap is unreadable, and says why."""
        if not reply.cut or request.response_schema is None:
            return reply
        reason = self.budget(request.role).cap_message(request.max_tokens or 0)
        return reply.model_copy(update={"parsed": None, "unparseable": True, "parse_error": reason})

    async def chat(self, request: ChatRequest) -> ChatResponse:
        """One request: from the cache (replay/record), else the provider with retries."""
        request = self.capped(request)
        budget = self.budget(request.role)
        key = cache_key(self.spec.short, request) if self.cache else None
        if self.cache and key:
            hit = self.cache.get(key)
            if hit is not None:
                self._meter(request.role, hit, 0)
                return hit
            if self.cache.mode == "replay":
                raise ReplayMiss(f"{self.name}: no recorded reply for this {request.role} request "
                                 f"(replay mode never calls the model; record the run first)")
        try:
            reply, retries = await call_with_retries(
                lambda: self._attempt(request, budget),
                dataclasses.replace(self.policy, max_attempts=budget.max_attempts), label=self.name,
                on_retry=self._on_retry(request.role))
        except ProviderFailure as exc:
            if self.meter:
                self.meter.add(request.role, self.name, _no_usage(), failed=True)
            raise type(exc)(redact(str(exc), self.adapter.secrets())) from None
        reply = self._marked(request, reply.model_copy(update={"retries": retries}))
        if self.cache and key and self.cache.mode == "record":
            self.cache.put(key, reply)
        self._meter(request.role, reply, 0)
        return reply

    # -- batch judging (OpenAI Batch API, Anthropic Message Batches) ----------------------------

    @property
    def supports_batch(self) -> bool:
        """Whether the provider has a batch API (its adapter has `submit_batch`)."""
        return hasattr(self.adapter, "submit_batch")

    def cached_replies(self, requests: dict[str, ChatRequest]) -> dict[str, ChatResponse]:
        """The replies the record/replay cache already holds (metered as they are used).

        In replay mode every request must be there: a miss is an error, never a batch submission.
        """
        if not self.cache:
            return {}
        hits: dict[str, ChatResponse] = {}
        for cid, request in self._all_capped(requests).items():
            hit = self.cache.get(cache_key(self.spec.short, request))
            if hit is not None:
                hits[cid] = hit
                self._meter(request.role, hit, 0)
            elif self.cache.mode == "replay":
                raise ReplayMiss(f"{self.name}: no recorded reply for batch request {cid} "
                                 "(replay mode never calls the model; record the run first)")
        return hits

    async def _with_retries(self, fn: Any, role: str) -> Any:
        try:
            result, _ = await call_with_retries(
                fn, self.policy, label=self.name,
                on_retry=self._on_retry(role))
        except ProviderFailure as exc:
            raise type(exc)(redact(str(exc), self.adapter.secrets())) from None
        return result

    def _all_capped(self, requests: dict[str, ChatRequest]) -> dict[str, ChatRequest]:
        return {cid: self.capped(request) for cid, request in requests.items()}

    async def submit_batch(self, requests: dict[str, ChatRequest]) -> str:
        """Submit requests (custom id → request) as one batch; returns the provider's batch id.

        Raises `NoBatchApi` when the server has no batch routes (a local server: llama.cpp, Ollama,
        vLLM), with the reason and what to do instead."""
        requests = self._all_capped(requests)
        role = next(iter(requests.values())).role if requests else "judge"
        try:
            return await self._with_retries(lambda: self.adapter.submit_batch(requests, self.name), role)
        except ProviderFailure as exc:
            reason = missing_batch_api(exc, str(self.adapter.endpoint.url))
            if reason is None:
                raise
            raise NoBatchApi(reason) from None

    async def batch_status(self, batch_id: str) -> BatchStatus:
        """One poll of a submitted batch (retried like any request)."""
        return await self._with_retries(lambda: self.adapter.batch_status(batch_id, self.name), "judge")

    async def batch_results(self, batch_id: str, requests: dict[str, ChatRequest]) -> list[BatchOutcome]:
        """Each request's outcome; replies are metered as batch usage and recorded in record mode."""
        requests = self._all_capped(requests)
        role = next(iter(requests.values())).role if requests else "judge"
        outcomes = await self._with_retries(
            lambda: self.adapter.batch_results(batch_id, requests, self.name), role)
        outcomes = [o if o.response is None else o.model_copy(update={
            "response": self._marked(requests[o.custom_id], o.response)}) for o in outcomes]
        for outcome in outcomes:
            request = requests[outcome.custom_id]
            if outcome.response is None:
                if self.meter:
                    self.meter.add(request.role, self.name, _no_usage(), failed=True)
                continue
            if self.cache and self.cache.mode == "record":
                self.cache.put(cache_key(self.spec.short, request), outcome.response)
            if self.meter:
                self.meter.add(request.role, self.name, outcome.response.usage, batch=True)
        return outcomes

    def _on_retry(self, role: str) -> Callable[[str], None] | None:
        meter = self.meter
        return (lambda _reason: meter.retry(role)) if meter else None

    def _meter(self, role: str, reply: ChatResponse, retries: int) -> None:
        if self.meter:
            # Retries were counted as they happened (on_retry), so they are not added again.
            self.meter.add(role, self.name, reply.usage, retries=retries)

    async def aclose(self) -> None:
        """Close the SDK client of the running event loop."""
        await self.adapter.aclose()


def _no_usage() -> Any:
    from ...models import Usage

    return Usage()


def _limits(spec: ModelSpec, settings: PolygonSettings) -> ModelLimits:
    override = settings.model_limits.get(spec.short, {})
    return ModelLimits(concurrency=override.get("concurrency", settings.model_concurrency),
                       requests_per_minute=override.get("rpm", settings.model_rpm),
                       tokens_per_minute=override.get("tpm", settings.model_tpm))


def cache_folder(settings: PolygonSettings) -> Path:
    """Where recorded replies live: `model_cache_dir`, or `{home}/model-cache`."""
    return (settings.model_cache_dir or settings.home / "model-cache").expanduser().absolute()


def _credentials(adapter: type[SdkAdapter], spec: ModelSpec,
                 settings: PolygonSettings) -> tuple[str | None, str | None]:
    """(key, base URL) of a provider, read through the settings from the variables it declares
    (`api_key_env`, `base_url_env`); no key needs an explicit base URL."""
    key = settings.provider_value(spec.provider, "api_key", adapter.api_key_env)
    base = spec.base_url or settings.provider_value(spec.provider, "base_url", adapter.base_url_env)
    if key is None and base is None:
        article = "an" if adapter.title[:1] in "AEIOU" else "a"
        raise ProviderConfigError(
            f"model {spec.name!r} needs {article} {adapter.title} API key: set {adapter.api_key_env[-1]} "
            f"(or give a base URL: '{spec.provider}:<model>@{adapter.url_example}')")
    return key, base


def make_chat_model(name: str, settings: PolygonSettings, *, meter: UsageMeter | None = None) -> ChatModel:
    """The ChatModel for a model name (see `parse_model_name`).

    The provider's adapter comes from the registry (`_registry.py`); its key and base URL from the
    variables it declares, through the settings (for example `OPENAI_API_KEY` /
    `ANTHROPIC_API_KEY`), and a missing key for the provider's own endpoint is an error naming the
    variable. A server at an explicit base URL may need none.
    """
    spec = parse_model_name(name)
    if spec.provider == "offline":
        return OfflineChatModel()
    adapter_type = adapter_class(spec.provider)
    key, base = _credentials(adapter_type, spec, settings)
    adapter = adapter_type(spec.model, api_key=key, base_url=base, timeout=settings.model_timeout)
    policy = RetryPolicy(max_attempts=settings.model_max_attempts, max_seconds=settings.model_retry_seconds,
                         base_delay=settings.model_retry_base_delay)
    cache = (ResponseCache(cache_folder(settings), settings.model_cache)
             if settings.model_cache != "off" else None)
    limiter = limiter_for(f"{spec.short}@{base or ''}", _limits(spec, settings))
    return ProviderChatModel(spec, adapter, policy=policy, limiter=limiter, cache=cache, meter=meter,
                             prefect_limits=settings.model_prefect_limits, budgets=role_budgets(settings))
