"""The batch_judge flow: one judge or probe pass of a stored run through a provider's batch API."""

from __future__ import annotations

from polygon.flows._story import tag_flow_run  # absolute: Prefect loads this file by path
from polygon.tasks import collect_batch_task, submit_batch_task, wait_for_batch_task
from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from polygon import usecases

__all__ = ["batch_judge"]


def _run_name() -> str:
    spec = flow_run.parameters["spec"]
    get = spec.get if isinstance(spec, dict) else lambda k: getattr(spec, k)
    return f"batch {get('kind')} {get('run_id')} with {get('model')}"


@flow(name="batch-judge", flow_run_name=_run_name)
def batch_judge(spec: usecases.BatchPass) -> usecases.RescoreResult:
    """Submit, wait, collect. Resumable: a re-run finds the submitted job and polls it again."""
    logger = get_run_logger()
    # The run's agent, suite and rubric tags come from the flow that starts this one (tags context).
    tag_flow_run(["polygon", f"batch:{spec.kind}", f"rubric:{spec.rubric_version}", f"run:{spec.run_id}"])
    job = submit_batch_task(spec)
    logger.info("batch %s pass of run %s with %s: job %s submitted", spec.kind, spec.run_id, spec.model, job.spec.key)
    wait_for_batch_task(spec.run_id, job.spec.key)
    result = collect_batch_task(spec.run_id, job.spec.key)
    logger.info("batch %s pass of run %s: %d added, %d already judged, %d unscored, %d failed (judged live next)",
                spec.kind, spec.run_id, result.added, len(result.skipped), len(result.unscored), len(result.failed))
    return result
