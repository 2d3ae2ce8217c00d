"""Polygon's use cases: the pipeline's steps as plain functions over the stores; tasks wrap one each.

This is the one face the CLI, the web app, tasks and flows call (docs/design.md, "Layers"): it sits
above `polygon_core` (the pure domain and its adapters) and below the front ends.

Each step reads its inputs from the stores by id and writes its outputs back, so any step can be
re-run alone (re-judge, re-probe, re-compare) and a killed run resumes where it stopped.

Modules: `_common` (stores, cached loading), `_runs`, `_simulate`, `_grade` (judge and probe passes),
`_results` (result rows, scorecards), `_compare`, `_batch` (judge and probe passes through batch APIs),
`_production`, `_production_runs` and `_production_grade` (imported calls: import, plan, grade),
`_arrivals` (calls arriving by webhook or S3, imported once), `_calibrations`, `_sweeps`, `_replay`,
`_run_steps` (judge and probe passes that read everything from the run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# The names resolve on first use (polygon._lazy, PEP 562): `from polygon import usecases` imports no
# use case, and `usecases.open_stores` imports `_common` (and what it needs) alone, so a run imports
# no prompt analysis, sweeps or S3 importers (tests/test_lazy_imports.py runs one and checks).
# mypy and tests/test_layers.py read these.
if TYPE_CHECKING:
    from ._analysis import analysis_for_run
    from ._arrivals import (
        Arrival,
        ArrivalReport,
        CallRejectedError,
        arrivals_markdown,
        configured_sources,
        import_arrivals,
        pull_source,
        receive_call,
        record_objects,
        source_redaction,
    )
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
        FileCaches,
        Stores,
        agent_identity,
        fingerprint,
        load_conversation,
        open_stores,
        plan_conversations,
        shared_stores,
        transcript_key,
    )
    from ._compare import Comparison, ComparisonError, compare_runs, run_labels, run_progress, unfinished_runs
    from ._dispatch import FITTED_PREFIX, JudgeSpec, check_model_name, judge_label
    from ._evaluate import STAGES, Evaluated, InFlight, evaluate_conversation, run_bounded
    from ._grade import (
        OFFLINE_NAMES,
        RescoreResult,
        ensure_judged,
        judge,
        judge_conversation,
        probe,
        probe_conversation,
        probe_run,
        rescore_run,
        run_inputs,
        scorable,
    )
    from ._production import (
        AgentIdentity,
        CallOrigin,
        ImportSummary,
        call_origins,
        import_calls,
        import_file,
        import_formats,
        list_source_files,
    )
    from ._production_grade import grade_production, judge_production, probe_production
    from ._production_report import (
        AllCallsRejectedError,
        all_production_rejected,
        production_import_markdown,
        production_rejections,
    )
    from ._production_runs import (
        check_call_source,
        check_regrade,
        is_call_location,
        parse_window,
        plan_arrival_runs,
        plan_production_runs,
        production_run_info,
    )
    from ._replay import ReplayDiff, replay_conversation
    from ._results import chosen_judge, finish_run, result_rows, scorecard
    from ._run_steps import judge_in_run, probe_in_run
    from ._runs import (
        ROLES,
        RunSettings,
        create_run,
        manifest_key,
        mark_unfinished,
        model_limits_below,
        new_run,
        record_execution,
        resolve_probes,
        resolve_rubric,
        resumed_run,
        role_models,
        run_concurrency,
        run_execution,
        run_manifest,
        run_settings,
    )
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
    from ._trends import TREND_METRICS, metric_trends
    from ._views import conversation_facets, conversation_list, run_distributions

__all__ = [
    "FITTED_PREFIX",
    "OFFLINE_NAMES",
    "ROLES",
    "STAGES",
    "TREND_METRICS",
    "AgentIdentity",
    "AllCallsRejectedError",
    "Arrival",
    "ArrivalReport",
    "BatchJob",
    "BatchPass",
    "BatchTimeout",
    "CalibrationOutcome",
    "CallOrigin",
    "CallRejectedError",
    "Comparison",
    "ComparisonError",
    "Evaluated",
    "FileCaches",
    "ImportSummary",
    "InFlight",
    "JudgeSpec",
    "LoadedSweep",
    "RatedRun",
    "ReplayDiff",
    "RescoreResult",
    "RunSettings",
    "RunView",
    "Stores",
    "agent_identity",
    "all_production_rejected",
    "analysis_for_run",
    "arrivals_markdown",
    "base_values",
    "batch_passes",
    "calibrate_run",
    "call_origins",
    "check_call_source",
    "check_model_name",
    "check_regrade",
    "chosen_judge",
    "collect_batch_pass",
    "compare_runs",
    "configured_sources",
    "conversation_facets",
    "conversation_list",
    "create_run",
    "ensure_judged",
    "evaluate_conversation",
    "failed_text",
    "fingerprint",
    "finish_run",
    "grade_production",
    "import_arrivals",
    "import_calls",
    "import_file",
    "import_formats",
    "is_call_location",
    "judge",
    "judge_calibration",
    "judge_calibrations",
    "judge_conversation",
    "judge_in_run",
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
    "mark_unfinished",
    "materialise_point",
    "metric_trends",
    "model_limits_below",
    "new_run",
    "open_stores",
    "parse_window",
    "plan_arrival_runs",
    "plan_conversations",
    "plan_production_runs",
    "planned_conversations",
    "point_cost",
    "point_measurements",
    "point_profile",
    "probe",
    "probe_conversation",
    "probe_in_run",
    "probe_production",
    "probe_run",
    "production_import_markdown",
    "production_rejections",
    "production_run_info",
    "pull_source",
    "receive_call",
    "record_execution",
    "record_objects",
    "replay_conversation",
    "rescore_batch_pass",
    "rescore_run",
    "resolve_probes",
    "resolve_rubric",
    "result_rows",
    "resumed_run",
    "role_models",
    "run_bounded",
    "run_concurrency",
    "run_distributions",
    "run_execution",
    "run_inputs",
    "run_labels",
    "run_manifest",
    "run_progress",
    "run_settings",
    "run_view",
    "scorable",
    "scorecard",
    "shared_stores",
    "simulate",
    "source_redaction",
    "store_calibration",
    "submit_batch_pass",
    "top_matrix",
    "transcript_key",
    "unfinished_runs",
    "wait_for_batch_pass",
]

#: submodule -> the names of `__all__` it provides (a test checks they are `__all__`, each once).
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_analysis": ("analysis_for_run",),
    "_arrivals": ("Arrival", "ArrivalReport", "CallRejectedError", "arrivals_markdown", "configured_sources",
        "import_arrivals", "pull_source", "receive_call", "record_objects", "source_redaction"),
    "_batch": ("BatchJob", "BatchPass", "BatchTimeout", "batch_passes", "collect_batch_pass", "load_job",
        "rescore_batch_pass", "submit_batch_pass", "wait_for_batch_pass"),
    "_calibrations": ("CalibrationOutcome", "RatedRun", "calibrate_run", "judge_calibration", "judge_calibrations",
        "judge_labelled", "labelled_conversations", "load_labels", "store_calibration"),
    "_common": ("FileCaches", "Stores", "agent_identity", "fingerprint", "load_conversation", "open_stores",
        "plan_conversations", "shared_stores", "transcript_key"),
    "_compare": ("Comparison", "ComparisonError", "compare_runs", "run_labels", "run_progress", "unfinished_runs"),
    "_dispatch": ("FITTED_PREFIX", "JudgeSpec", "check_model_name", "judge_label"),
    "_evaluate": ("STAGES", "Evaluated", "InFlight", "evaluate_conversation", "run_bounded"),
    "_grade": ("OFFLINE_NAMES", "RescoreResult", "ensure_judged", "judge", "judge_conversation", "probe",
        "probe_conversation", "probe_run", "rescore_run", "run_inputs", "scorable"),
    "_production": ("AgentIdentity", "CallOrigin", "ImportSummary", "call_origins", "import_calls", "import_file",
        "import_formats", "list_source_files"),
    "_production_grade": ("grade_production", "judge_production", "probe_production"),
    "_production_report": ("AllCallsRejectedError", "all_production_rejected", "production_import_markdown",
        "production_rejections"),
    "_production_runs": ("check_call_source", "check_regrade", "is_call_location", "parse_window", "plan_arrival_runs",
        "plan_production_runs", "production_run_info"),
    "_replay": ("ReplayDiff", "replay_conversation"),
    "_results": ("chosen_judge", "finish_run", "result_rows", "scorecard"),
    "_run_steps": ("judge_in_run", "probe_in_run"),
    "_runs": ("ROLES", "RunSettings", "create_run", "manifest_key", "mark_unfinished", "model_limits_below", "new_run",
        "record_execution", "resolve_probes", "resolve_rubric", "resumed_run", "role_models", "run_concurrency",
        "run_execution", "run_manifest", "run_settings"),
    "_scorecards": ("RunView", "failed_text", "judges_of", "run_view"),
    "_simulate": ("simulate",),
    "_sweeps": ("LoadedSweep", "base_values", "load_sweep", "materialise_point", "planned_conversations", "point_cost",
        "point_measurements", "point_profile", "top_matrix"),
    "_trends": ("TREND_METRICS", "metric_trends"),
    "_views": ("conversation_facets", "conversation_list", "run_distributions"),
}

# Only at run time: to mypy the names are the imports above, so a misspelt one stays an error.
if not TYPE_CHECKING:
    from polygon._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
