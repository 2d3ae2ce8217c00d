"""Goal completion on calls whose task was done through tools (issue 33, item 3).

Realistic transcripts in three domains (a coffee order ending in `finish_order`, a pharmacy refill,
an airline change), each as an imported call (no scenario, no tool library: which calls act is read
from the tool names) judged by the offline judge. A caller's request followed by a successful acting
call, a confirmation and no contest is answered and scores goal completion >= 4; a failed call, a
confirmation the caller rejects, or a promise with no call scores <= 2.
"""

from __future__ import annotations

from typing import Any

import pytest

from polygon_core.checks import run_checks
from polygon_core.judging import conversation_signals, judge_offline
from polygon_core.models import Conversation, EndReason, ToolCall, Turn

Line = tuple[str, str] | tuple[str, str, list[ToolCall]]


def call(name: str, result: Any = None, error: str | None = None, **arguments: Any) -> ToolCall:
    return ToolCall(id=name, name=name, arguments=arguments, result=result, error=error)


def conv(cid: str, *lines: Line, end: EndReason = EndReason.CALLER_HANGUP) -> Conversation:
    turns = []
    for i, line in enumerate(lines):
        speaker, text, *calls = line
        turns.append(Turn(index=i, speaker="caller" if speaker == "U" else "agent", text=text,
                          tool_calls=calls[0] if calls else []))
    return Conversation(id=cid, scenario_id="production", seed=0, agent_name="a", agent_version="v",
                        persona_hash="", caller_type="real", difficulty=0, turns=turns, end_reason=end)


def goal(c: Conversation) -> tuple[int, str]:
    entry = judge_offline(c, run_checks(c, None))["goal_completion"]
    return entry["score"], entry["reason"]


# --- coffee: an order placed with finish_order (Taskmaster-style) ------------------------------

ORDER = call("finish_order", {"status": "ok", "order_id": "A-2231"}, name_store="Starbucks, Main St",
             name_drink="caramel macchiato", size_drink="grande", type_milk="oat")
COFFEE_DONE = conv(
    "coffee-done",
    ("U", "Hi, I'd like to order a drink for pickup from the Starbucks on Main Street."),
    ("A", "Sure. What would you like?"),
    ("U", "A grande caramel macchiato with oat milk."),
    ("A", "", [call("find_store", {"store": "Starbucks, Main St", "open": True}, query="Main Street")]),
    ("A", "One grande caramel macchiato with oat milk from Main Street. Shall I send it through?"),
    ("U", "Yes please."),
    ("A", "Your order is placed and will be ready in about ten minutes.", [ORDER]),
    ("U", "Great, thank you!"),
)
# The Taskmaster shape the issue measured: the request's reply is the tool call alone, no words.
COFFEE_TERSE = conv(
    "coffee-terse",
    ("U", "I want to order a tall latte from Peet's on Oak Avenue."),
    ("A", "", [call("finish_order", {"status": "ok"}, name_store="Peet's, Oak Ave", name_drink="latte",
                    size_drink="tall")]),
    ("A", "Okay, it will be ready shortly."),
    ("U", "Okay."),
)
COFFEE_FAILED = conv(
    "coffee-failed",
    ("U", "Hi, I'd like to order a grande caramel macchiato from the Starbucks on Main Street."),
    ("A", "", [call("finish_order", error="store_closed: Starbucks, Main St is not taking mobile orders",
                    name_store="Starbucks, Main St", name_drink="caramel macchiato")]),
    ("A", "I'm sorry, I couldn't place the order: that store isn't taking mobile orders right now."),
    ("U", "Oh. Okay, bye."),
)
COFFEE_CONTESTED = conv(
    "coffee-contested",
    ("U", "Can you order me a grande caramel macchiato with oat milk from Main Street?"),
    ("A", "Your order is placed and will be ready in ten minutes.",
     [call("finish_order", {"status": "ok"}, name_store="Starbucks, Main St", name_drink="caramel macchiato",
           size_drink="venti", type_milk="whole")]),
    ("U", "No, that's wrong, I said grande with oat milk. Forget it."),
)
COFFEE_PROMISED = conv(
    "coffee-promised",
    ("U", "I'd like to order a grande caramel macchiato from the Starbucks on Main Street."),
    ("A", "", [call("find_store", {"store": "Starbucks, Main St", "open": True}, query="Main Street")]),
    ("A", "Sure, I'll put that order through for you, it'll be ready soon."),
    ("U", "Great, thanks."),
)

# --- pharmacy: a prescription refill -----------------------------------------------------------

REFILL_DONE = conv(
    "refill-done",
    ("A", "Riverside Pharmacy, how can I help?"),
    ("U", "I need to refill my lisinopril prescription."),
    ("A", "Of course. Can I have your date of birth?"),
    ("U", "March 4th, 1961."),
    ("A", "", [call("lookup_prescription", {"rx": "RX-88412", "refills_left": 2}, dob="1961-03-04",
                    drug="lisinopril")]),
    ("A", "Thank you. Done: your refill has been submitted and you'll get a text when it's ready to collect.",
     [call("refill_prescription", {"ok": True, "ready": "tomorrow 10:00"}, rx="RX-88412")]),
    ("U", "Perfect, that's all I needed."),
)
REFILL_FAILED = conv(
    "refill-failed",
    ("A", "Riverside Pharmacy, how can I help?"),
    ("U", "I need to refill my lisinopril prescription."),
    ("A", "", [call("refill_prescription", {"ok": False, "error": "no refills left"}, rx="RX-88412")]),
    ("A", "I'm sorry, I wasn't able to process that: there are no refills left on this prescription. "
          "You'll need to contact your doctor."),
    ("U", "Oh. Okay, thanks."),
)
REFILL_CONTESTED = conv(
    "refill-contested",
    ("U", "I need to refill my lisinopril, please."),
    ("A", "I've submitted the refill for your metformin; it will be ready tomorrow.",
     [call("refill_prescription", {"ok": True}, drug="metformin")]),
    ("U", "That's the wrong medication! I said lisinopril. This is useless."),
)
REFILL_PROMISED = conv(
    "refill-promised",
    ("U", "Can you refill my lisinopril prescription?"),
    ("A", "", [call("lookup_prescription", {"rx": "RX-88412", "refills_left": 2}, drug="lisinopril")]),
    ("A", "Yes, I can see it. I'll refill that for you and it will be ready tomorrow."),
    ("U", "Okay, thank you."),
)

# --- airline: changing a flight ----------------------------------------------------------------

CHANGE_DONE = conv(
    "flight-done",
    ("U", "Hi, I need to move my flight to Lisbon from Thursday to Friday."),
    ("A", "I can help with that. What's your booking reference?"),
    ("U", "It's QX7P2L."),
    ("A", "", [call("search_flights", {"flights": [{"number": "TP1351", "dep": "Fri 08:40"}]},
                    destination="LIS", date="Friday")]),
    ("A", "There's TP1351 on Friday at 8:40 with no fare difference. Shall I switch you?"),
    ("U", "Yes, do that."),
    ("A", "You're all set: you're now on TP1351 on Friday at 8:40, and a new e-ticket is on its way.",
     [call("change_flight", {"ok": True, "new_ticket": "047-2211"}, booking="QX7P2L", flight="TP1351")]),
    ("U", "Brilliant, thanks a lot."),
)
CHANGE_FAILED = conv(
    "flight-failed",
    ("U", "Hi, I need to move my flight to Lisbon from Thursday to Friday. The reference is QX7P2L."),
    ("A", "", [call("change_flight", error="HTTP 503 from reservations", booking="QX7P2L", flight="TP1351")]),
    ("A", "Sorry, the reservation system is not responding, so I could not change it."),
    ("U", "Ugh, I'll call back later."),
)
CHANGE_CONTESTED = conv(
    "flight-contested",
    ("U", "I need to move my Lisbon flight from Thursday to Friday. Reference QX7P2L."),
    ("A", "Done, you're now on TP1353 on Saturday evening.",
     [call("change_flight", {"ok": True}, booking="QX7P2L", flight="TP1353")]),
    ("U", "Saturday? No, I said Friday! Never mind."),
)
CHANGE_PROMISED = conv(
    "flight-promised",
    ("U", "I need to move my flight to Lisbon from Thursday to Friday. Reference QX7P2L."),
    ("A", "", [call("get_booking", {"booking": "QX7P2L", "flight": "TP1349"}, booking="QX7P2L")]),
    ("A", "I found your booking. I'll change that to Friday for you and send the new ticket."),
    ("U", "Thanks."),
)


@pytest.mark.parametrize(("c", "score"), [
    (COFFEE_DONE, 5), (COFFEE_TERSE, 4), (REFILL_DONE, 5), (CHANGE_DONE, 5),
])
def test_a_task_done_through_tools_and_accepted_scores_high(c: Conversation, score: int) -> None:
    got, reason = goal(c)
    assert got == score, reason
    s = conversation_signals(c, run_checks(c, None))
    assert (s.unanswered, s.tool_completions, s.contested_actions, s.failed_actions, s.unbacked_claims) == (
        0, 1, 0, 0, 0)


@pytest.mark.parametrize(("c", "score"), [
    (COFFEE_FAILED, 1), (COFFEE_CONTESTED, 1), (COFFEE_PROMISED, 2),
    (REFILL_FAILED, 1), (REFILL_CONTESTED, 1), (REFILL_PROMISED, 2),
    (CHANGE_FAILED, 1), (CHANGE_CONTESTED, 1), (CHANGE_PROMISED, 2),
])
def test_a_task_the_tools_did_not_do_scores_low(c: Conversation, score: int) -> None:
    got, reason = goal(c)
    assert got == score, reason


# --- the shape the issue measured: the request's only reply is the call and a bare confirmation ---

REFILL_TERSE = conv(
    "refill-terse",
    ("U", "I need a refill of my lisinopril."),
    ("A", "", [call("refill_prescription", {"ok": True}, rx="RX-88412")]),
    ("A", "All done, it will be ready to collect tomorrow."),
    ("U", "Thanks."),
)
CHANGE_TERSE = conv(
    "flight-terse",
    ("U", "Can you move my Lisbon flight to Friday? Reference QX7P2L."),
    ("A", "", [call("change_flight", {"ok": True}, booking="QX7P2L", flight="TP1351")]),
    ("A", "Sorted. The new e-ticket is on its way."),
)
# A slot-filling order: the caller's later request ("make it oat milk") comes between the first
# request and the call; the first is still about the call ("order" is in finish_order).
COFFEE_SLOTS = conv(
    "coffee-slots",
    ("U", "I'd like to order a drink from the Starbucks on Main Street."),
    ("A", "Okay."),
    ("U", "Can you make it a grande caramel macchiato with oat milk?"),
    ("A", "", [call("finish_order", {"status": "ok"}, name_store="Starbucks, Main St",
                    name_drink="caramel macchiato", type_milk="oat")]),
    ("A", "Done, see you soon."),
    ("U", "Cheers."),
)
# Contested, then redone and accepted: the recovery clears the contest.
CHANGE_REDONE = conv(
    "flight-redone",
    ("U", "I need to move my Lisbon flight from Thursday to Friday. Reference QX7P2L."),
    ("A", "Done, you're now on TP1353 on Saturday evening.",
     [call("change_flight", {"ok": True}, booking="QX7P2L", flight="TP1353")]),
    ("U", "No, I said Friday, not Saturday."),
    ("A", "Sorry about that. You're now on TP1351 on Friday at 8:40.",
     [call("change_flight", {"ok": True}, booking="QX7P2L", flight="TP1351")]),
    ("U", "That's it, thank you."),
)


@pytest.mark.parametrize(("c", "before", "after"), [
    (COFFEE_TERSE, 1, 4), (REFILL_TERSE, 3, 5), (CHANGE_TERSE, 1, 4), (COFFEE_SLOTS, 2, 5),
])
def test_a_request_answered_only_by_a_confirmed_call_is_answered(c: Conversation, before: int, after: int) -> None:
    """`before` is what heuristic-3 gave (the request read as unanswered), kept for the record."""
    assert before < after
    got, reason = goal(c)
    assert got == after, reason
    s = conversation_signals(c, run_checks(c, None))
    assert s.requests >= 1
    assert (s.unanswered, s.tool_completions) == (0, 1)


def test_a_contested_change_redone_to_the_callers_satisfaction() -> None:
    got, reason = goal(CHANGE_REDONE)
    assert got == 5, reason
    s = conversation_signals(CHANGE_REDONE, run_checks(CHANGE_REDONE, None))
    assert (s.tool_completions, s.contested_actions, s.corrections) == (1, 0, 1)


def test_which_calls_act_comes_from_the_library_when_there_is_one() -> None:
    """By name, `verify_refill` reads; a library that marks it consequential makes it act."""
    c = conv("refill-verify",
             ("U", "Please refill my lisinopril."),
             ("A", "All done, it will be ready to collect tomorrow.",
              [call("verify_refill", {"ok": True}, rx="RX-88412")]),
             ("U", "Thanks."))
    checks = run_checks(c, None)
    assert conversation_signals(c, checks).tool_completions == 0
    assert conversation_signals(c, checks).unbacked_claims == 1
    library = checks.model_copy(update={"acting_tools": ["verify_refill"]})
    s = conversation_signals(c, library)
    assert (s.tool_completions, s.unbacked_claims, s.unanswered) == (1, 0, 0)
