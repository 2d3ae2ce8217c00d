"""The regenerate_personas flow: mark stale, generate from the current prompt, store."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from polygon.tasks._personas import (
    generate_personas_task,
    mark_stale_personas_task,
    store_personas_task,
)
from prefect import flow


@flow(name="regenerate-personas", flow_run_name="regenerate personas {agent_path}")
def regenerate_personas(agent_path: str, count: int = 12, seed: int = 0,
                        model: str = "offline") -> dict[str, Any]:
    """Regenerate an agent's personas from its current prompt; older ones are kept, marked stale."""
    stale = mark_stale_personas_task(agent_path)
    result = generate_personas_task(agent_path, count=count, seed=seed, model=model)
    report = store_personas_task(agent_path, result)
    out = asdict(report)
    out["marked_stale"] = sorted({*stale, *report.marked_stale})
    return out
