"""Tasks of the reevaluate_on_prompt_commit flow: identify the new version, find the previous one,
compare them and publish the report. Each wraps one use case."""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact

from polygon import usecases
from polygon_core.models import Run

from ._stores import task_stores

__all__ = ["compare_versions_task", "new_version_run_task", "previous_version_run_task", "publish_report_task"]


@task(name="new-version-run", retries=2, retry_delay_seconds=1,
      task_run_name="new run {run_id}")
def new_version_run_task(run_id: str, suite_path: str, agent_path: str, seeds: list[int] | None,
                         rubric_version: str | None) -> Run:
    """The Run of the committed agent version (not stored yet: evaluate_suite records it).

    Role models come from the suite config and settings, as for `polygon run`."""
    return usecases.new_run(agent_path, suite_path, seeds=seeds, rubric=rubric_version, run_id=run_id)


@task(name="previous-version-run", retries=2, retry_delay_seconds=1,
      task_run_name="previous version of {new.agent_name}")
def previous_version_run_task(new: Run, previous_run_id: str | None = None) -> str | None:
    """The run to compare with: the given one, or the previous version's latest complete run."""
    return usecases.previous_version_run(task_stores(), new, previous_run_id)


@task(name="compare-versions", retries=1, task_run_name="compare {previous_run_id} → {run_id}")
def compare_versions_task(previous_run_id: str | None, run_id: str) -> str:
    """The comparison as markdown (only the new scorecard when there is nothing to compare with)."""
    return usecases.version_comparison(task_stores(), previous_run_id, run_id)


@task(name="publish-report", retries=2, retry_delay_seconds=1, task_run_name="publish report {run_id}")
def publish_report_task(run_id: str, header: dict[str, Any], body: str,
                        analysis: dict[str, Any] | None = None) -> str:
    """Store the report next to the run's artifacts, link it from the run, show it in Prefect.

    The prompt analysis (when it ran) is shown next to the results."""
    uri, text = usecases.store_reevaluation_report(task_stores(), run_id, header, body, analysis)
    key = "reevaluation-" + "".join(ch if ch.isalnum() else "-" for ch in run_id.lower())
    create_markdown_artifact(key=key, markdown=text, description=f"Re-evaluation report of run {run_id}")
    return uri
