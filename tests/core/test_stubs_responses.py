"""Tool stubs: what each kind answers (fixed, template, rules, state) and state isolation."""

from __future__ import annotations

import copy

import pytest

from polygon_core.models import Rule, StateOp, tool_def
from polygon_core.stubs import StubError, check_tool

from ._stubs_helpers import ARENA_STATE, REFUND_PARAMS, env_of, ledger_tools

# -- kinds ---------------------------------------------------------------------------------------


def test_fixed_returns_a_copy_of_the_response() -> None:
    tool = tool_def(name="lookup_account", response={"status": "verified", "tags": ["gold"]})
    env = env_of(tool)
    first = env.call("lookup_account", {}, turn=1)
    first.result["tags"].append("mutated")
    second = env.call("lookup_account", {}, turn=1)
    assert second.result == {"status": "verified", "tags": ["gold"]}
    assert (first.id, second.id) == ("call_1_0", "call_1_1")
    assert first.valid and first.error is None


def test_template_renders_args_and_state_and_parses_json() -> None:
    tool = tool_def(
        name="lookup_account",
        kind="template",
        parameters={"type": "object", "properties": {"account_id": {"type": "string"}}},
        response='{"id": "{{ args.account_id }}", "status": "{{ state.account_status }}", '
        '"charges": {{ state.ledger | length }}}',
    )
    call = env_of(tool).call("lookup_account", {"account_id": "A-7"}, turn=2)
    assert call.result == {"id": "A-7", "status": "verified", "charges": 2}


def test_template_that_is_not_json_stays_text() -> None:
    tool = tool_def(
        name="greet", kind="template", response="Hello {{ args.name }}, you have {{ state.n }}."
    )
    call = env_of(tool, state={"n": 3}).call("greet", {"name": "Ann"}, turn=0)
    assert call.result == "Hello Ann, you have 3."


def test_template_sandbox_cannot_mutate_state_or_reach_private_attributes() -> None:
    mutate = tool_def(name="m", kind="template", response="{{ state.ledger.append(1) }}")
    env = env_of(mutate)
    with pytest.raises(StubError):
        env.call("m", {}, turn=0)
    assert len(env.state["ledger"]) == 2
    escape = tool_def(name="e", kind="template", response="<{{ ().__class__.__mro__ }}>")
    with pytest.raises(StubError, match="access to attribute '__class__' of 'tuple' object is unsafe"):
        env_of(escape).call("e", {}, turn=0)  # refused (StrictUndefined), never rendered as empty


def test_rules_first_match_wins_and_responses_are_templated() -> None:
    tool = tool_def(
        name="issue_refund",
        kind="rules",
        parameters=REFUND_PARAMS,
        rules=[
            Rule(
                when="state.account_status != 'verified'",
                response={"error": "identity_not_verified"},
            ),
            Rule(
                when="args.amount > 100",
                response={"error": "over_limit", "limit": 100},
                events=["refund_rejected"],
            ),
            Rule(
                when="args['amount'] > 0",
                response={
                    "ok": True,
                    "amount": "{{ args.amount }}",
                    "note": "refund of {{ args.amount }}",
                },
                events=["refund_issued"],
            ),
            Rule(when="True", response={"never": "reached"}),
        ],
    )
    env = env_of(tool)
    ok = env.call("issue_refund", {"amount": 49.0}, turn=3)
    assert ok.result == {"ok": True, "amount": 49.0, "note": "refund of 49.0"}
    assert isinstance(ok.result["amount"], float)
    assert ok.events == ["refund_issued"]
    big = env.call("issue_refund", {"amount": 500}, turn=4)
    assert big.result == {"error": "over_limit", "limit": 100}
    assert big.events == ["refund_rejected"]

    unverified = env_of(tool, state={"account_status": "pending"})
    assert unverified.call("issue_refund", {"amount": 5}, turn=1).result == {
        "error": "identity_not_verified"
    }


def test_rules_without_a_match_answer_no_rule_matched_and_emit_nothing() -> None:
    tool = tool_def(
        name="check",
        kind="rules",
        events=["checked"],
        rules=[Rule(when="args.code == 'X'", response="x")],
    )
    env = env_of(tool)
    # `args.code` is absent here: the condition is false for that call, not a crash.
    call = env.call("check", {}, turn=0)
    assert call.result == {"error": "no_rule_matched"}
    assert call.events == [] and env.events == []
    assert env.call("check", {"code": "X"}, turn=0).events == ["checked"]


def test_broken_rule_condition_is_a_stub_error() -> None:
    tool = tool_def(name="bad", kind="rules", rules=[Rule(when="amount > 1", response=1)])
    with pytest.raises(StubError, match="amount"):
        env_of(tool).call("bad", {"amount": 2}, turn=0)
    assert any("unknown name 'amount'" in p for p in check_tool(tool))


# -- state ---------------------------------------------------------------------------------------


def test_state_read_append_update_over_a_ledger() -> None:
    initial = copy.deepcopy(ARENA_STATE)
    env = env_of(*ledger_tools(), state=initial)

    dup = env.call("lookup_charges", {"kind": "duplicate"}, turn=1)
    assert dup.result == [{"date": "2026-06-14", "amount": 49.0, "kind": "duplicate"}]

    assert env.call("read_refunds", {}, turn=1).result is None
    added = env.call("issue_refund", {"amount": 49.0, "reason": "duplicate"}, turn=2)
    assert added.result == {
        "ok": True,
        "record": {"amount": 49.0, "reason": "duplicate", "label": "refund 49.0 (duplicate)"},
    }
    assert isinstance(env.state["billing"]["refunds"][0]["amount"], float)
    assert env.call("read_refunds", {}, turn=2).result == [added.result["record"]]

    updated = env.call("mark_refunded", {"kind": "duplicate"}, turn=3)
    assert updated.result == {"ok": True, "updated": 1}
    nothing = env.call("mark_refunded", {"kind": "nothing"}, turn=3)
    assert nothing.result == {"ok": True, "updated": 0}
    assert [row.get("refunded") for row in env.state["ledger"]] == [None, True]

    # The initial mapping is never touched, and `state` hands out copies.
    assert initial == ARENA_STATE
    env.state["ledger"].clear()
    assert len(env.state["ledger"]) == 2


def test_append_to_a_non_list_is_a_stub_error() -> None:
    tool = tool_def(
        name="t", kind="state", state=StateOp(op="append", path="account_status", record={})
    )
    with pytest.raises(StubError, match="not a list"):
        env_of(tool).call("t", {}, turn=0)
