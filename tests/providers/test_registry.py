"""The provider registry: a provider is one adapter module plus its registered loader."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from polygon_core.adapters.providers import (
    ModelNameError,
    ProviderConfigError,
    _registry,
    make_chat_model,
    parse_model_name,
)
from polygon_core.adapters.providers._clients import SdkAdapter
from polygon_core.adapters.providers._openai import OpenAIAdapter
from polygon_core.providers import ChatMessage, ChatRequest
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import fast_settings


class CompatAdapter(OpenAIAdapter):
    """A provider speaking the OpenAI wire format, with its own name, key variable and no settings field."""

    title = "CompatCo"
    key_variable = "COMPATCO_API_KEY"
    key_setting, base_url_setting = "compatco_api_key", "compatco_base_url"
    url_example = "http://host:port/v1"


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compatco` registered for this test only (the built-ins stay)."""
    monkeypatch.setattr(_registry.PROVIDERS, "entries", dict(_registry.PROVIDERS.loaded()))

    @_registry.provider("compatco")
    def compatco() -> type[SdkAdapter]:
        return CompatAdapter


def test_built_in_providers_are_registered_lazily() -> None:
    assert _registry.provider_names() == ("openai", "anthropic")
    assert _registry.adapter_class("anthropic").__name__ == "AnthropicAdapter"


def test_a_registered_provider_is_named_and_served(registered: None, tmp_path: Path) -> None:
    assert parse_model_name("compatco:m1@http://127.0.0.1:9/v1").name == "compatco:m1@http://127.0.0.1:9/v1"
    with pytest.raises(ModelNameError, match=r"'openai:<model>', 'anthropic:<model>', 'compatco:<model>', "
                                             r"or any of them followed by '@<base URL>'"):
        parse_model_name("mistral:x")
    with pytest.raises(ProviderConfigError) as missing:
        make_chat_model("compatco:m1", fast_settings(tmp_path))
    assert str(missing.value) == ("model 'compatco:m1' needs a CompatCo API key: set COMPATCO_API_KEY "
                                  "(or give a base URL: 'compatco:<model>@http://host:port/v1')")
    with FakeLLMServer() as server:
        model = make_chat_model(f"compatco:m1@{server.openai_url}", fast_settings(tmp_path))

        async def ask() -> str:
            try:
                reply = await model.chat(ChatRequest(messages=[ChatMessage(role="user", content="hello")]))
                return reply.text
            finally:
                await model.aclose()  # type: ignore[attr-defined]

        assert asyncio.run(ask()) == AGENT_LINES[0]
        assert model.name == f"compatco:m1@{server.openai_url}"  # type: ignore[attr-defined]
        assert model.supports_batch  # type: ignore[attr-defined]


def test_registering_a_name_twice_is_refused(registered: None) -> None:
    with pytest.raises(ValueError, match="provider 'openai' is registered twice"):
        _registry.provider("openai")(lambda: CompatAdapter)
