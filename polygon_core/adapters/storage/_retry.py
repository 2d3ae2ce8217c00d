"""Transient write failures are retried as writes: a locked SQLite file or a dropped connection
must never make Prefect re-run (and pay for) a whole conversation.

Every repository write is keyed (an upsert on its natural key) and runs in one transaction, so
running it again after a failure is safe: it either did not happen or replaces itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import exc as sa_exc
from tenacity import retry, retry_if_exception, stop_after_attempt, stop_after_delay, wait_exponential_jitter

F = TypeVar("F", bound=Callable[..., Any])

# Messages of failures that pass: another writer holds the lock, or the server went away for a moment.
_TRANSIENT = ("database is locked", "database table is locked", "could not serialize access",
              "deadlock detected", "server closed the connection", "connection reset",
              "terminating connection")


def is_transient(exc: BaseException) -> bool:
    """A write failure worth trying again (lock contention, a dropped connection)."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa_exc.OperationalError):
        text = str(exc).lower()
        return any(marker in text for marker in _TRANSIENT)
    return False


def retry_write(fn: F) -> F:
    """Retry `fn` on transient failures: up to 8 attempts within 60 s, exponential backoff with
    jitter; anything else (and the last failure) is raised as it was."""
    return retry(  # type: ignore[return-value]
        retry=retry_if_exception(is_transient),
        stop=stop_after_attempt(8) | stop_after_delay(60),
        wait=wait_exponential_jitter(initial=0.05, max=5.0),
        reraise=True,
    )(fn)
