"""The simulator-fault check: planted caller faults are flagged and kept out of the agent's rates."""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import CallerUtterance, CallerView, conversation_key, run_conversation
from polygon_core.demo import DemoAgentV1, demo_dir
from polygon_core.files import load_suite
from polygon_core.models import Conversation, Run
from polygon_core.personas import apply_simulator_check, simulator_faults

SUITE = load_suite(demo_dir() / "suite")


class PlantedCaller(OfflineCaller):
    """The offline caller with one planted fault, chosen by scenario (others behave normally)."""

    async def speak(self, view: CallerView) -> CallerUtterance:
        said = view.agent_said or ""
        if self.persona.name == "organised_mover" and "account number and postcode" in said:
            self.state.turns += 1
            return CallerUtterance(text="My account number is 5531. The postcode is M1 4BT.")
        if self.persona.name == "frustrated_returning_customer" and said.endswith("Shall I refund it to your card?"):
            return CallerUtterance(text="Actually, never mind. Bye.", end="hangup")
        if self.persona.name == "wary_pensioner" and view.turn == 1:
            return CallerUtterance(text="Hello, my postcode is LS6 2QT and I was charged twice.")
        return await super().speak(view)


def _run(scenario_id: str, seed: int = 0, caller: type[OfflineCaller] = PlantedCaller) -> Conversation:
    scenario = SUITE.scenario(scenario_id)
    cid = conversation_key(scenario, seed)
    return asyncio.run(run_conversation(
        scenario, DemoAgentV1(), caller(scenario.persona, conversation_id=cid, seed=seed),
        SUITE.tools, seed=seed, agent_name="v1", agent_version="v1"))


def test_planted_contradiction_is_flagged() -> None:
    conv = _run("address-change")
    faults = simulator_faults(conv, SUITE.scenario("address-change").persona)
    # The agent cannot verify the wrong number and asks again; the caller repeats it.
    assert [(f.kind, f.turn, f.detail) for f in faults] == [
        ("contradiction", 3, "caller said account id '5531'; its ground truth is '5530'"),
        ("contradiction", 5, "caller said account id '5531'; its ground truth is '5530'")]
    flagged = apply_simulator_check(conv, SUITE.scenario("address-change").persona)
    assert flagged.end_reason == "simulator_error"
    assert flagged.end_detail.startswith("simulated caller at fault (was ")
    assert "turn 3: contradiction: caller said account id '5531'" in flagged.end_detail


def test_planted_premature_hangup_is_flagged() -> None:
    conv = _run("billing-dispute-v3")
    persona = SUITE.scenario("billing-dispute-v3").persona
    assert conv.end_reason == "caller_hangup"
    faults = simulator_faults(conv, persona)
    assert [(f.kind, f.turn) for f in faults] == [("premature_end", conv.turns[-1].index)]
    assert faults[0].detail.startswith("caller hung up before confirming the action it called for (success)")


def test_hidden_fact_revealed_unprompted_is_flagged() -> None:
    conv = _run("suspicious-duplicate-charge")
    faults = simulator_faults(conv, SUITE.scenario("suspicious-duplicate-charge").persona)
    assert [(f.kind, f.turn, f.detail) for f in faults] == [
        ("unprompted_reveal", 1, "caller revealed hidden postcode before the agent asked for it")]


def test_spelled_out_digits_compare_as_digits_and_made_up_unknowns_are_contradictions() -> None:
    conv = _run("address-change", caller=OfflineCaller)
    assert simulator_faults(conv, SUITE.scenario("address-change").persona) == []
    persona = SUITE.scenario("address-change").persona.model_copy(update={"unknown": ["card expiry"]})
    turns = [t.model_copy(update={"text": "My account number is five five three zero. My card expiry is 04/27."})
             if t.index == 3 else t for t in conv.turns]
    faults = simulator_faults(conv.model_copy(update={"turns": turns}), persona)
    assert [(f.kind, f.detail) for f in faults] == [
        ("contradiction", "caller gave a value for 'card expiry', which it does not know")]


@pytest.mark.usefixtures("polygon_home")
def test_flagged_conversations_are_excluded_from_the_pass_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon import usecases
    from polygon.usecases import _simulate

    monkeypatch.setattr(_simulate, "OfflineCaller", PlantedCaller)
    suite_path = str((demo_dir() / "suite").resolve())
    agent_path = str((demo_dir() / "agents" / "agent_v1.yaml").resolve())
    stores = usecases.open_stores()
    config, _prompt, version = usecases.agent_identity(agent_path, suite_path)
    run = Run(id="planted-faults", suite="northwind-demo", agent_name=config.name, agent_version=version,
              rubric_version="v1", seeds=[0], models={"agent": "callable", "caller": "offline",
                                                      "judge": "offline-heuristic", "probe": "offline-heuristic"})
    usecases.create_run(stores, run, suite_path=suite_path, agent_path=agent_path)
    for sid, seed in usecases.plan_conversations(suite_path, [0]):
        cid = usecases.simulate(stores, run.id, suite_path, agent_path, sid, seed)
        usecases.judge(stores, run.id, cid, suite_path=suite_path, agent_path=agent_path, rubric_version="v1")
    card = usecases.finish_run(stores, run.id)
    ends = {r.scenario_id: r.end_reason for r in usecases.result_rows(stores, run.id)}
    assert ends == {"billing-dispute-v3": "simulator_error", "address-change": "simulator_error",
                    "suspicious-duplicate-charge": "simulator_error",
                    "roaming-charge-explained": "agent_end", "late-fee-demand": "transfer",
                    "internet-outage-callback": "callback"}
    assert card.conversations == 6 and card.simulator_errors == 3
    # Only the three conversations the caller did not spoil are graded: all pass.
    assert card.verdicts == {"pass": 3, "warn": 0, "fail": 0} and card.scored == 3
