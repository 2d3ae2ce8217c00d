"""Tasks of the grade_production_calls flow: each wraps one production-pipeline call."""

from __future__ import annotations

from prefect import task

from polygon import usecases
from polygon_core.models import Run

from ._retry import retry_unless_bad_input
from ._stores import task_stores


@task(name="list-call-files", retries=2, retry_delay_seconds=2)
def list_call_files_task(location: str) -> list[str]:
    """Files in a local folder or objects under an s3:// prefix."""
    return usecases.list_source_files(location, task_stores().settings.s3_endpoint_url)


@task(name="import-calls", retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_bad_input,
      task_run_name="import {location}")
def import_file_task(location: str, fmt: str | None, source: str, agent_path: str | None = None,
                     suite_path: str | None = None) -> dict:
    """Import one file; idempotent (a retry finds what it stored as duplicates)."""
    summary = usecases.import_calls(task_stores(), [location], fmt, source=source,
                                    agent_path=agent_path, suite_path=suite_path)
    return summary.model_dump()


@task(name="plan-production-runs", retries=2, retry_delay_seconds=1, retry_condition_fn=retry_unless_bad_input)
def plan_production_runs_task(source: str, since: str | None, until: str | None,
                              rubric_version: str | None = None, agent_path: str | None = None,
                              judge_model: str | None = None,
                              probe_model: str | None = None) -> list[tuple[Run, list[str]]]:
    """Store the window's calls as production runs; returns each run and its conversation ids."""
    return usecases.plan_production_runs(task_stores(), source, since, until, rubric_version=rubric_version,
                                         agent_path=agent_path, judge_model=judge_model,
                                         probe_model=probe_model)


@task(name="judge-production", retries=2, retry_delay_seconds=1,
      task_run_name="judge {conversation_id}")
def judge_production_task(run_id: str, conversation_id: str, agent_path: str | None = None) -> float | None:
    """One judge pass on one production conversation; returns its composite."""
    return usecases.judge_production(task_stores(), run_id, conversation_id,
                                     agent_path=agent_path).composite


@task(name="probe-production", retries=2, retry_delay_seconds=1,
      task_run_name="probe {conversation_id}")
def probe_production_task(run_id: str, conversation_id: str, agent_path: str | None = None) -> int:
    """The probe pass on one production conversation; returns how many probes were answered."""
    return len(usecases.probe_production(task_stores(), run_id, conversation_id, agent_path=agent_path))
