"""Builders and row readers shared by the repository tests (tests/adapters/test_storage_*.py)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from polygon_core.adapters.storage import Repository
from polygon_core.adapters.storage._tables import metadata
from polygon_core.models import (
    AssertionResult,
    Conversation,
    CriterionScore,
    Distortion,
    DomainEvent,
    EndReason,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
    ToolCall,
    Turn,
    Usage,
)

# -- builders ---------------------------------------------------------------------------------


def make_run(run_id: str = "run-20240101-abcdef", **changes: Any) -> Run:
    values: dict[str, Any] = {
        "id": run_id,
        "suite": "refunds",
        "agent_name": "support-bot",
        "agent_version": "p-3f2a9c",
        "rubric_version": "v1",
        "seeds": [0, 1, 2**40],
        "models": {
            "agent": "offline:demo",
            "caller": "offline:rules",
            "judge": "offline-heuristic",
        },
        "status": "running",
        "source": "synthetic",
        "created_at": "2024-01-01T10:00:00+00:00",
    }
    values.update(changes)
    return Run(**values)


def make_conversation(conversation_id: str = "conv-1", **changes: Any) -> Conversation:
    values: dict[str, Any] = {
        "id": conversation_id,
        "scenario_id": "refund.late-delivery",
        "seed": 7,
        "agent_name": "support-bot",
        "agent_version": "p-3f2a9c",
        "persona_hash": "a1b2c3d4e5f6",
        "caller_type": "distrustful",
        "difficulty": 4,
        "language": "ru",
        "noise": 0.25,
        "turns": [
            Turn(
                index=0,
                speaker="caller",
                text="Мой заказ 12345 опоздал",
                heard="Мой заказ 12 345 опоздал",
                distortions=[
                    Distortion(kind="digits", original="12345", replacement="12 345", position=2)
                ],
            ),
            Turn(
                index=1,
                speaker="agent",
                text="Оформляю возврат.",
                tool_calls=[
                    ToolCall(
                        id="call-1",
                        name="issue_refund",
                        arguments={"order_id": "12345", "amount": 19.99},
                        result={"ok": True},
                        latency_ms=120.5,
                        events=["refund_issued"],
                    )
                ],
                latency_ms=850.0,
            ),
            Turn(index=2, speaker="caller", text="Спасибо", end="hangup"),
        ],
        "end_reason": EndReason.CALLER_HANGUP,
        "events": [
            DomainEvent(name="refund_issued", turn=1, tool="issue_refund", args={"amount": 19.99})
        ],
        "initial_state": {"orders": [{"id": "12345"}]},
        "final_state": {"refunds": [{"order_id": "12345"}]},
        "clock_ms": 4200.0,
        "usage": {
            "agent": Usage(input_tokens=120, output_tokens=40, calls=2, estimated=True),
            "caller": Usage(input_tokens=80, output_tokens=20, cached_tokens=10, calls=2),
        },
        "models": {"agent": "offline:demo", "caller": "offline:rules"},
    }
    values.update(changes)
    return Conversation(**values)


ASSERTIONS = [
    AssertionResult(name="refund_once", expression="count(refund_issued) == 1", status="pass"),
    AssertionResult(
        name="no_transfer",
        expression="end_reason != 'transfer'",
        status="fail",
        message="transferred at turn 5",
        turn=5,
        answered_by="offline-heuristic",
    ),
]


def make_judgment(
    conversation_id: str = "conv-1",
    rubric: str = "v1",
    judge: str = "offline-heuristic",
    composite: float | None = 71.25,
) -> Judgment:
    return Judgment(
        conversation_id=conversation_id,
        rubric_version=rubric,
        judge_model=judge,
        repeats=3,
        raw=[
            {"goal_completion": 4, "safety_compliance": "n/a", "notes": "цитата «вернём деньги»"},
            {"goal_completion": 5, "safety_compliance": None},
            {"goal_completion": 4.0, "nested": {"list": [1, 2.5, None, True]}},
        ],
        criteria=[
            CriterionScore(criterion="goal_completion", score=4.0, evidence="Оформляю возврат."),
            CriterionScore(criterion="factuality", score=None, status="unreadable"),
            CriterionScore(
                criterion="persona_tone", score=1.0, status="missing", unsupported_evidence=True
            ),
        ],
        composite=composite,
        partial=True,
        not_scored=["factuality"],
        gates=[GateHit(gate="forbidden_phrase", turn=1, detail="'guarantee' in agent speech")],
        verdict="fail",
    )


PROBES = [
    ProbeAnswer(
        conversation_id="conv-1",
        probe_id="confirms_amount",
        wording_hash="h1",
        polarity="wanted",
        answer="yes",
        evidence="turn 1",
    ),
    ProbeAnswer(
        conversation_id="conv-1",
        probe_id="promises_refund_time",
        wording_hash="h2",
        polarity="guardrail",
        answer="na",
    ),
    ProbeAnswer(
        conversation_id="conv-2",
        probe_id="confirms_amount",
        wording_hash="h1",
        polarity="wanted",
        answer="no",
        answered_by="openai:gpt-4o-mini",
    ),
]


def count_rows(repository: Repository, table: str) -> int:
    with repository.engine.connect() as connection:
        return int(connection.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


def rows_as_text(repository: Repository, table: str, where: str = "1=1") -> list[tuple[Any, ...]]:
    """Every column cast to text: what the database actually stores, byte for byte."""
    columns = ", ".join(f"CAST({c.name} AS TEXT)" for c in metadata.tables[table].columns)
    query = f"SELECT {columns} FROM {table} WHERE {where} ORDER BY id"
    with repository.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(query))]
