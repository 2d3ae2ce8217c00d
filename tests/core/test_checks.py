"""Deterministic checks and metrics on hand-built conversations, with exact values."""

from __future__ import annotations

from typing import Any

from polygon_core.checks import compute_metrics, run_checks, turns_to_goal
from polygon_core.models import (
    Conversation,
    DomainEvent,
    EndReason,
    Scenario,
    ToolCall,
    Turn,
)


def call(name: str, n: int = 1, *, valid: bool = True, error: str | None = None,
         **arguments: Any) -> ToolCall:
    return ToolCall(id=f"{name}-{n}", name=name, arguments=arguments, valid=valid, error=error,
                    validation_error=None if valid else "bad arguments")


def conversation(turns: list[Turn], *, end: str = "caller_hangup",
                 events: list[DomainEvent] | None = None, **extra: Any) -> Conversation:
    return Conversation(id="c1", scenario_id="s1", seed=0, agent_name="a", agent_version="v",
                        persona_hash="p", caller_type="cooperative", difficulty=2, turns=turns,
                        end_reason=EndReason(end), events=events or [], **extra)


def agent(index: int, text: str, *calls: ToolCall) -> Turn:
    return Turn(index=index, speaker="agent", text=text, tool_calls=list(calls))


def caller(index: int, text: str, heard: str | None = None) -> Turn:
    return Turn(index=index, speaker="caller", text=text, heard=heard if heard is not None else text)


# A refund line: the lookup fails once (timeout), is retried, the refund is called with invalid
# arguments, then correctly; the agent asks for the postcode twice word for word.
REFUND = conversation(
    [
        agent(0, "Hello, how can I help?"),
        caller(1, "I want a refund of 49 pounds."),
        agent(2, "What is your account number? And your postcode?"),
        caller(3, "4821, SW1A 2AA."),
        agent(4, "Sorry, the system is slow.", call("lookup_account", 1, error="timeout")),
        caller(5, "Okay."),
        agent(6, "Thanks. And  your POSTCODE?", call("lookup_account", 2)),
        caller(7, "SW1A 2AA."),
        agent(8, "", call("issue_refund", 1, valid=False, amount="forty-nine")),
        agent(9, "Your refund of 49 pounds is done. Anything else?", call("issue_refund", 2, amount=49)),
        caller(10, "No, bye."),
    ],
    events=[DomainEvent(name="identity_verified", turn=6, tool="lookup_account"),
            DomainEvent(name="refund_issued", turn=9, tool="issue_refund", args={"amount": 49})],
)


def test_metrics_exact_values_on_a_hand_built_call() -> None:
    m = compute_metrics(REFUND)
    assert m.turns == 11
    assert m.agent_turns == 6
    # 5 + 8 + 5 + 4 + 9 = 31 words over the 5 agent turns that said something (turn 8 only called)
    assert m.agent_words_per_turn == 6.2
    assert m.tool_calls == 4
    assert m.tool_errors == 1
    assert m.invalid_calls == 1
    assert m.recovered_after_error is True
    assert m.repeated_questions == 1  # "and your postcode?" again, case and spacing ignored
    assert m.clarifications == 0
    assert m.end_reason == "caller_hangup"
    assert m.loop is False
    assert m.turns_to_goal is None  # needs the scenario's goal assertion


def test_no_tool_error_means_recovery_is_not_applicable() -> None:
    conv = conversation([agent(0, "Hi."), caller(1, "Bye.")])
    m = compute_metrics(conv)
    assert (m.tool_calls, m.tool_errors, m.invalid_calls, m.recovered_after_error) == (0, 0, 0, None)
    assert m.agent_words_per_turn == 1.0


def test_a_tool_that_fails_last_is_not_recovered() -> None:
    conv = conversation([
        agent(0, "Checking.", call("lookup_account", 1, error="timeout"), call("lookup_account", 2)),
        agent(1, "Refunding.", call("issue_refund", 1, error="server_error")),
        caller(2, "Bye."),
    ])
    m = compute_metrics(conv)
    assert (m.tool_errors, m.recovered_after_error) == (2, False)


def test_an_invalid_retry_does_not_count_as_recovery() -> None:
    conv = conversation([
        agent(0, "One moment.", call("lookup_account", 1, error="timeout"),
              call("lookup_account", 2, valid=False)),
        caller(1, "Bye."),
    ])
    m = compute_metrics(conv)
    assert (m.tool_errors, m.invalid_calls, m.recovered_after_error) == (1, 1, False)


def test_loop_end_reason_and_repeated_questions() -> None:
    conv = conversation([
        agent(0, "Could you say that again?"),
        caller(1, "what"),
        agent(2, "Could you say that again?"),
        caller(3, "what"),
        agent(4, "Could you say that again?"),
    ], end="loop")
    m = compute_metrics(conv)
    assert (m.repeated_questions, m.clarifications, m.loop, m.end_reason) == (2, 3, True, "loop")
    assert m.agent_words_per_turn == 5.0


def test_an_agent_that_says_nothing_has_zero_words_per_turn() -> None:
    conv = conversation([agent(0, ""), caller(1, "Hello?")], end="max_turns")
    m = compute_metrics(conv)
    assert (m.agent_turns, m.agent_words_per_turn, m.end_reason) == (1, 0.0, "max_turns")


def scenario(assertions: dict[str, str], forbidden: list[str] | None = None) -> Scenario:
    return Scenario.model_validate({
        "id": "s1", "seed": 1, "max_turns": 10,
        "persona": {"goal": "get a refund", "ground_truth": {"account_id": "4821"}},
        "assertions": assertions, "forbidden_phrases": forbidden or [],
    })


def test_turns_to_goal_counts_turns_until_the_goal_assertion_first_holds() -> None:
    checks = run_checks(REFUND, scenario({"goal_met": "refund_issued(amount == 49)",
                                          "verified": "identity_verified_before(issue_refund)"}))
    assert checks.metrics.turns_to_goal == 10  # the refund happened at turn index 9
    assert [a.status for a in checks.assertions] == ["pass", "pass"]


def test_turns_to_goal_is_none_when_the_goal_never_holds() -> None:
    checks = run_checks(REFUND, scenario({"goal_met": "refund_issued(amount == 35)"}))
    assert checks.metrics.turns_to_goal is None


def test_turns_to_goal_needs_a_goal_assertion() -> None:
    checks = run_checks(REFUND, scenario({"refunded": "refund_issued(amount == 49)"}))
    assert checks.metrics.turns_to_goal is None


def test_turns_to_goal_function_directly() -> None:
    assert turns_to_goal(REFUND, {"goal": "happened(identity_verified)"}) == 7
    assert turns_to_goal(REFUND, {}) is None


def test_run_checks_gate_candidates_record_the_turn_and_the_phrase_or_call() -> None:
    conv = conversation([
        agent(0, "Hello."),
        caller(1, "Refund me."),
        agent(2, "It is GUARANTEED to arrive.", call("issue_refund", 1, valid=False, amount="x")),
    ])
    checks = run_checks(conv, scenario({}, forbidden=["guaranteed"]), forbidden_phrases=["refund"])
    assert [(h.gate, h.turn, h.detail) for h in checks.forbidden_hits] == [
        ("forbidden_phrase", 2, "agent said forbidden phrase 'guaranteed'")]
    assert [(h.gate, h.turn) for h in checks.invalid_tool_hits] == [("invalid_tool_call", 2)]
    assert "issue_refund (call issue_refund-1) at turn 2: bad arguments" in checks.invalid_tool_hits[0].detail
    assert checks.metrics.invalid_calls == 1
