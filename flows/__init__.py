"""Prefect flows (installed as `polygon.flows`): wiring only, no domain logic."""

from ._batch import batch_judge
from ._calibrate import calibrate
from ._evaluate import evaluate_suite
from ._import_calls import import_arrived_calls, pull_calls
from ._personas import regenerate_personas
from ._production import grade_production_calls
from ._reevaluate import reevaluate_on_prompt_commit
from ._runner import runner_kind, task_runner
from ._sweep import run_sweep
from ._weekly import weekly_production_grading

__all__ = [
    "batch_judge",
    "calibrate",
    "evaluate_suite",
    "grade_production_calls",
    "import_arrived_calls",
    "pull_calls",
    "reevaluate_on_prompt_commit",
    "regenerate_personas",
    "run_sweep",
    "runner_kind",
    "task_runner",
    "weekly_production_grading",
]
