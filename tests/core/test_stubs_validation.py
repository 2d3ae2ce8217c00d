"""Tool stubs: argument validation, unknown tools, schemas and ends_call."""

from __future__ import annotations

import pytest

from polygon_core.models import tool_def
from polygon_core.stubs import StubError, check_tool

from ._stubs_helpers import REFUND_PARAMS, env_of, ledger_tools

# -- validation ----------------------------------------------------------------------------------


def test_invalid_arguments_name_the_field_and_emit_nothing() -> None:
    tool = tool_def(
        name="issue_refund",
        parameters=REFUND_PARAMS,
        response={"ok": True},
        events=["refund_issued"],
    )
    env = env_of(tool)
    wrong_type = env.call("issue_refund", {"amount": "forty-nine"}, turn=1)
    assert wrong_type.valid is False
    assert "amount" in (wrong_type.validation_error or "")
    assert wrong_type.validation_error == "$.amount: 'forty-nine' is not of type 'number'"
    assert wrong_type.result == {
        "error": "invalid_arguments",
        "detail": wrong_type.validation_error,
    }
    missing = env.call("issue_refund", {"reason": "dup"}, turn=1)
    assert missing.valid is False and "'amount' is a required property" in (
        missing.validation_error or ""
    )
    extra = env.call("issue_refund", {"amount": 1, "bogus": 1}, turn=1)
    assert extra.valid is False and "bogus" in (extra.validation_error or "")
    assert env.events == [] and all(not c.events for c in env.calls)

    good = env.call("issue_refund", {"amount": 49.0}, turn=2)
    assert good.valid and good.events == ["refund_issued"]
    assert [(e.name, e.turn, e.tool, e.args) for e in env.events] == [
        ("refund_issued", 2, "issue_refund", {"amount": 49.0})
    ]
    assert [c.id for c in env.calls] == ["call_1_0", "call_1_1", "call_1_2", "call_2_0"]


def test_unknown_tool_is_an_invalid_call() -> None:
    env = env_of(tool_def(name="known"))
    call = env.call("made_up", {"x": 1}, turn=0)
    assert call.valid is False
    assert call.validation_error == "unknown tool 'made_up'"
    assert call.result["error"] == "unknown_tool"
    assert env.calls == [call]


def test_broken_parameter_schema_fails_at_construction() -> None:
    with pytest.raises(StubError, match="JSON Schema"):
        env_of(tool_def(name="t", parameters={"type": "objekt"}))


# -- schemas and ends_call ------------------------------------------------------------------------


def test_schemas_and_ends_call() -> None:
    refund = tool_def(name="issue_refund", description="Refund a charge", parameters=REFUND_PARAMS)
    transfer = tool_def(name="escalate_to_human", description="Transfer", ends_call="transfer")
    env = env_of(refund, transfer)
    assert env.schemas() == [
        {"name": "issue_refund", "description": "Refund a charge", "parameters": REFUND_PARAMS},
        {
            "name": "escalate_to_human",
            "description": "Transfer",
            "parameters": {"type": "object", "properties": {}},
        },
    ]
    assert [s["name"] for s in env.schemas(["escalate_to_human"])] == ["escalate_to_human"]
    with pytest.raises(KeyError):
        env.schemas(["nope"])
    assert env.ends_call("escalate_to_human") == "transfer"
    assert env.ends_call("issue_refund") is None
    assert env.ends_call("nope") is None


def test_check_tool_reports_template_errors() -> None:
    tool = tool_def(name="t", kind="template", response="{{ args.x ")
    problems = check_tool(tool)
    assert problems and "does not compile" in problems[0]
    assert check_tool(ledger_tools()[2]) == []
