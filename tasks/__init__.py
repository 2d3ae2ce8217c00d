"""Prefect tasks (installed as `polygon.tasks`): each wraps one pipeline call with its retry policy.

Tasks pass ids, never big objects: every step reads its inputs from the stores and writes its
outputs back, so a retried or resumed task is idempotent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# The names resolve on first use (polygon._lazy, PEP 562): a flow imports the tasks it runs, and
# their use cases, not every task's (the evaluate flow needs no calibration, analysis or sweeps).
# mypy and tests/test_layers.py read these imports.
if TYPE_CHECKING:
    from ._analysis import analyze_prompt_task
    from ._arrivals import (
        configured_sources_task,
        import_arrivals_task,
        plan_arrival_runs_task,
        pull_source_task,
    )
    from ._batch import collect_batch_task, submit_batch_task, wait_for_batch_task
    from ._calibrate import judge_labelled_task, store_calibration_task
    from ._compare import compare_runs_task
    from ._evaluate import (
        create_run_task,
        evaluate_conversation_task,
        finish_run_task,
        judge_task,
        probe_task,
        publish_artifacts_task,
        simulate_task,
    )
    from ._personas import (
        generate_personas_task,
        mark_stale_personas_task,
        store_personas_task,
    )
    from ._production import (
        import_file_task,
        judge_production_task,
        list_call_files_task,
        plan_production_runs_task,
        probe_production_task,
    )
    from ._reevaluate import (
        compare_versions_task,
        new_version_run_task,
        previous_version_run_task,
        publish_report_task,
    )
    from ._sweep import (
        budget_point_task,
        early_stop_task,
        leaderboard_task,
        materialise_point_task,
        plan_sweep_task,
        summarise_point_task,
    )

__all__ = [
    "analyze_prompt_task",
    "budget_point_task",
    "collect_batch_task",
    "compare_runs_task",
    "compare_versions_task",
    "configured_sources_task",
    "create_run_task",
    "early_stop_task",
    "evaluate_conversation_task",
    "finish_run_task",
    "generate_personas_task",
    "import_arrivals_task",
    "import_file_task",
    "judge_labelled_task",
    "judge_production_task",
    "judge_task",
    "leaderboard_task",
    "list_call_files_task",
    "mark_stale_personas_task",
    "materialise_point_task",
    "new_version_run_task",
    "plan_arrival_runs_task",
    "plan_production_runs_task",
    "plan_sweep_task",
    "previous_version_run_task",
    "probe_production_task",
    "probe_task",
    "publish_artifacts_task",
    "publish_report_task",
    "pull_source_task",
    "simulate_task",
    "store_calibration_task",
    "store_personas_task",
    "submit_batch_task",
    "summarise_point_task",
    "wait_for_batch_task",
]

#: submodule -> the names of `__all__` it provides (a test checks they are `__all__`, each once).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_analysis": ("analyze_prompt_task",),
    "_arrivals": ("configured_sources_task", "import_arrivals_task", "plan_arrival_runs_task", "pull_source_task"),
    "_batch": ("collect_batch_task", "submit_batch_task", "wait_for_batch_task"),
    "_calibrate": ("judge_labelled_task", "store_calibration_task"),
    "_compare": ("compare_runs_task",),
    "_evaluate": ("create_run_task", "evaluate_conversation_task", "finish_run_task", "judge_task", "probe_task",
        "publish_artifacts_task", "simulate_task"),
    "_personas": ("generate_personas_task", "mark_stale_personas_task", "store_personas_task"),
    "_production": ("import_file_task", "judge_production_task", "list_call_files_task", "plan_production_runs_task",
        "probe_production_task"),
    "_reevaluate": ("compare_versions_task", "new_version_run_task", "previous_version_run_task",
        "publish_report_task"),
    "_sweep": ("budget_point_task", "early_stop_task", "leaderboard_task", "materialise_point_task", "plan_sweep_task",
        "summarise_point_task"),
}

# Only at run time: to mypy the names are the imports above, so a misspelt one stays an error.
if not TYPE_CHECKING:
    from polygon._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
