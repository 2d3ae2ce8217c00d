"""Conversions from table rows back to domain models (and typed records)."""

from __future__ import annotations

from polygon_core.models import (
    AssertionResult,
    CriterionScore,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
    Usage,
)

from ._records import ConversationRecord
from ._tables import ConversationRow, JudgmentRow, ProbeAnswerRow, RunRow

__all__ = ["judgment_from_row", "probe_from_row", "record_from_row", "run_from_row"]


def run_from_row(row: RunRow) -> Run:
    return Run(
        id=row.id,
        suite=row.suite,
        agent_name=row.agent_name,
        agent_version=row.agent_version,
        rubric_version=row.rubric_version,
        seeds=row.seeds,
        models=row.models,
        status=row.status,  # type: ignore[arg-type]  # validated by Run
        source=row.source,  # type: ignore[arg-type]
        created_at=row.created_at,
    )


def record_from_row(row: ConversationRow) -> ConversationRecord:
    return ConversationRecord(
        run_id=row.run_id,
        conversation_id=row.conversation_id,
        scenario_id=row.scenario_id,
        seed=row.seed,
        caller_type=row.caller_type,
        difficulty=row.difficulty,
        language=row.language,
        noise=row.noise,
        agent_version=row.agent_version,
        end_reason=row.end_reason,  # type: ignore[arg-type]  # validated into EndReason
        turn_count=row.turn_count,
        artifact_uri=row.artifact_uri,
        assertions=[AssertionResult.model_validate(a) for a in row.assertions],
        metrics=row.metrics,
        usage={role: Usage.model_validate(u) for role, u in row.usage.items()},
        models=row.models,
    )


def judgment_from_row(row: JudgmentRow) -> Judgment:
    return Judgment(
        conversation_id=row.conversation_id,
        rubric_version=row.rubric_version,
        judge_model=row.judge_model,
        repeats=row.repeats,
        raw=row.raw,
        criteria=[CriterionScore.model_validate(c) for c in row.criteria],
        composite=row.composite,
        partial=row.partial,
        not_scored=row.not_scored,
        gates=[GateHit.model_validate(g) for g in row.gates],
        verdict=row.verdict,  # type: ignore[arg-type]  # validated by Judgment
        status=row.status,  # type: ignore[arg-type]
        reason=row.reason,
    )


def probe_from_row(row: ProbeAnswerRow) -> ProbeAnswer:
    return ProbeAnswer(
        conversation_id=row.conversation_id,
        probe_id=row.probe_id,
        wording_hash=row.wording_hash,
        polarity=row.polarity,  # type: ignore[arg-type]  # validated by ProbeAnswer
        answer=row.answer,  # type: ignore[arg-type]
        evidence=row.evidence,
        answered_by=row.answered_by,
    )
