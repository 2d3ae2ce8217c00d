"""Scenario assertion expressions: errors, helpers and the static check."""

from __future__ import annotations

import pytest

from polygon_core.assertions import assertion_names, check_expression, evaluate_assertion, same_set

from ._assertions_helpers import ARENA_ASSERTIONS, TOOLS, good_conversation

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
