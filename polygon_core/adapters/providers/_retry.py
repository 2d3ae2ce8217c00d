"""Polygon's one retry layer for model calls.

The SDKs' own retries are switched off (`max_retries=0`): retrying in two layers multiplies attempts
and hides them. Here every retry is counted (it shows in the run summary), bounded in attempts and in
total time, backs off exponentially with jitter, and honours a server's `Retry-After`. Prefect's task
retries never see a provider failure either: a conversation that still fails ends `provider_error`.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ...conversation import ProviderFailure

__all__ = ["RetryPolicy", "Retryable", "call_with_retries"]

T = TypeVar("T")


class Retryable(Exception):
    """A transient failure (429, 5xx, timeout, dropped connection, garbled body)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and time bounds of the retry layer."""

    max_attempts: int = 6
    max_seconds: float = 120.0
    base_delay: float = 0.5
    max_delay: float = 20.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Exponential backoff with full jitter in [d/2, d] (attempt 1 = first retry)."""
        delay = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return delay * (0.5 + 0.5 * rng.random())


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, *, label: str,
                            on_retry: Callable[[str], None] | None = None,
                            clock: Callable[[], float] = time.monotonic,
                            rng: random.Random | None = None) -> tuple[T, int]:
    """Run `fn` until it succeeds; returns (result, retries). Gives up with ProviderFailure.

    `fn` raises `Retryable` for transient failures and `ProviderFailure` for final ones (400, auth).
    """
    rng = rng or random.Random()
    start = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            return await fn(), attempt - 1
        except Retryable as exc:
            if attempt >= policy.max_attempts:
                raise ProviderFailure(f"{label}: gave up after {attempt} attempts: {exc.reason}") from None
            delay = policy.backoff(attempt, rng)
            if exc.retry_after is not None:
                delay = max(exc.retry_after, 0.0)
            left = policy.max_seconds - (clock() - start)
            if delay > left:
                raise ProviderFailure(
                    f"{label}: gave up after {attempt} attempts ({policy.max_seconds:g} s retry budget "
                    f"spent): {exc.reason}") from None
            if on_retry:
                on_retry(exc.reason)
            await asyncio.sleep(delay)
