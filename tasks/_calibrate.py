"""Tasks of the calibrate flow: each wraps one calibration call over the stores."""

from __future__ import annotations

from typing import Any

from prefect import task

from polygon import usecases as calibrations

from ._stores import task_stores


@task(name="judge-labelled", retries=2, retry_delay_seconds=2, task_run_name="judge labelled {run_id}")
def judge_labelled_task(labels_path: str, run_id: str, judge_model: str | None = None,
                        rubric_version: str | None = None, repeats: int = 1) -> dict[str, Any]:
    """Judge the labelled conversations the judge has not judged; idempotent (a retry skips what
    it stored). Returns the judge's name and the ids it failed on."""
    judge, result = calibrations.judge_labelled(task_stores(), labels_path, run_id,
                                                judge_model=judge_model, rubric_version=rubric_version,
                                                repeats=repeats)
    return {"judge": judge, "added": result.added if result else 0,
            "failed": list(result.failed) if result else [],
            "errors": dict(result.errors) if result else {}}


@task(name="store-calibration", retries=1, retry_delay_seconds=1, task_run_name="calibrate {judge_model}")
def store_calibration_task(labels_path: str, run_id: str, judge_model: str, rubric_version: str | None = None,
                           seed: int = 0, resamples: int = 1000, dataset: str | None = None) -> dict[str, Any]:
    """Compute and store the calibration record (a retry replaces it: same key); `dataset` names the data."""
    calibration = calibrations.store_calibration(task_stores(), labels_path, run_id,
                                                 judge_model=judge_model, rubric_version=rubric_version,
                                                 seed=seed, resamples=resamples, dataset=dataset)
    return calibration.model_dump(mode="json")
