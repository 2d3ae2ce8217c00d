"""State, schemas and builders shared by the tool-stub tests (tests/core/test_stubs_*.py)."""

from __future__ import annotations

from typing import Any

from polygon_core.models import StateOp, ToolDef, tool_def
from polygon_core.stubs import ToolEnvironment

ARENA_STATE: dict[str, Any] = {
    "account_status": "verified",
    "ledger": [
        {"date": "2026-06-14", "amount": 49.00, "kind": "subscription"},
        {"date": "2026-06-14", "amount": 49.00, "kind": "duplicate"},
    ],
}

REFUND_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "amount": {"type": "number", "exclusiveMinimum": 0},
        "reason": {"type": "string"},
    },
    "required": ["amount"],
    "additionalProperties": False,
}


def env_of(*tools: ToolDef, state: dict[str, Any] | None = None, seed: int = 41) -> ToolEnvironment:
    return ToolEnvironment(
        {t.name: t for t in tools},
        ARENA_STATE if state is None else state,
        conversation_id="conv-1",
        seed=seed,
    )


def ledger_tools() -> list[ToolDef]:
    return [
        tool_def(
            name="lookup_charges",
            kind="state",
            parameters={"type": "object", "properties": {"kind": {"type": "string"}}},
            state=StateOp(op="read", path="ledger", match={"kind": "{{ args.kind }}"}),
        ),
        tool_def(
            name="read_refunds",
            kind="state",
            state=StateOp(op="read", path="billing.refunds"),
        ),
        tool_def(
            name="issue_refund",
            kind="state",
            parameters=REFUND_PARAMS,
            events=["refund_issued"],
            state=StateOp(
                op="append",
                path="billing.refunds",
                record={
                    "amount": "{{ args.amount }}",
                    "reason": "{{ args.reason }}",
                    "label": "refund {{ args.amount }} ({{ args.reason }})",
                },
            ),
        ),
        tool_def(
            name="mark_refunded",
            kind="state",
            parameters={
                "type": "object",
                "properties": {"kind": {"type": "string"}},
                "required": ["kind"],
            },
            state=StateOp(
                op="update",
                path="ledger",
                match={"kind": "{{ args.kind }}"},
                record={"refunded": True},
            ),
        ),
    ]
