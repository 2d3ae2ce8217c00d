"""Prefect tasks (installed as `polygon.tasks`): each wraps one pipeline call with its retry policy.

Tasks pass ids, never big objects: every step reads its inputs from the stores and writes its
outputs back, so a retried or resumed task is idempotent.
"""

from ._evaluate import (
    create_run_task,
    finish_run_task,
    judge_task,
    probe_task,
    publish_artifacts_task,
    simulate_task,
)

__all__ = [
    "create_run_task",
    "finish_run_task",
    "judge_task",
    "probe_task",
    "publish_artifacts_task",
    "simulate_task",
]
