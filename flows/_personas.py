"""The regenerate_personas flow: mark stale, generate from the current prompt, store."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from polygon.flows._story import tag_flow_run  # absolute: loaded by path
from polygon.tasks import (
    generate_personas_task,
    mark_stale_personas_task,
    store_personas_task,
)
from prefect import flow, get_run_logger


@flow(name="regenerate-personas", flow_run_name="regenerate personas {agent_path}")
def regenerate_personas(agent_path: str, count: int = 12, seed: int = 0,
                        model: str = "offline") -> dict[str, Any]:
    """Regenerate an agent's personas from its current prompt; older ones are kept, marked stale."""
    logger = get_run_logger()
    tag_flow_run(["polygon", "personas", f"agent-file:{Path(agent_path).stem}", f"model:{model}"])
    stale = mark_stale_personas_task(agent_path)
    logger.info("%d personas of %s marked stale; generating %d with %s (seed %d)", len(stale), agent_path,
                count, model, seed)
    result = generate_personas_task(agent_path, count=count, seed=seed, model=model)
    report = store_personas_task(agent_path, result)
    out = asdict(report)
    out["marked_stale"] = sorted({*stale, *report.marked_stale})
    logger.info("personas of %s stored: %s", agent_path,
                ", ".join(f"{k} {len(v) if isinstance(v, list) else v}" for k, v in out.items()))
    return out
