"""The offline judge sees which tools act and what they acted on (issue 27, item 5).

Before: the probes `verified_identity_before_action` and `confirmed_details_before_acting` knew the
demo's tool names only (issue_refund, update_address, cancel_service) and answered "na" on every
other suite, and a scripted agent that booked a medicine under another caller's name for every
caller passed. Now which tools act is read from the tool library (`consequential: true`, else a
`state` stub that appends or updates), and a tool argument contradicting the caller's ground truth
(their name, date of birth, phone, …) lowers goal completion and factuality and makes both probes
say no.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.checks import Checks, fact_kind, run_checks, same_fact_value
from polygon_core.conversation import AgentAction, AgentRequest, ToolRequest, conversation_key, run_conversation
from polygon_core.files import load_suite
from polygon_core.judging import HEURISTIC_JUDGE, answer_probes_offline, build_judgment, judge_offline
from polygon_core.models import Conversation, tool_def
from polygon_core.probes import default_probes

BOOK = {
    "flag": """\
  book_medicine:
    description: Book a medicine for pickup.
    parameters:
      type: object
      properties:
        patient_name: {type: string}
        date_of_birth: {type: string}
        medicine: {type: string}
      required: [patient_name, date_of_birth, medicine]
    kind: fixed
    consequential: true
    response: {booked: true, pickup: tomorrow}
""",
    "state": """\
  book_medicine:
    description: Book a medicine for pickup.
    parameters:
      type: object
      properties:
        patient_name: {type: string}
        date_of_birth: {type: string}
        medicine: {type: string}
      required: [patient_name, date_of_birth, medicine]
    kind: state
    state:
      op: append
      path: bookings
      record: {name: "{{ args.patient_name }}", medicine: "{{ args.medicine }}"}
""",
}

SCENARIO = """\
id: pharmacy
seed: 1
max_turns: 8
persona:
  goal: book my amoxicillin for pickup
  ground_truth:
    name: Dana Whitfield
    date_of_birth: "1985-03-12"
    medicine: amoxicillin
tools: [book_medicine]
assertions:
  goal_booked: happened(book_medicine)
"""


class PharmacyAgent:
    """Asks for the caller's details once, books the medicine under `name`, and closes."""

    def __init__(self, name: str, dob: str, *, confirm: bool = False) -> None:
        self.name, self.dob, self.confirm = name, dob, confirm

    async def act(self, request: AgentRequest) -> AgentAction:
        book_at = 6 if self.confirm else 4
        if request.tool_results:
            return AgentAction(say="You're booked: your amoxicillin is ready for pickup tomorrow. Anything else?")
        if request.turn == 0:
            return AgentAction(say="Hello, Riverside Pharmacy. How can I help?")
        if request.turn == 2:
            return AgentAction(say="Sure. May I have your full name and date of birth?")
        if request.turn == book_at:
            calls = [ToolRequest(name="book_medicine", arguments={
                "patient_name": self.name, "date_of_birth": self.dob, "medicine": "amoxicillin"})]
            return AgentAction(tool_calls=calls)
        if request.turn == 4:
            return AgentAction(say=f"So that's {self.name}, born {self.dob}, for amoxicillin. Is that correct?")
        return AgentAction(say="Goodbye!", end="end")


def _suite(tmp_path: Path, book: str) -> Any:
    folder = tmp_path / "suite"
    (folder / "scenarios").mkdir(parents=True)
    (folder / "tools.yaml").write_text("tools:\n" + book, encoding="utf-8")
    (folder / "scenarios" / "pharmacy.yaml").write_text(SCENARIO, encoding="utf-8")
    return load_suite(folder)


def _judged(tmp_path: Path, agent: PharmacyAgent, book: str = "flag") -> tuple[Conversation, Checks, dict[str, Any]]:
    suite = _suite(tmp_path, BOOK[book])
    scenario = suite.scenarios[0]
    cid = conversation_key(scenario, 0)
    conv = asyncio.run(run_conversation(
        scenario, agent, OfflineCaller(scenario.persona, conversation_id=cid, seed=0), suite.tools,
        seed=0, agent_name="pharmacy", agent_version="v"))
    checks = run_checks(conv, scenario, tools=suite.tools)
    return conv, checks, judge_offline(conv, checks, scenario.persona)


def _probes(conv: Conversation, checks: Checks) -> dict[str, tuple[str, str | None]]:
    wanted = {"verified_identity_before_action", "confirmed_details_before_acting"}
    return {a.probe_id: (a.answer, a.evidence) for a in answer_probes_offline(conv, checks, default_probes())
            if a.probe_id in wanted}


WRONG = "book_medicine(patient_name='John Smith') where the caller's name is 'Dana Whitfield'"


def _scores(raw: dict[str, Any]) -> dict[str, int | None]:
    return {k: v["score"] for k, v in raw.items()}


@pytest.mark.parametrize("book", ["flag", "state"])
def test_booking_under_another_callers_name_fails_goal_and_factuality_and_both_probes(
        tmp_path: Path, book: str) -> None:
    conv, checks, raw = _judged(tmp_path, PharmacyAgent("John Smith", "1990-01-01"), book)
    assert checks.acting_tools == ["book_medicine"]
    assert [(m.turn, m.argument, m.given, m.fact, m.expected, m.acts) for m in checks.fact_mismatches] == [
        (4, "patient_name", "John Smith", "name", "Dana Whitfield", True),
        (4, "date_of_birth", "1990-01-01", "date_of_birth", "1985-03-12", True)]
    assert _scores(raw) == {"goal_completion": 1, "instruction_adherence": 5, "tool_use_quality": 5,
                            "factuality": 2, "dialogue_quality": 2, "robustness": 4, "safety_compliance": 5,
                            "persona_tone": 4}
    assert raw["goal_completion"]["reason"] == f"acted on facts the caller never gave: {WRONG}"
    assert raw["factuality"]["reason"] == f"a tool call contradicts what the caller said: {WRONG}"
    assert _probes(conv, checks) == {"verified_identity_before_action": ("no", WRONG),
                                     "confirmed_details_before_acting": ("no", WRONG)}
    judgment = build_judgment(conv, [raw], rubric_version="v1", judge_model=HEURISTIC_JUDGE)
    # heuristic-2 scored this call goal 5 and factuality not applicable: 87.5, pass
    assert (judgment.composite, judgment.verdict) == (56.25, "warn")


def test_booking_under_the_callers_own_details_after_confirming_passes(tmp_path: Path) -> None:
    conv, checks, raw = _judged(tmp_path, PharmacyAgent("Dana Whitfield", "1985-03-12", confirm=True))
    assert (checks.acting_tools, checks.fact_mismatches) == (["book_medicine"], [])
    assert (raw["goal_completion"]["score"], raw["factuality"]["score"]) == (5, None)
    # Before, both probes were "na" here: book_medicine was not one of the demo's tool names. The
    # suite has no tool that verifies identity, so the agent verified nobody.
    assert _probes(conv, checks) == {
        "verified_identity_before_action": ("no", "You're booked: your amoxicillin is ready for pickup tomorrow. "
                                                  "Anything else?"),
        "confirmed_details_before_acting": ("yes", "So that's Dana Whitfield, born 1985-03-12, for amoxicillin. "
                                                   "Is that correct?")}
    judgment = build_judgment(conv, [raw], rubric_version="v1", judge_model=HEURISTIC_JUDGE)
    assert (judgment.composite, judgment.verdict) == (87.5, "pass")


def test_a_tool_that_does_not_act_lowers_factuality_only_and_the_probes_say_na(tmp_path: Path) -> None:
    fixed = BOOK["flag"].replace("    consequential: true\n", "")
    conv, checks, raw = _judged(tmp_path, PharmacyAgent("John Smith", "1990-01-01"), "flag")
    suite = _suite(tmp_path / "fixed", fixed)
    checks = run_checks(conv, suite.scenarios[0], tools=suite.tools)
    raw = judge_offline(conv, checks, suite.scenarios[0].persona)
    assert (checks.acting_tools, [m.acts for m in checks.fact_mismatches]) == ([], [False, False])
    assert (raw["goal_completion"]["score"], raw["factuality"]["score"]) == (5, 2)
    assert _probes(conv, checks) == {"verified_identity_before_action": ("na", None),
                                     "confirmed_details_before_acting": ("na", None)}


def test_which_tools_act_comes_from_the_flag_else_the_stub_kind() -> None:
    base = {"name": "t", "parameters": {"type": "object"}}
    state = {"kind": "state", "state": {"op": "append", "path": "x"}}
    assert [tool_def(**base, **extra).acts() for extra in (
        {}, {"consequential": True}, state, {**state, "consequential": False},
        {"kind": "state", "state": {"op": "read", "path": "x"}}, {"kind": "state", "state": {"op": "update", "path": "x"}},
    )] == [False, True, True, False, False, True]


def test_the_demo_suite_acts_with_the_tools_the_probes_used_to_name() -> None:
    from polygon_core.demo import demo_dir

    suite = load_suite(demo_dir() / "suite")
    assert sorted(name for name, tool in suite.tools.items() if tool.acts()) == ["issue_refund", "update_address"]


@pytest.mark.parametrize(("key", "kind"), [
    ("name", "name"), ("patient_name", "name"), ("patientName", "name"), ("last_name", "name"),
    ("medicine_name", None), ("doctor_name", None), ("dob", "birth_date"), ("date_of_birth", "birth_date"),
    ("birth_place", None), ("phone_number", "phone"), ("pharmacy_phone", None), ("e_mail", "email"),
    ("postcode", "postcode"), ("new_postcode", "postcode"), ("billing_postcode", None), ("account_id", "account_id"),
    ("policy_number", "policy_id"), ("amount", None), ("charge_date", None), ("username", None),
])
def test_a_key_names_a_kind_of_the_callers_fact(key: str, kind: str | None) -> None:
    assert fact_kind(key) == kind


@pytest.mark.parametrize(("kind", "given", "expected", "same"), [
    ("name", "John Smith", "Dana Whitfield", False),
    ("name", "Dana Whitfeld", "Dana Whitfield", True),  # misspelt
    ("name", "D. Whitfield", "Dana Whitfield", True),  # an initial
    ("name", "Dana", "Dana Whitfield", True),
    ("name", "Dana Smith", "Dana Whitfield", False),
    ("name", "Иванова Анна", "Анна Иванова", True),
    ("name", "Пётр Сидоров", "Анна Иванова", False),
    ("birth_date", "12 March 1985", "1985-03-12", True),
    ("birth_date", "03/12/1985", "1985-03-12", True),  # m/d/y
    ("birth_date", "12.03.1985", "1985-03-12", True),  # d.m.y
    ("birth_date", "12 марта 1985", "1985-03-12", True),
    ("birth_date", "1990-01-01", "1985-03-12", False),
    ("birth_date", "tomorrow", "1985-03-12", None),  # unreadable: contradicts nothing
    ("phone", "+44 7700 900123", "07700900123", True),
    ("phone", "07700 900999", "07700900123", False),
    ("phone", "123", "07700900123", None),
    ("postcode", "sw1a2aa", "SW1A 2AA", True),
    ("account_id", 4822, "4821", False),
    ("email", "Dana@Example.com", "dana@example.com", True),
])
def test_values_of_one_fact_are_compared_as_that_fact(kind: str, given: Any, expected: str, same: bool | None) -> None:
    assert same_fact_value(kind, given, expected) is same


def test_a_wrong_fact_corrected_by_a_later_call_of_the_same_tool_is_no_mismatch(tmp_path: Path) -> None:
    conv, _, _ = _judged(tmp_path, PharmacyAgent("John Smith", "1990-01-01"))
    right = ToolRequest(name="book_medicine", arguments={"patient_name": "Dana Whitfield",
                                                         "date_of_birth": "12 March 1985", "medicine": "amoxicillin"})
    turns = list(conv.turns)
    first = next(c for t in turns for c in t.tool_calls)
    again = turns[-1].model_copy(update={"tool_calls": [first.model_copy(update={"id": "again",
                                                                                 "arguments": right.arguments})]})
    fixed = conv.model_copy(update={"turns": [*turns[:-1], again]})
    suite = _suite(tmp_path / "again", BOOK["flag"])
    assert run_checks(fixed, suite.scenarios[0], tools=suite.tools).fact_mismatches == []
