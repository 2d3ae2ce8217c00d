"""The tags a flow run carries in the Prefect UI (agent, version, suite, rubric, source).

Prefect gives a flow run the tags of the `prefect.tags` context its caller opened; a run started
by `polygon run`, a deployment or a parent flow has no such context of Polygon's, so each flow tags
its own run once it knows what it runs (`tag_flow_run`), and opens `prefect.tags(...)` around the
subflows it starts so that they carry the same tags.
"""

from __future__ import annotations

from collections.abc import Iterable

from prefect.runtime import flow_run

from polygon_core.models import Run

__all__ = ["run_tags", "tag_flow_run"]


def run_tags(runs: Iterable[Run], **extra: str | None) -> list[str]:
    """`polygon`, then `agent:`, `version:`, `suite:`, `rubric:` and `source:` of each run, then `extra`
    as `key:value` (None values left out); sorted, without repeats."""
    tags = {"polygon"}
    for run in runs:
        tags |= {f"agent:{run.agent_name}", f"version:{run.agent_version[:12]}", f"suite:{run.suite}",
                 f"rubric:{run.rubric_version}", f"source:{run.source}"}
    tags |= {f"{key}:{value}" for key, value in extra.items() if value}
    return sorted(tags)


def tag_flow_run(tags: Iterable[str]) -> list[str]:
    """Add `tags` to the running flow run (kept with the ones it has); returns the run's tags.
    Outside a flow run (a plain function call) nothing is sent."""
    wanted = set(tags)
    run_id = flow_run.get_id()
    if run_id is None:
        return sorted(wanted)
    from uuid import UUID

    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        merged = sorted({*client.read_flow_run(UUID(run_id)).tags, *wanted})
        client.update_flow_run(UUID(run_id), tags=merged)
    return merged
