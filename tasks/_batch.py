"""Tasks of the batch judging flow: submit, wait (polling), collect. Each wraps one pipeline call."""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task

from polygon import usecases

from ._stores import task_stores


@task(name="submit-batch", retries=2, retry_delay_seconds=5,
      task_run_name="submit {spec.kind} batch of {spec.run_id}")
def submit_batch_task(spec: usecases.BatchPass) -> usecases.BatchJob:
    """Submit the pass (a job already submitted for it is reused: a retry never pays twice)."""
    return usecases.submit_batch_pass(task_stores(), spec)


def _not_a_timeout(_task: Any, _task_run: Any, state: Any) -> bool:
    # A dropped connection or a crashed poll is worth another try; a batch that outlived
    # POLYGON_BATCH_MAX_WAIT_HOURS is not (retrying would wait that long again, silently).
    return not isinstance(state.result(raise_on_failure=False), usecases.BatchTimeout)


@task(name="wait-for-batch", retries=3, retry_delay_seconds=30, retry_condition_fn=_not_a_timeout,
      task_run_name="wait for {key} of {run_id}")
def wait_for_batch_task(run_id: str, key: str) -> usecases.BatchJob:
    """Poll the pass's batches until they end; each poll is logged for the Prefect UI."""
    logger = get_run_logger()

    def report(statuses: list[Any]) -> None:
        for s in statuses:
            logger.info("batch %s: %s (%d of %d done, %d errored)", s.batch_id, s.provider_status,
                        s.succeeded + s.errored, s.total, s.errored)

    return usecases.wait_for_batch_pass(task_stores(), run_id, key, on_status=report)


@task(name="collect-batch", retries=2, retry_delay_seconds=5,
      task_run_name="collect {key} of {run_id}")
def collect_batch_task(run_id: str, key: str) -> usecases.RescoreResult:
    """Store the batch's judgments or probe answers; returns what was added and what failed."""
    return usecases.collect_batch_pass(task_stores(), run_id, key)
