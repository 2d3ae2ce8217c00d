"""The calibrate flow: a judge against people's labels on one run (docs/calibration.md)."""

from __future__ import annotations

from typing import Any

from polygon.flows._story import tag_flow_run  # absolute: loaded by path
from polygon.tasks import judge_labelled_task, store_calibration_task  # absolute: loaded by path
from prefect import flow, get_run_logger


@flow(name="calibrate", flow_run_name="calibrate {run_id}")
def calibrate(labels_path: str, run_id: str, judge_model: str | None = None, rubric_version: str | None = None,
              repeats: int = 1, seed: int = 0, resamples: int = 1000, dataset: str | None = None) -> dict[str, Any]:
    """Judge the labelled conversations the judge (default: the run's scorecard judge) has not
    judged, then store the calibration (`dataset` names the data, as `polygon calibrate --dataset`).
    Returns the calibration and the judge's failures."""
    logger = get_run_logger()
    tag_flow_run(["polygon", "calibration", f"run:{run_id}",
                  *([f"rubric:{rubric_version}"] if rubric_version else [])])
    logger.info("calibrating the judge %s against the labels %s on run %s", judge_model or "of the run's scorecard",
                labels_path, run_id)
    judged = judge_labelled_task(labels_path, run_id, judge_model, rubric_version, repeats)
    logger.info("judged the labelled conversations: %d judge failures", len(judged["failed"]))
    calibration = store_calibration_task(labels_path, run_id, judged["judge"], rubric_version, seed, resamples,
                                         dataset)
    logger.info("calibration of %s stored (%d resamples, seed %d)", judged["judge"], resamples, seed)
    return {"calibration": calibration, "judge_failed": judged["failed"], "judge_errors": judged["errors"]}
