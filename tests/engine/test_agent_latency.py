"""An agent turn's latency is the agent's own reply time plus the tool calls it waited on.

A model agent's reply time is the provider adapter's measure of each call (here against the fake
OpenAI server, which sleeps a fixed delay before every answer); an HTTP agent's is the measured
round trip; a Python agent's is what it declares (0 by default), so offline runs stay
deterministic. The JUnit `time` of a conversation is the sum over its agent turns.
"""

from __future__ import annotations

import asyncio
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.agents._model import ModelAgent
from polygon_core.adapters.providers import aclose_all, make_chat_model
from polygon_core.callers import OfflineCaller
from polygon_core.compare import agent_seconds, compare_configurations, facts_of
from polygon_core.conversation import Agent, AgentAction, AgentRequest, conversation_key, run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import AgentConfig, Conversation
from polygon_core.reports import junit_xml
from tests.core.compare_fixtures import demo_pair
from tests.engine.script_agent import script_agent
from tests.engine.test_three_adapters import _serve
from tests.fakes.llm_server import FakeLLMServer
from tests.providers.conftest import fast_settings

SUITE = load_suite(demo_dir() / "suite")
DELAY_S = 0.05


def _converse(agent: Agent, scenario_id: str = "billing-dispute-v3", seed: int = 0) -> Conversation:
    scenario = SUITE.scenario(scenario_id).model_copy(update={"max_turns": 4})
    cid = conversation_key(scenario, seed)

    async def go() -> Conversation:
        try:
            return await run_conversation(scenario, agent, OfflineCaller(scenario.persona, conversation_id=cid,
                                                                         seed=seed),
                                          SUITE.tools, seed=seed, agent_name="a", agent_version="v")
        finally:
            await aclose_all(agent)

    return asyncio.run(go())


def _agent_turns(conv: Conversation) -> list[tuple[float, float]]:
    """(turn latency, the latency of its tool calls) of every agent turn."""
    return [(t.latency_ms, sum(c.latency_ms for c in t.tool_calls)) for t in conv.turns if t.speaker == "agent"]


def _model_conversation(tmp_path: Path) -> tuple[Conversation, int]:
    """A model agent's conversation against the delayed fake server, and the agent calls it made."""
    with FakeLLMServer() as server:
        server.behaviour.delay = DELAY_S
        server.behaviour.tool_call = True
        config = AgentConfig(name="m", model=f"openai:m@{server.openai_url}", prompt="You are the billing line.")
        model = make_chat_model(config.model or "", fast_settings(tmp_path, model_cache="off"))
        conv = _converse(ModelAgent(config, model))
        return conv, len(server.behaviour.seen)


def test_a_model_agents_turn_latency_holds_its_model_calls(tmp_path: Path) -> None:
    conv, calls = _model_conversation(tmp_path)
    turns = _agent_turns(conv)
    assert conv.end_reason.value != "provider_error", conv.end_detail
    assert any(t.tool_calls for t in conv.turns)  # a tool step: a model call of its own
    # Every agent turn waited for at least one delayed model call, and the tool calls it made.
    assert all(latency >= DELAY_S * 1000 + tools for latency, tools in turns), turns
    # Over the conversation: every model call the server answered (a tool step is a call of its own).
    assert calls > len(turns)
    total_tools = sum(tools for _, tools in turns)
    assert sum(latency for latency, _ in turns) >= calls * DELAY_S * 1000 + total_tools


def test_the_junit_time_is_the_agents_reply_time(tmp_path: Path) -> None:
    conv, calls = _model_conversation(tmp_path)
    seconds = agent_seconds(conv)
    assert seconds == sum(t.latency_ms for t in conv.turns if t.speaker == "agent") / 1000.0
    assert seconds >= calls * DELAY_S
    assert facts_of([conv], []).seconds == {conv.id: seconds}
    # In a JUnit report: the demo pair with v1's first conversation holding this transcript's turns.
    v1, v2 = demo_pair()
    first = v1.conversations[0]
    v1 = v1.model_copy(update={"conversations": [first.model_copy(update={"turns": conv.turns}),
                                                 *v1.conversations[1:]]})
    root = ET.fromstring(junit_xml(compare_configurations([v1, v2])))
    case = root.find(f"testsuite[@name='v1']/testcase[@name='{first.scenario_id} seed={first.seed}']")
    assert case is not None and case.get("time") == f"{seconds:.3f}"
    assert float(case.get("time") or 0) >= calls * DELAY_S


def test_an_offline_agents_turn_latency_is_its_tool_calls_only() -> None:
    config = AgentConfig(name="d", callable="polygon_core.demo:DemoAgentV1")
    first, again = _converse(agent_factory(config)()), _converse(agent_factory(config)())
    turns = _agent_turns(first)
    assert any(tools > 0 for _, tools in turns)
    assert all(latency == tools for latency, tools in turns), turns
    assert first.model_dump_json() == again.model_dump_json()


class _Declaring:
    """A Python agent that declares its reply time: 12.5 ms per step."""

    async def act(self, request: AgentRequest) -> AgentAction:
        return script_agent(request).model_copy(update={"latency_ms": 12.5})


def test_a_python_agents_declared_latency_is_added_per_step() -> None:
    conv = _converse(_Declaring(), "address-change")
    turns = [(t.latency_ms, t.tool_calls) for t in conv.turns if t.speaker == "agent"]
    assert any(calls for _, calls in turns)
    # One step per turn, and one more after a turn's tool calls (the script answers their results).
    assert [latency for latency, _ in turns] == [
        12.5 * (2 if calls else 1) + sum(c.latency_ms for c in calls) for _, calls in turns]


def test_an_http_agents_turn_latency_is_its_measured_round_trip() -> None:
    def slow(path: str, body: dict[str, Any]) -> dict[str, Any]:
        time.sleep(DELAY_S)
        # A latency the endpoint reports of itself is replaced by the measured round trip.
        return {**script_agent(AgentRequest.model_validate(body)).model_dump(mode="json"), "latency_ms": 0.0}

    with _serve(slow) as url:
        conv = _converse(agent_factory(AgentConfig(name="h", endpoint=url + "/act"))(), "address-change")
    turns = _agent_turns(conv)
    assert len(turns) >= 2
    assert all(latency >= DELAY_S * 1000 + tools for latency, tools in turns), turns
