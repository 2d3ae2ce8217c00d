"""Prefect flows (installed as `polygon.flows`): wiring only, no domain logic."""

from __future__ import annotations

from typing import TYPE_CHECKING

# The names resolve on first use (polygon._lazy, PEP 562): `from polygon.flows import evaluate_suite`
# (`polygon run`) imports that flow and its tasks, not the calibration, sweep or import flows.
# mypy and tests/test_layers.py read these imports.
if TYPE_CHECKING:
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

#: submodule -> the names of `__all__` it provides (a test checks they are `__all__`, each once).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_batch": ("batch_judge",),
    "_calibrate": ("calibrate",),
    "_evaluate": ("evaluate_suite",),
    "_import_calls": ("import_arrived_calls", "pull_calls"),
    "_personas": ("regenerate_personas",),
    "_production": ("grade_production_calls",),
    "_reevaluate": ("reevaluate_on_prompt_commit",),
    "_runner": ("runner_kind", "task_runner"),
    "_sweep": ("run_sweep",),
    "_weekly": ("weekly_production_grading",),
}

# Only at run time: to mypy the names are the imports above, so a misspelt one stays an error.
if not TYPE_CHECKING:
    from polygon._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
