"""What the batch APIs (OpenAI Files + Batch, Anthropic Message Batches) give back, in one shape.

A batch is submitted once, polled until it ends, then read. Each request carries a `custom_id`; results
come back keyed by it, in any order. One item can fail while the rest succeed: its outcome carries the
error as a value, never an exception.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...models import DomainModel
from ...providers import ChatResponse

__all__ = ["BatchOutcome", "BatchState", "BatchStatus", "openai_batch_state"]

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
