"""Agents that look polite but do nothing fail under the default rubric: a staller (looping or not)
and one that says goodbye right after the caller's first request (the offline judge reads the goal
assertions, the caller giving up and being hung up on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polygon_core.conversation import AgentAction, AgentRequest
from polygon_core.demo import demo_dir
from polygon_core.models import Run

SUITE = str(demo_dir() / "suite")


def staller(request: AgentRequest) -> AgentAction:
    """The same holding line, every turn (ends in a loop)."""
    return AgentAction(say="One moment please, let me check that for you.")


def varied_staller(request: AgentRequest) -> AgentAction:
    """Different holding lines, never any help (the caller gives up)."""
    lines = ["Let me look into that.", "Just a moment while I check.", "Still checking, thanks for waiting.",
             "Bear with me a second."]
    return AgentAction(say=lines[request.turn // 2 % 4])


def bye_after_greeting(request: AgentRequest) -> AgentAction:
    """Greets, then says goodbye to the caller's first request."""
    if request.turn == 0:
        return AgentAction(say="Hello, Northwind billing, how can I help?")
    return AgentAction(say="Thanks for calling, goodbye.", end="end")


@pytest.mark.parametrize("name", ["staller", "varied_staller", "bye_after_greeting"])
def test_an_agent_that_does_nothing_fails_every_scenario(polygon_home: Path, tmp_path: Path, name: str) -> None:
    from polygon import usecases

    agent = tmp_path / "agent.yaml"
    agent.write_text(f"name: {name}\nprompt: Help.\ncallable: tests.verdicts.test_lazy_agents:{name}\n",
                     encoding="utf-8")
    stores = usecases.open_stores()
    _c, _p, version = usecases.agent_identity(str(agent), SUITE)
    run = Run(id=name, suite="demo", agent_name=name, agent_version=version, rubric_version="v1", seeds=[0, 1])
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=str(agent))
    verdicts = []
    for scenario_id, seed in usecases.plan_conversations(SUITE, [0, 1]):
        cid = usecases.simulate(stores, run.id, SUITE, str(agent), scenario_id, seed)
        judgment = usecases.judge(stores, run.id, cid, suite_path=SUITE, agent_path=str(agent), rubric_version="v1")
        if judgment.repeats:  # a simulator fault is never scored
            verdicts.append((scenario_id, judgment.verdict))
            assert judgment.composite is not None and judgment.composite < 50, (scenario_id, judgment.composite)
    assert len(verdicts) >= 10
    assert {v for _s, v in verdicts} == {"fail"}
