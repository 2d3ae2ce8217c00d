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
    """A transient failure (429, 5xx, timeout, dropped connection, garbled body).

    `kind` is "timeout" for a request that ran out of time (the model layer words it per role);
    `final`, when given, is the whole one-line reason once attempts run out (it gets the attempt
    count), instead of "<model>: gave up after N attempts: <reason>".
    """

    def __init__(self, reason: str, retry_after: float | None = None, *, kind: str = "transient",
                 final: Callable[[int], str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.kind = kind
        self.final = final

    def gave_up(self, label: str, attempts: int, budget: float | None = None) -> ProviderFailure:
        """The ProviderFailure of a request whose last attempt failed with this."""
        if self.final is not None:
            return ProviderFailure(self.final(attempts))
        spent = f" ({budget:g} s retry budget spent)" if budget is not None else ""
        return ProviderFailure(f"{label}: gave up after {attempts} attempts{spent}: {self.reason}")


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
                raise exc.gave_up(label, attempt) from None
            delay = policy.backoff(attempt, rng)
            if exc.retry_after is not None:
                delay = max(exc.retry_after, 0.0)
            left = policy.max_seconds - (clock() - start)
            if delay > left:
                raise exc.gave_up(label, attempt, policy.max_seconds) from None
            if on_retry:
                on_retry(exc.reason)
            await asyncio.sleep(delay)
