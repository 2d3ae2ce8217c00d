"""The same scenario through the callable and the HTTP adapter gives the same transcript."""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.adapters.agents import agent_factory
from polygon_core.callers import OfflineCaller
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import AgentConfig, Conversation
from tests.engine.agent_server import serve_demo_agent

SUITE = load_suite(demo_dir() / "suite")


def _run(config: AgentConfig, scenario_id: str, seed: int = 0) -> Conversation:
    scenario = SUITE.scenario(scenario_id)
    cid = conversation_key(scenario, seed)
    agent = agent_factory(config)()
    caller = OfflineCaller(scenario.persona, conversation_id=cid, seed=seed)
    return asyncio.run(run_conversation(scenario, agent, caller, SUITE.tools, seed=seed,
                                        agent_name=config.name, agent_version="v", limits=None))


@pytest.mark.parametrize("scenario_id", ["billing-dispute-v3", "roaming-charge-explained"])
def test_http_and_callable_adapters_give_the_same_transcript(scenario_id: str) -> None:
    callable_conv = _run(AgentConfig(name="a", callable="polygon_core.demo:DemoAgentV1"), scenario_id)
    with serve_demo_agent(careful=True) as url:
        http_conv = _run(AgentConfig(name="a", endpoint=url), scenario_id)
    # An agent turn's latency holds the measured HTTP round trip; everything else is the same.
    measured = {"turns": {"__all__": {"latency_ms"}}}
    assert http_conv.model_dump_json(exclude=measured) == callable_conv.model_dump_json(exclude=measured)
    assert callable_conv.end_reason.value in ("caller_hangup", "agent_end")


def test_http_agent_failure_is_an_agent_error() -> None:
    conv = _run(AgentConfig(name="a", endpoint="http://127.0.0.1:9/nothing-listens-here"), "address-change")
    assert conv.end_reason.value == "agent_error"
    assert conv.end_detail == ("HttpAgentError: cannot connect to http://127.0.0.1:9/nothing-listens-here "
                               "(ConnectError: All connection attempts failed): is the agent running?")
    assert [t.speaker for t in conv.turns] == []
