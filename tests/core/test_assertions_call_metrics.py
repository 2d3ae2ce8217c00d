"""Assertions on a call: its metrics by name, `not_applicable` where one has no value, said vs heard."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.assertions import (
    check_expression,
    evaluate_assertion,
    evaluate_assertions,
    misheard_lines,
    said_heard,
)
from polygon_core.checks import run_checks
from polygon_core.demo import demo_dir
from polygon_core.files import validate_paths
from polygon_core.models import Conversation, InteractionMetric, Turn, VoiceCall
from polygon_core.voice import ALL_CALL_METRICS

from ._assertions_helpers import TOOLS, good_conversation

METRICS = {
    "response_latency": InteractionMetric(value=0.9, count=3),
    "response_latency_p95": InteractionMetric(value=1.4, count=3),
    "yield_rate": InteractionMetric(value=None, count=0),
    "yield_latency": InteractionMetric(value=None, count=0),
    "word_error_rate": InteractionMetric(value=0.25, count=12),
    "selectivity_backchannel": InteractionMetric(value=None, count=2),
}


def call_of(conversation: Conversation, metrics: dict[str, InteractionMetric] | None = None) -> Conversation:
    """`conversation` as a call with hand-set metrics."""
    return conversation.model_copy(update={"channel": "voice", "voice": VoiceCall(metrics=metrics or METRICS)})


def misheard_call() -> Conversation:
    """The agent heard "fifty" where the caller said "fifteen" (turn 2), and nothing else amiss."""
    conv = call_of(good_conversation())
    turns = list(conv.turns)
    turns[0] = turns[0].model_copy(update={"heard": "you charged me twice last month"})
    turns[2] = Turn(index=2, speaker="caller", text="My date of birth is the fifteenth, at fifteen past nine.",
                    heard="My date of birth is the fifteenth at fifty past nine")
    turns[4] = turns[4].model_copy(update={"heard": "How long will it take?"})
    return conv.model_copy(update={"turns": turns})


@pytest.mark.parametrize(("expression", "status"), [
    ("response_latency_p95 < 1.5", "pass"),
    ("response_latency < 0.5", "fail"),
    ("word_error_rate < 0.3", "pass"),
    ("word_error_rate <= 0.2 or response_latency < 1", "pass"),
])
def test_a_call_metric_is_a_name(expression: str, status: str) -> None:
    assert evaluate_assertion("m", expression, call_of(good_conversation()), tools=TOOLS).status == status


def test_a_failed_comparison_says_the_values() -> None:
    result = evaluate_assertion("fast", "response_latency < 0.5", call_of(good_conversation()), tools=TOOLS)
    assert (result.status, result.message) == ("fail", "`response_latency < 0.5` is false: response_latency is "
                                                        "0.9, 0.5 is 0.5")


def test_a_metric_without_a_value_is_not_applicable_with_the_reason() -> None:
    conv = call_of(good_conversation())
    results = evaluate_assertions({"yields": "yield_rate >= 0.9", "bc": "selectivity_backchannel > 0.5",
                                   "both": "response_latency_p95 < 1.5 and yield_latency < 1"}, conv, tools=TOOLS)
    assert [(r.status, r.message) for r in results] == [
        ("not_applicable", "yield_rate: no value on this call (the caller never talked over the agent)"),
        ("not_applicable", "selectivity_backchannel: no value on this call (nothing measured it)"),
        ("not_applicable", "yield_latency: no value on this call (the caller never talked over the agent)"),
    ]
    missing = call_of(good_conversation(), {"response_latency_p95": InteractionMetric(value=None, count=0)})
    result = evaluate_assertion("p95", "response_latency_p95 < 1.5", missing, tools=TOOLS)
    assert (result.status, result.message) == (
        "not_applicable", "response_latency_p95: no value on this call (no caller turns answered)")


def test_on_a_text_conversation_a_call_metric_is_not_applicable() -> None:
    result = evaluate_assertion("p95", "response_latency_p95 < 1.5", good_conversation(), tools=TOOLS)
    assert (result.status, result.message) == (
        "not_applicable", "response_latency_p95: only on voice calls (this conversation is text)")
    lenient = evaluate_assertion("p95", "response_latency_p95 < 1.5", good_conversation())
    assert lenient.status == "not_applicable"


def test_not_applicable_leaves_the_checks_passing() -> None:
    from polygon_core.models import Scenario

    scenario = Scenario.model_validate({
        "id": "s", "seed": 1, "max_turns": 10, "persona": {"goal": "get a refund"},
        "assertions": {"goal_met": "refund_issued(amount == 49.00)", "fast": "response_latency_p95 < 1.5"}})
    checks = run_checks(good_conversation(), scenario, tools=TOOLS)
    assert [a.status for a in checks.assertions] == ["pass", "not_applicable"]
    assert checks.assertions_passed is True


def test_a_comprehension_variable_of_a_metrics_name_is_not_the_metric() -> None:
    result = evaluate_assertion("x", "all(yield_rate > 0 for yield_rate in [1, 2])", good_conversation(), tools=TOOLS)
    assert result.status == "pass"


def test_a_failure_on_a_call_shows_what_was_said_and_what_was_heard() -> None:
    result = evaluate_assertion("goal_met", "refund_issued(amount == 15.00)", misheard_call(), tools=TOOLS)
    assert result.status == "fail"
    assert result.message == (
        "no refund_issued with amount == 15.0 (seen: refund_issued at turn 3 (amount=49.0)); what the agent heard "
        'differs from what the caller said: turn 2: said "…fifteenth, at fifteen past nine." / '
        'heard "…fifteenth at fifty past nine"')


def test_a_pass_or_a_text_failure_shows_no_said_vs_heard() -> None:
    assert evaluate_assertion("g", "refund_issued(amount == 49.00)", misheard_call(), tools=TOOLS).message is None
    text = misheard_call().model_copy(update={"channel": "text", "voice": None})
    failed = evaluate_assertion("g", "refund_issued(amount == 15.00)", text, tools=TOOLS)
    assert failed.message == "no refund_issued with amount == 15.0 (seen: refund_issued at turn 3 (amount=49.0))"


def test_said_heard_finds_the_words_that_differ_with_context() -> None:
    assert said_heard("book me at fifteen past three today please", "book me at fifty past three today please") \
        == ("…me at fifteen past three…", "…me at fifty past three…")
    assert said_heard("Fifteen, please.", "fifteen please") is None
    assert said_heard("one two", "") == ("one two", "")


def test_at_most_three_misheard_turns_are_quoted() -> None:
    turns = [Turn(index=i, speaker="caller" if i % 2 == 0 else "agent", text=f"number {i}",
                  heard=f"lumber {i}" if i % 2 == 0 else None) for i in range(10)]
    conv = call_of(good_conversation()).model_copy(update={"turns": turns})
    assert misheard_lines(conv) == ['turn 0: said "number 0" / heard "lumber 0"',
                                    'turn 2: said "number 2" / heard "lumber 2"',
                                    'turn 4: said "number 4" / heard "lumber 4"']


@pytest.mark.parametrize("name", ALL_CALL_METRICS)
def test_the_static_check_knows_every_call_metric(name: str) -> None:
    assert check_expression(f"{name} >= 0", known_names=set()) is None


def test_the_static_check_names_the_call_metrics_for_a_misspelt_one() -> None:
    assert check_expression("yeild_rate >= 0.9", known_names=set()) == (
        "unknown name 'yeild_rate'; did you mean 'yield_rate'? (call metrics: " + ", ".join(ALL_CALL_METRICS) + ")")
    assert check_expression("balance > 0", known_names=set()) == "unknown name 'balance'"


def test_validate_accepts_call_metrics_and_refuses_an_unknown_one(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    scenario = tmp_path / "suite" / "scenarios" / "01_billing_dispute.yaml"
    text = scenario.read_text(encoding="utf-8")
    anchor = "  no_policy_breach: identity_verified_before(issue_refund)\n"
    scenario.write_text(text.replace(anchor, anchor + "  fast: response_latency_p95 < 1.5\n"
                                     "  yields: yield_rate >= 0.9\n  hears: word_error_rate < 0.3\n"),
                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert [str(e) for e in validate_paths([Path("suite")])] == []
    scenario.write_text(scenario.read_text(encoding="utf-8").replace("response_latency_p95", "response_latency_p99"),
                        encoding="utf-8")
    line = next(i for i, t in enumerate(scenario.read_text().splitlines(), 1) if "p99" in t)
    expected = (f"suite/scenarios/01_billing_dispute.yaml:{line}: assertions.fast: unknown name "
                "'response_latency_p99'; did you mean 'response_latency_p95'? (call metrics: "
                + ", ".join(ALL_CALL_METRICS) + ")")
    assert [str(e) for e in validate_paths([Path("suite")])] == [expected]
    result = CliRunner().invoke(app, ["validate", "suite"])
    assert result.exit_code == 2 and result.stderr.strip() == f"error: {expected}", result.output
