"""Polygon's use cases: the pipeline's steps as plain functions over the stores; tasks wrap one each.

This is the one face the CLI, the web app, tasks and flows call (docs/design.md, "Layers"): it sits
above `polygon_core` (the pure domain and its adapters) and below the front ends.

Each step reads its inputs from the stores by id and writes its outputs back, so any step can be
re-run alone (re-judge, re-probe, re-compare) and a killed run resumes where it stopped.

Modules: `_common` (stores, cached loading), `_runs`, `_simulate`, `_grade` (judge and probe passes),
`_results` (result rows, scorecards), `_compare`, `_batch` (judge and probe passes through batch APIs),
`_production` and `_production_grade` (imported calls), `_calibrations`, `_sweeps`, `_replay`.
"""

from ._analysis import analysis_for_run
from ._batch import (
    BatchJob,
    BatchPass,
    BatchTimeout,
    batch_passes,
    collect_batch_pass,
    load_job,
    rescore_batch_pass,
    submit_batch_pass,
    wait_for_batch_pass,
)
from ._calibrations import (
    CalibrationOutcome,
    RatedRun,
    calibrate_run,
    judge_calibration,
    judge_calibrations,
    judge_labelled,
    labelled_conversations,
    load_labels,
    store_calibration,
)
from ._common import (
    Stores,
    _agent,
    _suite,
    agent_identity,
    fingerprint,
    load_conversation,
    open_stores,
    plan_conversations,
    transcript_key,
)
from ._compare import Comparison, ComparisonError, compare_runs, run_labels
from ._dispatch import FITTED_PREFIX, JudgeSpec, check_model_name, judge_label
from ._grade import (
    OFFLINE_NAMES,
    RescoreResult,
    ensure_judged,
    judge,
    probe,
    probe_run,
    rescore_run,
    run_inputs,
    scorable,
)
from ._production import (
    AgentIdentity,
    ImportSummary,
    import_calls,
    import_file,
    list_source_files,
    parse_window,
    plan_production_runs,
    production_run_info,
)
from ._production_grade import grade_production, judge_production, probe_production
from ._replay import ReplayDiff, replay_conversation
from ._results import chosen_judge, finish_run, result_rows, scorecard
from ._runs import ROLES, create_run, manifest_key, new_run, role_models, run_manifest
from ._scorecards import RunView, failed_text, judges_of, run_view
from ._simulate import simulate
from ._sweeps import (
    LoadedSweep,
    base_values,
    load_sweep,
    materialise_point,
    planned_conversations,
    point_cost,
    point_measurements,
    point_profile,
    top_matrix,
)

__all__ = [
    "FITTED_PREFIX",
    "OFFLINE_NAMES",
    "ROLES",
    "AgentIdentity",
    "BatchJob",
    "BatchPass",
    "BatchTimeout",
    "CalibrationOutcome",
    "Comparison",
    "ComparisonError",
    "ImportSummary",
    "JudgeSpec",
    "LoadedSweep",
    "RatedRun",
    "ReplayDiff",
    "RescoreResult",
    "RunView",
    "Stores",
    "_agent",
    "_suite",
    "agent_identity",
    "analysis_for_run",
    "base_values",
    "batch_passes",
    "calibrate_run",
    "check_model_name",
    "chosen_judge",
    "collect_batch_pass",
    "compare_runs",
    "create_run",
    "ensure_judged",
    "failed_text",
    "fingerprint",
    "finish_run",
    "grade_production",
    "import_calls",
    "import_file",
    "judge",
    "judge_calibration",
    "judge_calibrations",
    "judge_label",
    "judge_labelled",
    "judge_production",
    "judges_of",
    "labelled_conversations",
    "list_source_files",
    "load_conversation",
    "load_job",
    "load_labels",
    "load_sweep",
    "manifest_key",
    "materialise_point",
    "new_run",
    "open_stores",
    "parse_window",
    "plan_conversations",
    "plan_production_runs",
    "planned_conversations",
    "point_cost",
    "point_measurements",
    "point_profile",
    "probe",
    "probe_production",
    "probe_run",
    "production_run_info",
    "replay_conversation",
    "rescore_batch_pass",
    "rescore_run",
    "result_rows",
    "role_models",
    "run_inputs",
    "run_labels",
    "run_manifest",
    "run_view",
    "scorable",
    "scorecard",
    "simulate",
    "store_calibration",
    "submit_batch_pass",
    "top_matrix",
    "transcript_key",
    "wait_for_batch_pass",
]
