"""`polygon show`'s "failed assertions / why": an assertion that errored says so, with its reason."""

from __future__ import annotations

from polygon.usecases import failed_text
from polygon.usecases._scorecards import row_from_facts


def _facts(assertions: list[dict[str, object]]) -> dict[str, object]:
    return {"conversation_id": "c1", "scenario_id": "s", "seed": 1, "caller_type": "cooperative", "difficulty": 1,
            "end_reason": "agent_end", "composite": 100.0, "verdict": "pass", "partial": False, "gates": [],
            "criteria": [], "usage": {}, "status": "judged", "reason": None, "assertions": assertions}


def test_an_errored_assertion_is_shown_as_error_with_its_reason_not_as_a_fail() -> None:
    row = row_from_facts(_facts([
        {"name": "goal_met", "expression": "refund_issued(amont == 49.00)", "status": "error",
         "message": "'amont' is not an argument of refund_issued (its arguments: amount, reason)"},
        {"name": "no_fee", "expression": "not happened(fee)", "status": "fail", "turn": 3},
        {"name": "ok", "expression": "True", "status": "pass"},
    ]))
    assert row.assertion_errors == {
        "goal_met": "'amont' is not an argument of refund_issued (its arguments: amount, reason)"}
    assert failed_text(row) == ("goal_met: error ('amont' is not an argument of refund_issued (its arguments: "
                                "amount, reason)), no_fee (turn 3)")
