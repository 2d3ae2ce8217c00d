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
from ._compare import Comparison, ComparisonError, compare_runs
from ._grade import judge, probe
from ._results import finish_run, result_rows, scorecard
from ._replay import ReplayDiff, replay_conversation
from ._runs import create_run, manifest_key, run_manifest
from ._simulate import simulate

__all__ = [
    "Comparison",
    "ReplayDiff",
    "ComparisonError",
    "Stores",
    "_agent",
    "_suite",
    "agent_identity",
    "compare_runs",
    "create_run",
    "finish_run",
    "fingerprint",
    "judge",
    "load_conversation",
    "manifest_key",
    "open_stores",
    "plan_conversations",
    "probe",
    "replay_conversation",
    "result_rows",
    "run_manifest",
    "scorecard",
    "simulate",
    "transcript_key",
]
