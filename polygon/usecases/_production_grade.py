"""Grading production runs: the judge and probes on real (redacted) calls.

The judge and probe answerer are the run's recorded models: the offline heuristic tier, or a model
reached through the provider layer (`openai:…`, `anthropic:…`). Either way, what needs ground truth
or a simulated caller is `not_applicable` (see `polygon_core.imports` and docs/import-formats.md),
and the model only ever sees the stored, redacted transcript.
"""

from __future__ import annotations

from datetime import date

from polygon_core.checks import Checks, run_checks
from polygon_core.imports import NOT_APPLICABLE_CRITERIA, NOT_APPLICABLE_PROBES, mark_probes_not_applicable
from polygon_core.judging import HEURISTIC_JUDGE, agent_failure, agent_failure_judgment, build_judgment
from polygon_core.models import Conversation, Judgment, ProbeAnswer, Run
from polygon_core.probes import Probe, default_probes

from ._common import Stores, load_conversation
from ._dispatch import JudgeSpec, judge_label, judge_one, probe_one
from ._grade import forbidden_phrases
from ._production import recorded_agent_path
from ._production_runs import JudgeFn, plan_production_runs, production_run_info

__all__ = ["grade_production", "judge_production", "probe_production", "production_checks"]


def production_checks(stores: Stores, conv: Conversation, agent_path: str | None) -> Checks:
    """The checks that make sense on a real call (no scenario: forbidden phrases, tools, loops)."""
    return run_checks(conv, None, forbidden_phrases=forbidden_phrases(stores, None, agent_path))


def _run(stores: Stores, run_id: str) -> Run:
    run = stores.repo.get_run(run_id, exact=True)
    if run is None:
        raise ValueError(f"no run {run_id!r} is stored")
    return run


def grading_agent(stores: Stores, run: Run, agent_path: str | None) -> str | None:
    """The agent file whose rules (forbidden phrases, instructions) grade a production run: the one
    given, else the one its calls were imported with, while that file is still the same version."""
    if agent_path is not None:
        return agent_path
    info = production_run_info(stores, run.id)
    return recorded_agent_path(stores, info.source, run.agent_version) if info is not None else None


def judge_production(stores: Stores, run_id: str, conversation_id: str, *,
                     agent_path: str | None = None, rubric_version: str | None = None,
                     judge_fn: JudgeFn | None = None, judge_model: str = HEURISTIC_JUDGE,
                     repeats: int = 1) -> Judgment:
    """Judge one stored production conversation; ground-truth criteria are `not_applicable`.

    The judge is `judge_fn` when given (labelled `judge_model`), else the run's judge: the heuristic
    tier, a fitted judge, or a model judge that reads the redacted transcript and the agent's
    instructions (no persona: a real call has none). As in the synthetic pass, a broken call is the
    agent's failure and a judge that fails is a stored `judge_error`.
    """
    run = _run(stores, run_id)
    agent_path = grading_agent(stores, run, agent_path)
    conv = load_conversation(stores, run_id, conversation_id)
    checks = production_checks(stores, conv, agent_path)
    version = rubric_version or run.rubric_version
    forbidden = forbidden_phrases(stores, None, agent_path)
    if judge_fn is None:
        spec = JudgeSpec.resolve(stores, run.models.get("judge") or HEURISTIC_JUDGE, version, repeats=repeats)
        return judge_one(stores, run_id, conv, checks, spec, persona=None, agent_path=agent_path,
                         forbidden=forbidden, not_applicable=list(NOT_APPLICABLE_CRITERIA))
    broken = agent_failure(conv)
    judgment = (agent_failure_judgment(conv, broken, rubric_version=version, judge_model=judge_model)
                if broken is not None else
                build_judgment(conv, [judge_fn(conv, checks) for _ in range(repeats)], rubric_version=version,
                               judge_model=judge_model, forbidden_phrases=forbidden,
                               not_applicable=list(NOT_APPLICABLE_CRITERIA)))
    stores.repo.save_judgment(run_id, judgment)
    return judgment


def probe_production(stores: Stores, run_id: str, conversation_id: str, *,
                     agent_path: str | None = None, probes_path: str | None = None) -> list[ProbeAnswer]:
    """Answer the probes on one production conversation; those needing ground truth say `na`.

    By the run's probe model (the heuristic tier, or a model through the provider layer, which is
    not asked the probes that need ground truth); a model that fails stores `error` answers.
    """
    run = _run(stores, run_id)
    agent_path = grading_agent(stores, run, agent_path)
    conv = load_conversation(stores, run_id, conversation_id)
    checks = production_checks(stores, conv, agent_path)
    probes: list[Probe] = stores.caches.probes(probes_path) if probes_path else default_probes()
    asked = [p for p in probes if p.id not in NOT_APPLICABLE_PROBES]
    return probe_one(stores, run_id, conv, checks, probes, name=judge_label(run.models.get("probe") or HEURISTIC_JUDGE),
                     asked=asked, adjust=mark_probes_not_applicable)


def grade_production(stores: Stores, source: str, since: str | date | None = None,
                     until: str | date | None = None, *, rubric_version: str | None = None,
                     agent_path: str | None = None, judge_fn: JudgeFn | None = None,
                     judge_model: str | None = None, probe_model: str | None = None) -> list[Run]:
    """Plan, judge, probe and finish the production runs of a window, in-process (no Prefect)."""
    from ._results import finish_run

    runs = []
    for run, cids in plan_production_runs(stores, source, since, until, rubric_version=rubric_version,
                                          agent_path=agent_path, judge_model=judge_model,
                                          probe_model=probe_model):
        for cid in cids:
            judge_production(stores, run.id, cid, agent_path=agent_path, judge_fn=judge_fn)
            probe_production(stores, run.id, cid, agent_path=agent_path)
        finish_run(stores, run.id)
        runs.append(stores.repo.get_run(run.id, exact=True) or run)
    return runs
