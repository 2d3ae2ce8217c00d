"""What cannot be graded on a real call, and why: it has no simulated caller and no ground truth.

These tables are the single source of truth: the production pipeline marks exactly these as
`not_applicable`, and docs/import-formats.md lists them with the same reasons.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import AssertionResult, ProbeAnswer

__all__ = [
    "NOT_APPLICABLE_CHECKS",
    "NOT_APPLICABLE_CRITERIA",
    "NOT_APPLICABLE_PROBES",
    "mark_probes_not_applicable",
    "not_applicable_assertions",
]

# Rubric criteria the judge cannot score without what only a scenario knows.
# goal_completion is not here (since heuristic-2): a real caller says what they want and how it
# went ("I need a table for two", "that's all I needed, thanks", "never mind"), so a judge estimates
# it from the transcript (the offline judge's reason says "estimated from the transcript"). Leaving
# it out made the production composite blind to whether the caller got what they called for, the
# thing people rate a call by. factuality stays: no transcript shows which stated facts are true.
NOT_APPLICABLE_CRITERIA: dict[str, str] = {
    "factuality": "needs the facts the agent should have stated (ground truth, knowledge base and "
                  "the tool stubs' state); an export has none of them",
}

# Deterministic checks that read the scenario, its stubs or its simulated caller.
NOT_APPLICABLE_CHECKS: dict[str, str] = {
    "scenario_assertions": "assertions are written per scenario over stub events and final state; "
                           "a real call has no scenario, stub events or state",
    "cites_only(knowledge_base)": "needs the scenario's knowledge base",
    "turns_to_goal": "counted from the first domain event a tool stub emits; real tools emit none",
    "recognition_noise": "said-versus-heard is known only for the simulated caller's injected noise",
}

# Probes whose offline signal needs stub events, the knowledge base or the scenario's goal.
NOT_APPLICABLE_PROBES: dict[str, str] = {
    "verified_identity_before_action": "read from the `identity_verified` event a tool stub emits",
    "invented_policy": "needs the knowledge base to tell an invented policy from a real one",
    "ended_before_goal": "needs the caller's goal (the scenario's assertions)",
}


def not_applicable_assertions() -> list[AssertionResult]:
    """The not-applicable checks, recorded on the conversation (never counted as pass or fail)."""
    return [AssertionResult(name=name, expression=name, status="not_applicable", message=why)
            for name, why in NOT_APPLICABLE_CHECKS.items()]


def mark_probes_not_applicable(answers: Sequence[ProbeAnswer]) -> list[ProbeAnswer]:
    """Answers with the not-applicable probes set to `na` and the reason as evidence."""
    out = []
    for a in answers:
        why = NOT_APPLICABLE_PROBES.get(a.probe_id)
        out.append(a if why is None else a.model_copy(
            update={"answer": "na", "evidence": f"not applicable to a production call: {why}"}))
    return out
