"""Under Prefect, a model's global concurrency limit bounds requests across the whole flow run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prefect import flow

from polygon_core.adapters.providers import make_chat_model
from polygon_core.adapters.providers._limits import prefect_limit_names
from polygon_core.adapters.providers._names import parse_model_name
from polygon_core.providers import ChatMessage, ChatRequest
from tests.fakes.llm_server import FakeLLMServer
from tests.providers.conftest import fast_settings

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


def _create_limits(name: str) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

    gcl, rate = prefect_limit_names(parse_model_name(name))

    async def create() -> None:
        async with get_client() as client:
            await client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=gcl, limit=2))
            await client.create_global_concurrency_limit(
                GlobalConcurrencyLimitCreate(name=rate, limit=100, slot_decay_per_second=100.0))

    asyncio.run(create())


def test_global_concurrency_limit_holds_across_the_flow(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.behaviour.delay = 0.2
        name = f"openai:gpt-4o-mini@{server.openai_url}"
        _create_limits(name)
        # The in-process limit is higher than the global one: only Prefect's limit can hold it at 2.
        settings = fast_settings(tmp_path, model_prefect_limits=True, model_timeout=30.0,
                                 model_limits={"openai:gpt-4o-mini": {"concurrency": 8}})

        @flow
        async def ask_many() -> int:
            model = make_chat_model(name, settings)
            request = ChatRequest(messages=[ChatMessage(role="user", content="hi")])
            try:
                replies = await asyncio.gather(*[model.chat(request) for _ in range(6)])
            finally:
                await model.aclose()
            return len(replies)

        assert asyncio.run(ask_many()) == 6
        assert server.requests == 6 and server.max_in_flight == 2


def test_a_missing_global_limit_is_an_error_when_enabled(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        name = f"openai:no-limit-model@{server.openai_url}"
        settings = fast_settings(tmp_path, model_prefect_limits=True)

        @flow
        async def ask() -> None:
            model = make_chat_model(name, settings)
            await model.chat(ChatRequest(messages=[ChatMessage(role="user", content="hi")]))

        with pytest.raises(Exception, match="polygon-openai-no-limit-model"):
            asyncio.run(ask())
        assert server.requests == 0
