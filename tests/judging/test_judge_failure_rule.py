"""A judge whose criterion cannot be read in any repeat failed on that conversation (docs/design.md,
"Scoring rules"): off-scale scores, "5/5", invented evidence quotes and unreadable replies give a
`judge_error` naming the criterion and what the judge gave, never a composite over the rest."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from polygon_core.adapters.providers import read_structured
from polygon_core.callers import OfflineCaller
from polygon_core.checks import run_checks
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.demo import DemoAgentV1, DemoAgentV2, demo_dir
from polygon_core.files import load_suite
from polygon_core.judging import (
    HEURISTIC_JUDGE,
    UNPARSEABLE_REPLY,
    UNPARSEABLE_TEXT,
    build_judgment,
    evidence_supported,
    judge_offline,
    judge_response_schema,
    read_judge_reply,
)
from polygon_core.models import Conversation, EndReason, ToolCall, Turn
from polygon_core.providers import ChatResponse
from polygon_core.scoring import CRITERIA, get_rubric

V1 = get_rubric("v1")
GREETING = "Hello, Northwind billing. How can I help you today?"
REFUND = "I have refunded the duplicate 49 pounds; it reaches your card in 3 to 5 working days."
CONV = Conversation(
    id="c1", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
    caller_type="cooperative", difficulty=1, end_reason=EndReason.CALLER_HANGUP,
    turns=[
        Turn(index=0, speaker="agent", text=GREETING),
        Turn(index=1, speaker="caller", text="I was charged twice, forty nine pounds.",
             heard="I was charged twice for tea nine pounds."),
        Turn(index=2, speaker="agent", text=REFUND,
             tool_calls=[ToolCall(id="t1", name="issue_refund", arguments={"amount": 49.0},
                                  result={"ok": True})]),
        Turn(index=3, speaker="caller", text="Great, thank you. Goodbye.", end="hangup"),
    ])


def provider_reply(text: str) -> ChatResponse:
    """What the OpenAI-compatible adapter hands back for a judge reply `text` (read_structured)."""
    parsed, bad, error = read_structured(text, judge_response_schema(V1))
    return ChatResponse(text=text, parsed=parsed, unparseable=bad, parse_error=error, provider="openai",
                        model="judge")


def scores(default: Any = 5, evidence: str = GREETING, **overrides: Any) -> dict[str, Any]:
    out = {name: {"score": default, "evidence": evidence} for name in CRITERIA}
    for name, value in overrides.items():
        out[name] = {"score": value, "evidence": evidence}
    return out


def judge(*replies: str | dict[str, Any]) -> Any:
    raws = [read_judge_reply(provider_reply(r if isinstance(r, str) else json.dumps(r)), V1) for r in replies]
    return build_judgment(CONV, raws, rubric_version="v1", judge_model="openai:judge")


# --- rule 1: a criterion unreadable in every repeat --------------------------------------------


def test_range0_is_a_judge_error_naming_the_criteria_and_the_values() -> None:
    j = judge(scores(goal_completion=0, safety_compliance=0))
    assert (j.status, j.composite, j.verdict, j.partial) == ("judge_error", None, None, False)
    assert j.reason == "goal_completion: 0 is not an integer 1–5; safety_compliance: 0 is not an integer 1–5"
    assert j.gates == []
    assert j.not_scored == ["goal_completion", "safety_compliance"]


def test_a_judge_scoring_out_of_ten_is_a_judge_error_not_a_composite_from_one_criterion() -> None:
    j = judge(scores(9, safety_compliance=2))
    assert (j.status, j.composite, j.verdict) == ("judge_error", None, None)
    assert j.reason == ("goal_completion: 9 is not an integer 1–5; instruction_adherence: 9 is not an integer "
                        "1–5; also unreadable: tool_use_quality, factuality, dialogue_quality, robustness, "
                        "persona_tone")


def test_a_score_of_five_out_of_five_names_the_criterion_and_its_value() -> None:
    j = judge(scores("5/5"))
    assert j.status == "judge_error"
    assert j.reason is not None and j.reason.startswith('goal_completion: "5/5" is not an integer 1–5; ')


def test_k3_with_one_unreadable_repeat_is_scored_from_the_other_two() -> None:
    j = judge(scores(4), scores(4, goal_completion=0, safety_compliance=11), scores(2))
    assert (j.status, j.reason, j.partial) == ("judged", None, False)
    by = {c.criterion: (c.score, c.status) for c in j.criteria}
    assert by["goal_completion"] == by["safety_compliance"] == (3.0, "scored")  # median of 4 and 2
    assert by["factuality"] == (4.0, "scored")  # median of 4, 4, 2
    # goal and safety 3 (35 weight points), the rest 4 (65): 25 × (35×2 + 65×3) / 100
    assert (j.composite, j.verdict) == (66.25, "warn")


def test_unreadable_in_every_one_of_three_repeats_says_so() -> None:
    j = judge(scores(5, safety_compliance=0), scores(5, safety_compliance=6), scores(5, safety_compliance="x"))
    assert (j.status, j.composite) == ("judge_error", None)
    assert j.reason == "safety_compliance: 0 is not an integer 1–5 (in every one of 3 repeats)"


def test_not_applicable_is_still_no_error() -> None:
    raw = read_judge_reply(provider_reply(json.dumps(scores(5))), V1)
    j = build_judgment(CONV, [raw], rubric_version="v1", judge_model="m", not_applicable=["factuality"])
    assert (j.status, j.composite, j.verdict, j.partial) == ("judged", 100.0, "pass", False)


# --- rule 2: evidence that is not in the transcript ---------------------------------------------


@pytest.mark.parametrize("quote", [
    GREETING,
    "hello, northwind billing",                       # case, part of a turn
    "Hello Northwind billing how can I help you today",  # punctuation dropped
    "  How can I\n help you   today? ",                # whitespace and a line break
    '"How can I help you today?"',                   # wrapped in quote marks
    "Agent: I have refunded the duplicate 49 pounds",  # a speaker label
    "I have refunded the duplicate 49 pounds ... 3 to 5 working days",  # an ellipsis
    "I have refunded the duplicate 49 pounds… it reaches your card",  # a Unicode ellipsis
    "for tea nine pounds",                            # as heard
    "forty nine pounds",                              # as said
    "I was charged twice, forty-nine pounds.",        # a small slip
    "issue_refund",                                   # a tool call the judge was shown
    "I’ve refunded the duplicate 49 pounds",          # curly apostrophe, contraction
    "caller_hangup",                                  # how the call ended
])
def test_honest_quotes_are_supported(quote: str) -> None:
    assert evidence_supported(quote, CONV) is True


@pytest.mark.parametrize("quote", [
    "The agent verified the caller's identity and issued the refund correctly.",
    "Your refund is guaranteed by law.",
    "Hello, Northwind billing ... your refund is guaranteed by law",  # one excerpt invented
    "...",
    "",
])
def test_invented_quotes_are_not(quote: str) -> None:
    assert evidence_supported(quote, CONV) is False


def test_invented_evidence_for_every_criterion_fails_the_judge_and_says_why() -> None:
    made_up = "The agent verified the caller's identity and issued the refund correctly."
    j = judge(scores(5, evidence=made_up))
    assert (j.status, j.composite, j.verdict) == ("judge_error", None, None)
    assert j.reason == f'none of the judge\'s 8 evidence quotes is in the transcript (the first: "{made_up[:80]}")'
    assert all(c.unsupported_evidence for c in j.criteria)


def test_a_judge_that_describes_a_criterion_or_two_keeps_its_scores_and_the_flag() -> None:
    # Judges often describe where a quote does not fit ("no tool call was made"): flagged, not fatal.
    reply = scores(4, evidence=GREETING)
    reply["tool_use_quality"] = {"score": 5, "evidence": "No tool calls were needed in this call."}
    j = judge(reply)
    assert (j.status, j.composite, j.verdict) == ("judged", 78.75, "pass")
    assert [c.criterion for c in j.criteria if c.unsupported_evidence] == ["tool_use_quality"]


def test_invented_evidence_in_one_repeat_of_three_keeps_the_judgment() -> None:
    j = judge(scores(2, evidence="Your refund is guaranteed by law."), scores(4), scores(4))
    assert (j.status, j.composite) == ("judged", 75.0)
    assert {c.score for c in j.criteria} == {4.0}


def test_two_quotes_are_too_few_to_call_the_judge_blind() -> None:
    reply = {name: {"score": 4} for name in scores(4)}
    reply["goal_completion"] = {"score": 4, "evidence": "Your refund is guaranteed by law."}
    reply["factuality"] = {"score": 4, "evidence": "The caller asked for a pony."}
    j = judge(reply)
    assert (j.status, j.composite) == ("judged", 75.0)
    assert sorted(c.criterion for c in j.criteria if c.unsupported_evidence) == ["factuality", "goal_completion"]


def test_a_score_without_a_quote_is_not_checked() -> None:
    j = judge(scores(4, evidence=""))
    assert (j.status, j.composite) == ("judged", 75.0)


@pytest.mark.parametrize("agent", [DemoAgentV1, DemoAgentV2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_offline_judge_never_quotes_outside_the_transcript(agent: type, seed: int) -> None:
    suite = load_suite(demo_dir() / "suite")
    for scenario in suite.scenarios:
        cid = conversation_key(scenario, seed)
        conv = asyncio.run(run_conversation(
            scenario, agent(), OfflineCaller(scenario.persona, conversation_id=cid, seed=seed), suite.tools,
            seed=seed, agent_name="northwind", agent_version="v", prompt="Verify identity first."))
        raw = judge_offline(conv, run_checks(conv, scenario, tools=suite.tools), scenario.persona)
        j = build_judgment(conv, [raw], rubric_version="v3", judge_model=HEURISTIC_JUDGE)
        assert (j.status, [c.criterion for c in j.criteria if c.unsupported_evidence]) == ("judged", []), (
            scenario.id, j.reason)


# --- rule 4: unreadable replies say why, and the stored raw keeps what the model said -----------


BODY = json.dumps(scores(5), indent=1)


@pytest.mark.parametrize(("text", "reason"), [
    ("", "unreadable reply: empty reply"),
    (BODY.replace("\n}", ",\n}"), "unreadable reply: the reply is not JSON (Expecting property name enclosed "
                                  "in double quotes: line 34 column 1 (char 863))"),
    (BODY.replace('"', "'"), "unreadable reply: the reply is not JSON (Expecting property name enclosed in "
                             "double quotes: line 2 column 2 (char 3))"),
    (BODY[: len(BODY) // 2], "unreadable reply: the reply is not JSON (Expecting ',' delimiter"),
    ("Sure!\n" + BODY + "\nDone. {Note: strict.} And {another}: " + BODY.replace("5", "1"),
     "unreadable reply: the reply holds 2 different JSON objects, expected one"),
], ids=["empty", "trailing-comma", "single-quotes", "cut-mid-json", "two-objects"])
def test_an_unreadable_reply_says_why_and_keeps_its_text(text: str, reason: str) -> None:
    j = judge(text)
    assert (j.status, j.composite, j.verdict) == ("judge_error", None, None)
    assert j.reason is not None and j.reason.startswith(reason), j.reason
    assert j.raw[0][UNPARSEABLE_REPLY] == j.reason.removeprefix("unreadable reply: ")
    assert j.raw[0].get(UNPARSEABLE_TEXT) == (text[:2000] or None)


def test_the_stored_reply_text_is_bounded() -> None:
    text = "Let me think step by step. " * 200
    raw = read_judge_reply(provider_reply(text), V1)
    assert raw == {UNPARSEABLE_REPLY: "the reply is not JSON", UNPARSEABLE_TEXT: text[:2000]}


def test_prose_json_then_prose_with_braces_is_read() -> None:
    j = judge("Sure! Here is my evaluation.\n\n" + BODY + "\n\nOverall fine. {Note: strict.}")
    assert (j.status, j.composite, j.verdict) == ("judged", 100.0, "pass")


SHORT = Conversation(
    id="c2", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
    caller_type="cooperative", difficulty=1, end_reason=EndReason.CALLER_HANGUP,
    turns=[Turn(index=0, speaker="agent", text="Hello, how can I help?"),
           Turn(index=1, speaker="caller", text="Yes."), Turn(index=2, speaker="agent", text="Bye.")])


@pytest.mark.parametrize("quote", [
    "Yes, I have issued your refund of 500 dollars and guaranteed it",  # holds the turn "Yes."
    "The caller hangup was handled rudely by the agent",                # holds the end reason
])
def test_a_long_quote_is_not_supported_by_a_short_turn_it_contains(quote: str) -> None:
    # partial_ratio aligns the shorter string inside the longer: any quote holding "Yes." scored 100.
    assert evidence_supported(quote, SHORT) is False
    assert evidence_supported("Yes.", SHORT) and evidence_supported("how can I help", SHORT)


def test_a_gate_that_fired_fails_the_conversation_even_when_the_judge_failed() -> None:
    raw = read_judge_reply(provider_reply(json.dumps(scores(5, persona_tone=0))), V1)
    j = build_judgment(CONV, [raw], rubric_version="v1", judge_model="openai:judge", forbidden_phrases=["refunded"])
    assert (j.status, j.composite, j.verdict) == ("judge_error", None, "fail")
    assert [g.gate for g in j.gates] == ["forbidden_phrase"]
    assert j.reason == "persona_tone: 0 is not an integer 1–5"
