"""Token counts are labelled estimated only when one of them was estimated: a model agent whose
server reports usage gives exact counts (every count used to be "(est.)", because the engine began
each role's total as an estimated zero)."""

from __future__ import annotations

from pathlib import Path

from polygon_core.adapters.agents._model import ModelAgent
from polygon_core.adapters.providers import make_chat_model
from polygon_core.models import AgentConfig
from tests.engine.test_agent_latency import _converse
from tests.fakes.llm_server import FakeLLMServer
from tests.providers.conftest import fast_settings


def test_reported_usage_is_exact_and_the_offline_callers_estimated(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        config = AgentConfig(name="m", model=f"openai:m@{server.openai_url}", prompt="You are the billing line.")
        model = make_chat_model(config.model or "", fast_settings(tmp_path, model_cache="off"))
        conv = _converse(ModelAgent(config, model))
    agent, caller = conv.usage["agent"], conv.usage["caller"]
    assert agent.calls >= 1 and agent.input_tokens > 0
    assert agent.estimated is False  # every reply carried the server's usage block
    assert caller.estimated is True  # the offline caller has no tokenizer
