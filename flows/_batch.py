"""The batch_judge flow: one judge or probe pass of a stored run through a provider's batch API."""

from __future__ import annotations

from polygon.tasks import collect_batch_task, submit_batch_task, wait_for_batch_task
from prefect import flow
from prefect.runtime import flow_run

from polygon import usecases

__all__ = ["batch_judge"]


def _run_name() -> str:
    spec = flow_run.parameters["spec"]
    get = spec.get if isinstance(spec, dict) else lambda k: getattr(spec, k)
    return f"batch {get('kind')} {get('run_id')} with {get('model')}"


@flow(name="batch-judge", flow_run_name=_run_name)  # type: ignore[arg-type]
def batch_judge(spec: usecases.BatchPass) -> usecases.RescoreResult:
    """Submit, wait, collect. Resumable: a re-run finds the submitted job and polls it again."""
    job = submit_batch_task(spec)
    wait_for_batch_task(spec.run_id, job.spec.key)
    return collect_batch_task(spec.run_id, job.spec.key)
