"""Judge and probe passes over stored conversations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...checks import Checks, run_checks
from ...judging import (
    HEURISTIC_JUDGE,
    answer_probes_offline,
    build_judgment,
    judge_offline,
)
from ...models import (
    Conversation,
    Judgment,
    ProbeAnswer,
    Run,
)
from ...probes import Probe, default_probes, load_probes
from ._common import Stores, _agent, _suite, load_conversation


def _checks(stores: Stores, run: Run, suite_path: str | None, agent_path: str | None,
            conv: Conversation) -> tuple[Checks, Any]:
    scenario = None
    forbidden: list[str] = []
    tools = None
    if suite_path:
        suite = _suite(suite_path)
        scenario = next((s for s in suite.scenarios if s.id == conv.scenario_id), None)
        tools = suite.tools
    if agent_path:
        forbidden = list(_agent(agent_path)[0].forbidden_phrases)
    return run_checks(conv, scenario, forbidden_phrases=forbidden, tools=tools), scenario


def judge(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, rubric_version: str, repeats: int = 1) -> Judgment:
    """One judge pass (offline heuristic) over one stored conversation, stored as a new judgment."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    raw = judge_offline(conv, checks, scenario.persona if scenario else None)
    phrases = [*(scenario.forbidden_phrases if scenario else []),
               *(_agent(agent_path)[0].forbidden_phrases if agent_path else [])]
    judgment = build_judgment(conv, [raw] * repeats, rubric_version=rubric_version,
                              judge_model=HEURISTIC_JUDGE, forbidden_phrases=phrases)
    stores.repo.save_judgment(run_id, judgment)
    return judgment


def probe(stores: Stores, run_id: str, conversation_id: str, *, suite_path: str | None,
          agent_path: str | None, probes_path: str | None = None) -> list[ProbeAnswer]:
    """Answer the probes on one stored conversation (own pass, never touching the verdict)."""
    run = stores.repo.get_run(run_id)
    assert run is not None, f"run {run_id} is not stored"
    conv = load_conversation(stores, run_id, conversation_id)
    checks, scenario = _checks(stores, run, suite_path, agent_path, conv)
    probes: list[Probe] = load_probes(Path(probes_path)) if probes_path else default_probes()
    if scenario is not None and scenario.probes is not None:
        probes = [p for p in probes if p.id in set(scenario.probes)]
    answers = answer_probes_offline(conv, checks, probes)
    stores.repo.save_probe_answers(run_id, answers)
    return answers
