"""The pipeline's steps as plain functions over storage and artifacts; tasks wrap one each.

Each step reads its inputs from the stores by id and writes its outputs back, so any step can be
re-run alone (re-judge, re-probe, re-compare) and a killed run resumes where it stopped.

Modules: `_common` (stores, cached loading), `_runs`, `_simulate`, `_grade` (judge and probe passes),
`_results` (result rows, scorecards), `_compare`.
"""

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
from ._grade import judge, probe
from ._production import (
    AgentIdentity,
    ImportSummary,
    grade_production,
    import_calls,
    import_file,
    judge_production,
    list_source_files,
    parse_window,
    plan_production_runs,
    probe_production,
    production_run_info,
)
from ._replay import ReplayDiff, replay_conversation
from ._results import finish_run, result_rows, scorecard
from ._runs import ROLES, create_run, manifest_key, new_run, role_models, run_manifest
from ._simulate import simulate

__all__ = [
    "ROLES",
    "AgentIdentity",
    "Comparison",
    "ComparisonError",
    "ImportSummary",
    "ReplayDiff",
    "Stores",
    "_agent",
    "_suite",
    "agent_identity",
    "compare_runs",
    "create_run",
    "fingerprint",
    "finish_run",
    "grade_production",
    "import_calls",
    "import_file",
    "judge",
    "judge_production",
    "list_source_files",
    "load_conversation",
    "manifest_key",
    "new_run",
    "open_stores",
    "parse_window",
    "plan_conversations",
    "plan_production_runs",
    "probe",
    "probe_production",
    "production_run_info",
    "replay_conversation",
    "result_rows",
    "role_models",
    "run_labels",
    "run_manifest",
    "scorecard",
    "simulate",
    "transcript_key",
]
