"""conversation_signals: cue lists (English and Russian), requests, repetitions, reuse of the checks."""

from __future__ import annotations

import pytest

from polygon_core.checks import run_checks
from polygon_core.judging import END_REASONS, conversation_signals
from polygon_core.judging._cues import CUES, cue_pattern
from polygon_core.models import Conversation, EndReason, ToolCall, Turn
from polygon_core.scoring import normalise_speech


def conv(*lines: str, end: EndReason = EndReason.CALLER_HANGUP, cid: str = "c") -> Conversation:
    turns = []
    for i, line in enumerate(lines):
        tag, text = line.split(":", 1)
        turns.append(Turn(index=i, speaker="caller" if tag == "U" else "agent", text=text.strip()))
    return Conversation(id=cid, scenario_id="production", seed=0, agent_name="a", agent_version="v",
                        persona_hash="", caller_type="real", difficulty=0, turns=turns, end_reason=end)


@pytest.mark.parametrize(("category", "text", "found"), [
    ("frustration", "This is ridiculous, let me speak to a manager.", True),
    ("frustration", "Are you even listening?", True),
    ("frustration", "Вы меня вообще слышите? Соедините с оператором!", True),
    ("frustration", "I'd like a table for two.", False),
    ("correction", "No, I said Wednesday.", True),
    ("correction", "That's not what I asked.", True),
    ("correction", "Нет, я сказал на понедельник.", True),
    ("closure", "Great, that's all I needed. Thank you!", True),
    ("closure", "Отлично, спасибо большое!", True),
    ("closure", "The train leaves at nine.", False),
    ("give_up", "Never mind, I'll look elsewhere.", True),
    ("give_up", "Ладно, забудьте.", True),
    ("inability", "I'm sorry, there are no results for that.", True),
    ("inability", "I don't have that information.", True),
    ("inability", "К сожалению, я не могу найти поезда.", True),
    ("inability", "Your table is booked.", False),
    ("success", "Booking was successful, the reference number is ABC1.", True),
    ("success", "Готово, перевод выполнен.", True),
    ("success", "What time would you like?", False),
    ("apology", "I’m sorry about that.", True),
    ("apology", "Извините, я не понял.", True),
    ("courtesy", "Of course, happy to help.", True),
    ("courtesy", "Конечно, рад помочь.", True),
    ("courtesy", "The number is 0122.", False),
    ("rudeness", "Calm down, that's not my problem.", True),
    ("rudeness", "Успокойтесь, сами виноваты.", True),
    ("rudeness", "I understand, let me check.", False),
])
def test_cue_lists(category: str, text: str, found: bool) -> None:
    assert (cue_pattern(category).search(normalise_speech(text)) is not None) is found


def test_every_category_has_both_languages() -> None:
    assert all(set(langs) == {"en", "ru"} and all(langs.values()) for langs in CUES.values())


FAILING = conv(
    "S: Hello, how can I help?",
    "U: I need a train to Ely on Friday.",
    "S: Where will you be departing from?",
    "U: From Cambridge.",
    "S: Where will you be departing from?",
    "U: Cambridge. I said that already. Are you even listening?",
    "S: I'm sorry, there are no results.",
    "U: What is the price of a ticket?",
    "S: ",
    "U: Never mind.",
)


def test_signals_of_a_failing_call() -> None:
    checks = run_checks(FAILING, None)
    s = conversation_signals(FAILING, checks)
    assert (s.turns, s.caller_turns, s.agent_turns) == (10, 5, 4)
    # "I need a train…" got a question back; "Are you even listening?" and the price did not.
    assert (s.requests, s.unanswered) == (3, 2)
    assert (s.frustration, s.corrections, s.caller_repeats) == (1, 1, 0)
    assert (s.agent_repeats, s.repeated_questions) == (1, 1)
    assert (s.apologies, s.inability, s.final_inability, s.successes) == (1, 1, 1, 0)
    assert (s.closure, s.give_up, s.silent_turns) == (0, 1, 1)
    assert s.turns_at == {"unanswered": 5, "inability": 6, "corrections": 5, "agent_repeats": 4,
                          "frustration": 5, "apologies": 6, "courtesy": 6, "give_up": 9, "silent_turns": 8}
    # Counts the checks already hold are taken from them, not recomputed.
    assert (s.turns, s.agent_words_per_turn, s.repeated_questions, s.end_reason) == (
        checks.metrics.turns, checks.metrics.agent_words_per_turn, checks.metrics.repeated_questions,
        checks.metrics.end_reason)


def test_caller_repeating_a_request_in_other_words() -> None:
    c = conv("U: I want to cancel my contract.", "S: Our new plan is only 20 pounds.",
             "U: No. Cancel my contract, please.", "S: Sure.")
    s = conversation_signals(c, run_checks(c, None))
    assert (s.caller_repeats, s.corrections) == (1, 1)
    assert s.turns_at["caller_repeats"] == 2


def test_tools_and_noise_signals() -> None:
    c = conv("U: Refund me.", "S: Let me check.", "U: Thanks.")
    turns = list(c.turns)
    turns[0] = turns[0].model_copy(update={"heard": "Refund knee."})
    turns[1] = turns[1].model_copy(update={"tool_calls": [
        ToolCall(id="1", name="lookup", error="timeout"), ToolCall(id="2", name="refund", valid=False)]})
    c = c.model_copy(update={"turns": turns})
    s = conversation_signals(c, run_checks(c, None))
    assert (s.tool_calls, s.tool_errors, s.invalid_calls, s.unrecovered, s.garbled) == (2, 1, 1, 1, 1)
    assert s.turns_at["tool_errors"] == s.turns_at["invalid_calls"] == 1


def test_features_are_numeric_in_a_fixed_order() -> None:
    feats = conversation_signals(FAILING, run_checks(FAILING, None)).as_features()
    assert all(isinstance(v, float) for v in feats.values())
    assert list(feats)[:3] == ["turns", "caller_turns", "agent_turns"]
    assert [k for k in feats if k.startswith("end_")] == [f"end_{r}" for r in END_REASONS]
    assert feats["end_caller_hangup"] == 1.0 and feats["unanswered_share"] == 0.6667
    assert "failed_assertions" not in feats and "turns_at" not in feats


def test_success_claimed_over_a_failed_tool_and_an_agent_that_hangs_up() -> None:
    c = conv("U: Remove the late fee, please.", "S: Great news, I've removed the fee.", "U: So it's gone?",
             "S: Yes, it's all done.", end=EndReason.AGENT_END)
    turns = list(c.turns)
    turns[1] = turns[1].model_copy(update={"tool_calls": [ToolCall(id="1", name="remove_fee",
                                                                   result={"ok": False})]})
    c = c.model_copy(update={"turns": turns})
    s = conversation_signals(c, run_checks(c, None))
    assert (s.false_success, s.agent_cut_off) == (1, 1)
    assert (s.turns_at["false_success"], s.turns_at["agent_cut_off"]) == (1, 3)
    # Retried successfully before claiming: no false success.
    turns[1] = turns[1].model_copy(update={"tool_calls": [
        ToolCall(id="1", name="remove_fee", error="timeout"), ToolCall(id="2", name="remove_fee", result={"ok": True})]})
    retried = c.model_copy(update={"turns": turns})
    assert conversation_signals(retried, run_checks(retried, None)).false_success == 0


def test_a_repeat_the_agent_asked_for_is_not_counted() -> None:
    c = conv("U: My postcode is BS8 1TH.", "S: Sorry, I didn't catch that. Could you repeat it?",
             "U: My postcode is BS8 1TH.", "S: Thanks, you're verified.")
    assert conversation_signals(c, run_checks(c, None)).caller_repeats == 0
    c = conv("U: My postcode is BS8 1TH.", "S: What is your postcode?", "U: My postcode is BS8 1TH.")
    assert conversation_signals(c, run_checks(c, None)).caller_repeats == 1
