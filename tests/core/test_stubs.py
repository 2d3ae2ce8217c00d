"""Tool stubs: kinds, validation, seeded faults and latency, events, state isolation."""

from __future__ import annotations

import asyncio
import copy
import time
from typing import Any

import pytest

from polygon_core.models import ErrorSpec, LatencySpec, Rule, StateOp, ToolDef, tool_def
from polygon_core.stubs import StubError, ToolEnvironment, check_tool

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
    assert env_of(escape).call("e", {}, turn=0).result == "<>"


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


# -- faults and latency --------------------------------------------------------------------------


def flaky() -> ToolDef:
    return tool_def(
        name="lookup_account",
        response={"status": "verified"},
        events=["account_looked_up"],
        errors=ErrorSpec(rate=0.3, kind="server_error"),
        latency=LatencySpec(fixed_ms=2000),
    )


def failing_indices(env: ToolEnvironment, n: int = 20) -> list[int]:
    return [i for i in range(n) if env.call("lookup_account", {}, turn=i).error is not None]


def test_seeded_faults_repeat_exactly_and_latency_is_simulated() -> None:
    started = time.perf_counter()
    first = env_of(flaky())
    second = env_of(flaky())
    failed = failing_indices(first)
    assert failed == failing_indices(second)
    assert failed == [6, 7, 12, 15]  # pinned for conversation "conv-1", seed 41
    assert first.clock_ms == second.clock_ms == 20 * 2000
    assert all(c.latency_ms == 2000 for c in first.calls)
    assert time.perf_counter() - started < 5  # 40 simulated seconds, no real sleeping

    # Faulted calls answer like a failing server and emit no events.
    bad = first.calls[failed[0]]
    assert bad.error == "server_error"
    assert bad.result == {"error": "server_error", "status": 500}
    assert bad.events == []
    assert len(first.events) == 20 - len(failed)

    # Another seed or another conversation gives another (but again stable) fault pattern.
    assert failing_indices(env_of(flaky(), seed=42)) != failed


def test_fault_kinds() -> None:
    def one(spec: ErrorSpec) -> Any:
        tool = tool_def(name="t", response="fine", errors=spec)
        call = env_of(tool).call("t", {}, turn=0)
        return call.error, call.result

    assert one(ErrorSpec(rate=1.0, kind="timeout")) == ("timeout", {"error": "timeout"})
    assert one(ErrorSpec(rate=1.0, kind="custom", payload={"error": "crm_down"})) == (
        "custom",
        {"error": "crm_down"},
    )
    assert one(ErrorSpec(rate=0.0, kind="timeout")) == (None, "fine")


def test_invalid_calls_do_not_shift_the_fault_sequence() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    tool = flaky().model_copy(update={"parameters": schema})
    plain = env_of(tool)
    noisy = env_of(tool)
    a = [plain.call("lookup_account", {}, turn=i).error for i in range(10)]
    b = []
    for i in range(10):
        noisy.call("lookup_account", {"id": 5}, turn=i)  # invalid: no fault draw, no time
        b.append(noisy.call("lookup_account", {}, turn=i).error)
    assert a == b
    assert noisy.clock_ms == plain.clock_ms


@pytest.mark.parametrize("distribution", ["uniform", "normal", "lognormal"])
def test_distribution_latency_is_seeded_and_never_negative(distribution: str) -> None:
    spec = LatencySpec(distribution=distribution, mean_ms=300, spread_ms=400)
    tool = tool_def(name="t", response=1, latency=spec)
    runs = []
    for _ in range(2):
        env = env_of(tool)
        runs.append([env.call("t", {}, turn=i).latency_ms for i in range(200)])
        assert env.clock_ms == pytest.approx(sum(runs[-1]))
    assert runs[0] == runs[1]
    assert min(runs[0]) >= 0.0
    assert len(set(runs[0])) > 100
    assert 150 < sum(runs[0]) / len(runs[0]) < 450


def test_acall_sleeps_only_with_real_sleep() -> None:
    simulated = tool_def(name="slow", response=1, latency=LatencySpec(fixed_ms=5000))
    real = tool_def(name="real", response=1, latency=LatencySpec(fixed_ms=30, real_sleep=True))
    env = env_of(simulated, real)

    async def run() -> tuple[float, float]:
        t0 = time.perf_counter()
        await env.acall("slow", {}, turn=0)
        t1 = time.perf_counter()
        await env.acall("real", {}, turn=0)
        return t1 - t0, time.perf_counter() - t1

    slow_wall, real_wall = asyncio.run(run())
    assert slow_wall < 1.0
    assert real_wall >= 0.025
    assert env.clock_ms == 5030


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
