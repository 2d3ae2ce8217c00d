"""Tasks of the import-calls and pull-calls flows: each wraps one arrivals use case."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from prefect import task

from polygon import usecases
from polygon_core.models import Run

from ._retry import retry_unless_bad_input
from ._stores import task_stores


@task(name="configured-sources", retries=1, retry_delay_seconds=2, retry_condition_fn=retry_unless_bad_input)
def configured_sources_task(sources_file: str | None = None, *, required: bool = True) -> dict[str, dict[str, Any]]:
    """The sources file (`sources_file`, else POLYGON_SOURCES) as name → source fields; with
    `required` False, none configured is no source rather than an error."""
    return usecases.source_fields(task_stores(), sources_file, required=required)


@task(name="pull-source", retries=2, retry_delay_seconds=5, task_run_name="pull {name}")
def pull_source_task(name: str, sources_file: str | None = None) -> int:
    """List the source's S3 prefix and record the objects not seen before; returns how many."""
    return usecases.pull_configured_source(task_stores(), name, sources_file)


@task(name="import-arrivals", retries=2, retry_delay_seconds=2, task_run_name="import arrivals {batch}")
def import_arrivals_task(batch: str, sources_file: str | None = None,
                         only: str | None = None) -> list[dict[str, Any]]:
    """Import every waiting arrival as one batch; idempotent (a retry finds its calls imported)."""
    return [asdict(r) for r in usecases.import_configured_arrivals(task_stores(), batch, sources_file, only)]


@task(name="plan-arrival-runs", retries=2, retry_delay_seconds=1)
def plan_arrival_runs_task(source: str, external_ids: list[str], batch: str, agent_path: str | None,
                           judge_model: str | None = None) -> list[tuple[Run, list[str]]]:
    """The production runs grading one batch of arrivals; returns each run and its conversations."""
    return usecases.plan_arrival_runs(task_stores(), source, external_ids, batch, agent_path=agent_path,
                                      judge_model=judge_model)
