"""Scenario assertions: the arena's three assertions and cites_only over hand-built conversations."""

from __future__ import annotations

from polygon_core.assertions import evaluate_assertion, evaluate_assertions
from polygon_core.models import DomainEvent, Turn

from ._assertions_helpers import (
    ARENA_ASSERTIONS,
    KNOWLEDGE_BASE,
    TOOLS,
    by_name,
    call,
    conversation,
    good_conversation,
)

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
