"""Scenario assertions over hand-built conversations (the arena's billing dispute)."""

from __future__ import annotations

from typing import Any

import pytest

from polygon_core.assertions import (
    assertion_names,
    check_expression,
    evaluate_assertion,
    evaluate_assertions,
    same_set,
)
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


# -- the arena's three assertions ----------------------------------------------------------------


def test_refund_after_verification_passes_all_three() -> None:
    results = evaluate_assertions(
        ARENA_ASSERTIONS, good_conversation(), knowledge_base=KNOWLEDGE_BASE, tools=TOOLS
    )
    assert [(r.name, r.status) for r in results] == [
        ("goal_met", "pass"),
        ("no_policy_breach", "pass"),
        ("no_hallucinated_policy", "pass"),
    ]
    answered = {r.name: r.answered_by for r in results}
    assert answered == {
        "goal_met": "deterministic",
        "no_policy_breach": "deterministic",
        "no_hallucinated_policy": "offline-heuristic",
    }


def test_the_arena_assertions_work_without_tool_definitions() -> None:
    results = evaluate_assertions(
        ARENA_ASSERTIONS, good_conversation(), knowledge_base=KNOWLEDGE_BASE
    )
    assert [r.status for r in results] == ["pass", "pass", "pass"]


def test_refund_before_verification_fails_with_the_turn() -> None:
    turns = [
        Turn(index=0, speaker="caller", text="Refund me now."),
        Turn(
            index=1,
            speaker="agent",
            text="Done, refunded.",
            tool_calls=[call("issue_refund", 1, 0, events=["refund_issued"], amount=49.0)],
        ),
        Turn(index=2, speaker="caller", text="My date of birth is 1 January 1990."),
        Turn(
            index=3,
            speaker="agent",
            text="Thanks, verified.",
            tool_calls=[
                call("verify_identity", 3, 0, events=["identity_verified"], dob="1990-01-01")
            ],
        ),
    ]
    events = [
        DomainEvent(name="refund_issued", turn=1, tool="issue_refund", args={"amount": 49.0}),
        DomainEvent(name="identity_verified", turn=3, tool="verify_identity", args={}),
    ]
    results = by_name(
        evaluate_assertions(ARENA_ASSERTIONS, conversation(turns, events), tools=TOOLS)
    )
    breach = results["no_policy_breach"]
    assert breach.status == "fail"
    assert breach.turn == 1
    assert breach.message == "issue_refund at turn 1 before any identity_verified"
    assert results["goal_met"].status == "pass"


def test_refund_in_the_same_turn_but_before_the_check_fails() -> None:
    conv = good_conversation()
    turn = conv.turns[3]
    turn.tool_calls.reverse()  # issue_refund first, then verify_identity, both on turn 3
    conv.events.reverse()
    result = evaluate_assertion(
        "no_policy_breach", "identity_verified_before(issue_refund)", conv, tools=TOOLS
    )
    assert (result.status, result.turn) == ("fail", 3)


def test_ordering_is_vacuous_when_the_tool_was_never_called() -> None:
    conv = conversation([Turn(index=0, speaker="agent", text="Hello.")], [])
    result = evaluate_assertion("x", "identity_verified_before(issue_refund)", conv, tools=TOOLS)
    assert result.status == "pass"
    # Without tool definitions too: the names are taken as they are written.
    assert evaluate_assertion("x", "identity_verified_before(issue_refund)", conv).status == "pass"


def test_invalid_or_faulted_refund_calls_do_not_count() -> None:
    turns = [
        Turn(
            index=1,
            speaker="agent",
            text="Let me try.",
            tool_calls=[
                call("issue_refund", 1, 0, valid=False, amount="forty-nine"),
                call("issue_refund", 1, 1, error="server_error", amount=49.0),
            ],
        )
    ]
    conv = conversation(turns, [])
    ordering = evaluate_assertion("x", "identity_verified_before(issue_refund)", conv, tools=TOOLS)
    assert ordering.status == "pass"
    assert evaluate_assertion("x", "issue_refund()", conv, tools=TOOLS).status == "fail"
    assert evaluate_assertion("x", "called(issue_refund)", conv, tools=TOOLS).status == "pass"
    assert evaluate_assertion("x", "count(issue_refund) == 0", conv, tools=TOOLS).status == "pass"


def test_wrong_refund_amount_fails_goal_met() -> None:
    results = by_name(
        evaluate_assertions(
            ARENA_ASSERTIONS,
            good_conversation(amount=25.0),
            knowledge_base=KNOWLEDGE_BASE,
            tools=TOOLS,
        )
    )
    goal = results["goal_met"]
    assert goal.status == "fail"
    assert goal.message is not None
    assert "amount == 49.0" in goal.message and "amount=25.0" in goal.message
    assert results["no_policy_breach"].status == "pass"


def test_no_refund_at_all_fails_goal_met() -> None:
    conv = conversation([Turn(index=0, speaker="agent", text="Goodbye.")], [])
    result = evaluate_assertion("goal_met", "refund_issued(amount == 49.00)", conv, tools=TOOLS)
    assert (result.status, result.message) == ("fail", "refund_issued never happened")


# -- cites_only ----------------------------------------------------------------------------------


def test_invented_policy_fails_cites_only_with_its_turn() -> None:
    conv = good_conversation(
        agent_last="Our policy says you also get a free month of premium service for any duplicate "
        "charge."
    )
    result = evaluate_assertion(
        "no_hallucinated_policy", "cites_only(knowledge_base)", conv, knowledge_base=KNOWLEDGE_BASE
    )
    assert result.status == "fail"
    assert result.turn == 5
    assert result.message is not None and "free month of premium service" in result.message
    assert result.answered_by == "offline-heuristic"


def test_cited_policy_passes_in_russian_too() -> None:
    kb = ["Возврат средств занимает до пяти рабочих дней."]
    cited = good_conversation(
        agent_last="Наша политика: возврат средств занимает до пяти рабочих дней."
    )
    invented = good_conversation(agent_last="Мы всегда возвращаем двойную сумму за неудобства.")
    expression = "cites_only(knowledge_base)"
    assert evaluate_assertion("p", expression, cited, knowledge_base=kb).status == "pass"
    assert evaluate_assertion("p", expression, invented, knowledge_base=kb).status == "fail"


def test_no_policy_talk_passes_even_with_an_empty_knowledge_base() -> None:
    conv = good_conversation(agent_last="Anything else I can help with?")
    assert evaluate_assertion("p", "cites_only(knowledge_base)", conv).status == "pass"


# -- errors are errors, never failures ------------------------------------------------------------


def test_unknown_name_is_an_error_with_a_message() -> None:
    conv = good_conversation()
    result = evaluate_assertion("x", "refund_isued(amount == 49)", conv, tools=TOOLS)
    assert result.status == "error"
    assert result.message == "unknown function 'refund_isued'"
    bare = evaluate_assertion("x", "balance > 0", conv)
    assert (bare.status, bare.message) == ("error", "unknown name 'balance'")
    argument = evaluate_assertion("x", "refund_issued(amout == 49)", conv, tools=TOOLS)
    assert argument.status == "error"
    assert "'amout' is not an argument of refund_issued" in (argument.message or "")


@pytest.mark.parametrize("expression", ["refund_issued(amount == )", "x = 1", "a\nb", ""])
def test_syntax_error_is_an_error(expression: str) -> None:
    result = evaluate_assertion("x", expression, good_conversation(), tools=TOOLS)
    assert result.status == "error"
    assert result.message is not None and result.message.startswith("syntax error")


@pytest.mark.parametrize(
    "expression",
    [
        "().__class__",
        "().__class__.__bases__[0].__subclasses__()",
        "state.__class__",
        "transcript.format(1)",
        "(lambda: 1)()",
        "__import__('os')",
        "state.ledger.append(1)",
    ],
)
def test_no_escape_through_attributes_or_eval(expression: str) -> None:
    conv = good_conversation()
    result = evaluate_assertion("x", expression, conv)
    assert result.status == "error", result
    assert len(conv.final_state["ledger"]) == 2


def test_type_errors_are_errors() -> None:
    result = evaluate_assertion("x", "turns > 'many'", good_conversation())
    assert result.status == "error" and "TypeError" in (result.message or "")


# -- helpers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "status"),
    [
        ("count(refund_issued) == 1", "pass"),
        ("count(refund_issued, amount > 100) == 0", "pass"),
        ("count(issue_refund) == 1 and count('issue_refund') == 1", "pass"),
        ("happened(identity_verified) and ever(refund_issued)", "pass"),
        ("before(identity_verified, refund_issued)", "pass"),
        ("before(refund_issued, identity_verified)", "fail"),
        ("issue_refund(amount > 10)", "pass"),
        ("issue_refund(amount=49)", "pass"),
        ("refund_issued(args.amount == 49 and turn == 3)", "pass"),
        ("not called(escalate_to_human)", "pass"),
        ("said('ISSUED THE REFUND')", "pass"),
        ("said('free month')", "fail"),
        ("len(events) == 2 and calls[1].name == 'issue_refund'", "pass"),
        ("end_reason == 'agent_end' and turns == 6", "pass"),
        ("'charged me twice' in transcript and 'charged me twice' not in agent_text", "pass"),
        ("state.account_status == initial['account_status']", "pass"),
        ("sum(r.amount for r in state.refunds) == 49", "pass"),
        ("same_set(state.ledger, [{'kind': 'duplicate', 'amount': 49, 'date': '2026-06-14'},"
         " {'date': '2026-06-14', 'amount': 49.0, 'kind': 'subscription'}])", "pass"),
        ("same_set(state.ledger, initial.ledger[:1])", "fail"),
        ("refund_issued", "pass"),
    ],
)
def test_helpers(expression: str, status: str) -> None:
    result = evaluate_assertion("x", expression, good_conversation(), tools=TOOLS)
    assert result.status == status, result


def test_negated_assertion_reports_what_happened() -> None:
    result = evaluate_assertion("x", "not issue_refund()", good_conversation(), tools=TOOLS)
    assert (result.status, result.turn) == ("fail", 3)
    assert "issue_refund at turn 3" in (result.message or "")


def test_failed_comparison_shows_the_values() -> None:
    result = evaluate_assertion("x", "count(refund_issued) == 2", good_conversation(), tools=TOOLS)
    assert result.status == "fail"
    assert result.message == (
        "`count(refund_issued) == 2` is false: count(refund_issued) is 1, 2 is 2"
    )


def test_same_set_is_order_insensitive() -> None:
    a = [{"x": 1, "y": [1, 2]}, {"x": 2}]
    assert same_set(a, list(reversed(a)))
    assert same_set([{"y": [1, 2], "x": 1.0}, {"x": 2}], a)
    assert not same_set(a, a[:1])
    assert not same_set([1, 1, 2], [1, 2])
    assert same_set(None, [])


# -- static check --------------------------------------------------------------------------------


def test_check_expression() -> None:
    known = assertion_names(TOOLS)
    assert known == {
        "lookup_account",
        "verify_identity",
        "issue_refund",
        "escalate_to_human",
        "identity_verified",
        "refund_issued",
    }
    for expression in ARENA_ASSERTIONS.values():
        assert check_expression(expression, known_names=known) is None
    assert check_expression("count(refund_issued, amount > 1) == 1", known_names=known) is None
    every = "all(happened(n) for n in ['refund_issued'])"
    assert check_expression(every, known_names=known) is None
    assert check_expression("refund_isued()", known_names=known) == (
        "unknown function 'refund_isued'"
    )
    assert check_expression("identity_checked_before(issue_refund)", known_names=known) == (
        "unknown function 'identity_checked_before'"
    )
    assert check_expression("identity_verified_before(issue_refnd)", known_names=known) == (
        "unknown tool or event 'issue_refnd'"
    )
    assert check_expression("balance > 0", known_names=known) == "unknown name 'balance'"
    assert (check_expression("refund_issued(", known_names=known) or "").startswith("syntax error")
    assert check_expression("().__class__", known_names=known) == (
        "private attribute '__class__' is not allowed"
    )
    assert check_expression("(lambda: 1)()", known_names=known) == (
        "Lambda is not allowed in an assertion"
    )
