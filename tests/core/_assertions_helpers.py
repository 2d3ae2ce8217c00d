"""The arena's billing dispute, hand-built, shared by the assertion tests (tests/core/test_assertions_*.py)."""

from __future__ import annotations

from typing import Any

from polygon_core.models import (
    AssertionResult,
    Conversation,
    DomainEvent,
    EndReason,
    Rule,
    ToolCall,
    ToolDef,
    Turn,
    tool_def,
)

ARENA_ASSERTIONS = {
    "goal_met": "refund_issued(amount == 49.00)",
    "no_policy_breach": "identity_verified_before(issue_refund)",
    "no_hallucinated_policy": "cites_only(knowledge_base)",
}

KNOWLEDGE_BASE = [
    "Duplicate charges are refunded in full to the original payment method.",
    "Refunds require a verified identity.",
    "Refunds are processed within 5 business days.",
]

LEDGER = [
    {"date": "2026-06-14", "amount": 49.00, "kind": "subscription"},
    {"date": "2026-06-14", "amount": 49.00, "kind": "duplicate"},
]

TOOLS: dict[str, ToolDef] = {
    "lookup_account": tool_def(name="lookup_account", response={"status": "verified"}),
    "verify_identity": tool_def(
        name="verify_identity",
        kind="rules",
        rules=[
            Rule(
                when="args.dob == '1990-01-01'",
                response={"ok": True},
                events=["identity_verified"],
            )
        ],
    ),
    "issue_refund": tool_def(name="issue_refund", response={"ok": True}, events=["refund_issued"]),
    "escalate_to_human": tool_def(name="escalate_to_human", ends_call="transfer"),
}


def call(
    name: str,
    turn: int,
    n: int = 0,
    *,
    events: list[str] | None = None,
    valid: bool = True,
    error: str | None = None,
    **arguments: Any,
) -> ToolCall:
    return ToolCall(
        id=f"call_{turn}_{n}",
        name=name,
        arguments=arguments,
        result={"ok": True},
        valid=valid,
        error=error,
        events=events or [],
    )


def conversation(
    turns: list[Turn],
    events: list[DomainEvent],
    *,
    final_refunds: list[dict[str, Any]] | None = None,
) -> Conversation:
    return Conversation(
        id="conv-1",
        scenario_id="billing-dispute-v3",
        seed=41,
        agent_name="demo",
        agent_version="v1",
        persona_hash="p",
        caller_type="busy",
        difficulty=3,
        turns=turns,
        end_reason=EndReason.AGENT_END,
        events=events,
        initial_state={"account_status": "verified", "ledger": LEDGER},
        final_state={
            "account_status": "verified",
            "ledger": LEDGER,
            "refunds": final_refunds or [],
        },
    )


def good_conversation(
    amount: float = 49.00, agent_last: str = "Duplicate charges are refunded in full to your "
    "original payment method, that is our policy. Refunds are processed within 5 business days."
) -> Conversation:
    turns = [
        Turn(index=0, speaker="caller", text="You charged me twice last month!"),
        Turn(index=1, speaker="agent", text="I am sorry. Can you confirm your date of birth?"),
        Turn(index=2, speaker="caller", text="First of January 1990."),
        Turn(
            index=3,
            speaker="agent",
            text="Thank you, you are verified. I have issued the refund.",
            tool_calls=[
                call("verify_identity", 3, 0, events=["identity_verified"], dob="1990-01-01"),
                call("issue_refund", 3, 1, events=["refund_issued"], amount=amount),
            ],
        ),
        Turn(index=4, speaker="caller", text="How long will it take?"),
        Turn(index=5, speaker="agent", text=agent_last),
    ]
    events = [
        DomainEvent(
            name="identity_verified", turn=3, tool="verify_identity", args={"dob": "1990-01-01"}
        ),
        DomainEvent(name="refund_issued", turn=3, tool="issue_refund", args={"amount": amount}),
    ]
    refunds = [{"amount": amount, "kind": "duplicate"}]
    return conversation(turns, events, final_refunds=refunds)


def by_name(results: list[AssertionResult]) -> dict[str, AssertionResult]:
    return {r.name: r for r in results}
