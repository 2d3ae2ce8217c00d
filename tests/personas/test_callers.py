"""The offline caller against the demo agent: the six caller types behave distinguishably."""

from __future__ import annotations

import asyncio

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.demo import DemoAgentV1, demo_dir
from polygon_core.files import load_suite
from polygon_core.models import Conversation, Scenario
from polygon_core.personas import simulator_faults

SUITE = load_suite(demo_dir() / "suite")
MARKERS = {
    "distrustful": ("how do i know",),                       # asks the agent to prove who it is
    "confused": ("what do you mean",),                       # asks what the agent means
    "aggressive": ("i'm hanging up", "i'll hang up"),        # threatens to hang up
    "talkative": ("by the way", "the dog is barking", "telling my sister", "raining all week"),
    "busy": ("quickly", "five minutes", "don't have time"),
}


def _run(scenario: Scenario, seed: int) -> Conversation:
    cid = conversation_key(scenario, seed)
    caller = OfflineCaller(scenario.persona, conversation_id=cid, seed=seed)
    return asyncio.run(run_conversation(scenario, DemoAgentV1(), caller, SUITE.tools, seed=seed,
                                        agent_name="v1", agent_version="v1"))


def _caller_lines(conv: Conversation) -> list[str]:
    return [t.text.lower() for t in conv.turns if t.speaker == "caller"]


def _by_type(seed: int) -> dict[str, Conversation]:
    return {s.persona.type: _run(s, seed) for s in SUITE.scenarios}


def test_each_type_shows_its_behaviour_and_no_other_types() -> None:
    for seed in (0, 1):
        convs = _by_type(seed)
        assert sorted(convs) == sorted(["cooperative", "busy", "distrustful", "confused", "aggressive",
                                        "talkative"])
        for kind, conv in convs.items():
            lines = " ".join(_caller_lines(conv))
            shown = {k for k, cues in MARKERS.items() if any(c in lines for c in cues)}
            assert shown == ({kind} if kind != "cooperative" else set()), (seed, kind, lines)
            assert simulator_faults(conv, SUITE.scenario(conv.scenario_id).persona) == []


def test_cooperative_answers_plainly() -> None:
    conv = _by_type(0)["cooperative"]
    assert _caller_lines(conv) == [
        "hello, i need to update my billing address after moving house.",
        "my account number is 5530. the postcode is m1 4bt.",
        "it's 12 canal street, m1 3hu.",
        "yes, please.",
        "no, that's everything. thanks, bye.",
    ]


def test_busy_caller_hangs_up_after_its_patience() -> None:
    base = SUITE.scenario("billing-dispute-v3")
    persona = base.persona.model_copy(update={"traits": base.persona.traits.model_copy(update={"patience": 2})})
    conv = _run(base.model_copy(update={"persona": persona}), 0)
    lines = _caller_lines(conv)
    assert conv.end_reason == "caller_hangup"
    # Two turns of patience (the opening and one answer: a busy caller gives one fact at a time),
    # then it gives up, while the agent is still collecting details.
    assert lines == ["yeah, hi. i need to reverse a duplicate charge from last month. quickly, please.",
                     "my account number is 4821.",
                     "forget it, i don't have time for this. goodbye."]
    assert conv.turns[-2].text == "Thanks. And your postcode?"
    assert simulator_faults(conv, persona) == []  # giving up on a slow agent is not a caller fault


def test_busy_caller_waits_when_its_goal_is_on_offer() -> None:
    """Patience never runs out while the agent offers the caller's goal (no premature hang-up)."""
    base = SUITE.scenario("billing-dispute-v3")
    persona = base.persona.model_copy(update={"traits": base.persona.traits.model_copy(update={"patience": 3})})
    conv = _run(base.model_copy(update={"persona": persona}), 0)
    lines = _caller_lines(conv)
    # Its patience (3) has run out by the offer at its fourth turn, yet it accepts the offer.
    assert lines[3:] == ["yes. go on.", "no, that's everything. thanks, bye."]
    assert [e.name for e in conv.events].count("refund_issued") == 1
    assert simulator_faults(conv, persona) == []
