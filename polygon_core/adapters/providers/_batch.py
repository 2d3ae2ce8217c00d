"""What the batch APIs (OpenAI Files + Batch, Anthropic Message Batches) give back, in one shape.

A batch is submitted once, polled until it ends, then read. Each request carries a `custom_id`; results
come back keyed by it, in any order. One item can fail while the rest succeed: its outcome carries the
error as a value, never an exception. A server without a batch API at all (llama.cpp, Ollama and
vLLM answer `/files` and `/batches` with 404) is `NoBatchApi`, raised by the first request of a
submission, so nothing was submitted or paid for.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...conversation import ProviderFailure
from ...models import DomainModel
from ...providers import ChatResponse

__all__ = ["BatchOutcome", "BatchState", "BatchStatus", "NoBatchApi", "missing_batch_api", "openai_batch_state"]

BatchState = Literal["pending", "ended", "failed", "expired", "canceled"]


class BatchStatus(DomainModel):
    """One poll of one batch."""

    batch_id: str
    state: BatchState
    provider_status: str = Field(..., description="the API's own word for it (in_progress, ended, …)")
    total: int = 0
    succeeded: int = 0
    errored: int = 0
    detail: str | None = Field(None, description="why a whole batch failed, when the API says")

    @property
    def done(self) -> bool:
        """No more polling: results (possibly partial) can be read, or there are none."""
        return self.state != "pending"


class BatchOutcome(DomainModel):
    """One request's result: a reply, or the reason there is none."""

    custom_id: str
    response: ChatResponse | None = None
    error: str | None = None


_OPENAI = {"validating": "pending", "in_progress": "pending", "finalizing": "pending",
           "cancelling": "pending", "completed": "ended", "failed": "failed", "expired": "expired",
           "cancelled": "canceled"}


def openai_batch_state(status: str) -> BatchState:
    """OpenAI's batch status in Polygon's words (an unknown status keeps polling)."""
    return _OPENAI.get(status, "pending")  # type: ignore[return-value]


class NoBatchApi(ProviderFailure):
    """The server has no batch API: its batch routes do not exist (nothing was submitted)."""


# What a server without a route answers: not found, method not allowed, not implemented.
_NO_ROUTE = frozenset({404, 405, 501})


def missing_batch_api(exc: BaseException, base_url: str) -> str | None:
    """The reason a failed batch submission means the server has no batch API, or None.

    The SDK's status error is in the failure's chain (the provider layer maps it to a one-line
    `ProviderFailure`); a 404, 405 or 501 there, on a batch submission's first request, is a missing
    route, not a missing batch. The reason names the status and the route asked for.
    """
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 8 and all(current is not e for e in seen):
        seen.append(current)
        status = getattr(current, "status_code", None)
        if isinstance(status, int) and status in _NO_ROUTE:
            url = str(getattr(getattr(current, "request", None), "url", "") or "")
            route = url[len(base_url.rstrip("/")):] if url.startswith(base_url.rstrip("/")) else url
            return (f"the server has no Batch API at {base_url} (HTTP {status} on {route or 'its batch route'}): "
                    "judge without batches (`polygon run` without --batch-judging, `rescore` or `probe` "
                    "without --batch)")
        current = current.__cause__ or current.__context__
    return None
