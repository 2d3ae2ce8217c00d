"""Per provider+model limits (concurrent requests, requests/min, tokens/min), in process.

Conversations run in Prefect's worker threads, each with its own event loop, so the limiter uses
threading primitives and waits by polling with `asyncio.sleep` (never blocking a loop). One limiter
per provider+model+base URL is shared by every role in the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Limiter", "ModelLimits", "limiter_for", "prefect_limit_names", "prefect_slot"]

_POLL = 0.005
_WINDOW = 60.0


@dataclass(frozen=True)
class ModelLimits:
    """Limits of one provider+model; None = unlimited."""

    concurrency: int | None = 4
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None


class Limiter:
    """Concurrency cap plus sliding one-minute windows of requests and tokens."""

    def __init__(self, limits: ModelLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._in_flight = 0
        self._requests: deque[float] = deque()
        self._tokens: deque[list[float]] = deque()  # [time, tokens]
        self.max_in_flight = 0

    def _prune(self, now: float) -> None:
        while self._requests and now - self._requests[0] >= _WINDOW:
            self._requests.popleft()
        while self._tokens and now - self._tokens[0][0] >= _WINDOW:
            self._tokens.popleft()

    def _try_acquire(self, tokens: int) -> list[float] | None:
        lim = self.limits
        with self._lock:
            now = time.monotonic()
            self._prune(now)
            if lim.concurrency is not None and self._in_flight >= lim.concurrency:
                return None
            if lim.requests_per_minute is not None and len(self._requests) >= lim.requests_per_minute:
                return None
            # An empty window always admits one request, so a request bigger than the limit
            # still runs (alone) instead of waiting forever.
            if (lim.tokens_per_minute is not None and self._tokens
                    and sum(t for _, t in self._tokens) + tokens > lim.tokens_per_minute):
                return None
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._requests.append(now)
            entry = [now, float(tokens)]
            self._tokens.append(entry)
            return entry

    async def acquire(self, estimated_tokens: int) -> list[float]:
        """Wait for a slot; returns a handle for `release`."""
        while True:
            entry = self._try_acquire(estimated_tokens)
            if entry is not None:
                return entry
            await asyncio.sleep(_POLL)

    def release(self, handle: list[float], used_tokens: int | None = None) -> None:
        """Free the concurrency slot; replace the token estimate with what was used."""
        with self._lock:
            self._in_flight -= 1
            if used_tokens is not None:
                handle[1] = float(used_tokens)


_registry: dict[tuple[str, ModelLimits], Limiter] = {}
_registry_lock = threading.Lock()


def limiter_for(key: str, limits: ModelLimits) -> Limiter:
    """The process-wide limiter of one provider+model (and base URL)."""
    with _registry_lock:
        found = _registry.get((key, limits))
        if found is None:
            found = _registry[(key, limits)] = Limiter(limits)
        return found


def prefect_limit_names(spec: Any) -> tuple[str, str]:
    """Names of the Prefect global concurrency limit and rate limit of one provider+model.

    Create them once per Prefect server, e.g. `prefect gcl create polygon-openai-gpt-4o-mini --limit 8`
    and `prefect gcl create polygon-openai-gpt-4o-mini-rate --limit 60 --slot-decay-per-second 1`.
    """
    base = "polygon-" + "".join(c if c.isalnum() or c in "-." else "-" for c in f"{spec.provider}-{spec.model}")
    return base, base + "-rate"


@contextlib.asynccontextmanager
async def prefect_slot(spec: Any, *, enabled: bool) -> AsyncIterator[None]:
    """Under a Prefect run, hold a slot of the model's global concurrency limit and its rate limit.

    These bound every worker together (the in-process limiter bounds one process). Off unless the
    `model_prefect_limits` setting is on; then a limit that does not exist on the server is an error
    (strict), so a misconfiguration is loud rather than unlimited.
    """
    if not enabled:
        yield
        return
    from prefect.context import FlowRunContext, TaskRunContext

    if FlowRunContext.get() is None and TaskRunContext.get() is None:
        yield  # outside Prefect the in-process limiter alone applies
        return
    from prefect.concurrency.asyncio import concurrency, rate_limit

    name, rate = prefect_limit_names(spec)
    await rate_limit(rate, occupy=1, strict=True)
    async with concurrency(name, occupy=1, strict=True):
        yield
