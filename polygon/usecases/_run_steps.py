"""Judge and probe passes on one stored conversation, with nothing but the run id to go on.

The run is the one carrier of its settings (docs/design.md, "Run settings: one precedence"): its
rubric version, judge repeats, probe library and files are read from the stored run and its
manifest (`run_settings`), never from the caller, so a retried or resumed step cannot judge a
conversation under other settings than its run's.
"""

from __future__ import annotations

from polygon_core.models import Judgment, ProbeAnswer

from ._common import Stores
from ._grade import judge, probe
from ._runs import run_settings

__all__ = ["judge_in_run", "probe_in_run"]


def judge_in_run(stores: Stores, run_id: str, conversation_id: str) -> Judgment:
    """`judge` one stored conversation under its run's rubric version and judge repeats."""
    own = run_settings(stores, run_id)
    return judge(stores, run_id, conversation_id, suite_path=own.suite_path, agent_path=own.agent_path,
                 rubric_version=own.rubric_version, repeats=own.repeats)


def probe_in_run(stores: Stores, run_id: str, conversation_id: str) -> list[ProbeAnswer]:
    """`probe` one stored conversation with its run's probe library."""
    own = run_settings(stores, run_id)
    return probe(stores, run_id, conversation_id, suite_path=own.suite_path, agent_path=own.agent_path,
                 probes_path=own.probes_path)
