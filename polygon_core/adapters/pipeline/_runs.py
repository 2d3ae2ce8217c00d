"""Creating runs."""

from __future__ import annotations

from ...models import (
    Run,
)
from ._common import Stores


def create_run(stores: Stores, run: Run) -> Run:
    """Record a run before any conversation starts (kept as-is when resuming)."""
    existing = stores.repo.get_run(run.id, exact=True)
    if existing is not None:
        return existing
    stores.repo.save_run(run)
    return run
