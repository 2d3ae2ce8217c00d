"""The provider registry: a provider is one adapter class, registered with `@provider(name)`, that
declares its key's and base URL's variables (no settings field, no list elsewhere)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from polygon_core.adapters.providers import (
    ModelNameError,
    ProviderConfigError,
    _registry,
    make_chat_model,
    parse_model_name,
)
from polygon_core.adapters.providers._openai import OpenAIAdapter
from polygon_core.providers import ChatMessage, ChatRequest
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import fast_settings

COMPATCO_KEY = "sk-compatco-test-0123456789"


class CompatAdapter(OpenAIAdapter):
    """A provider speaking the OpenAI wire format, with its own name and variables, no settings field."""

    title = "CompatCo"
    api_key_env = ("POLYGON_COMPATCO_API_KEY", "COMPATCO_API_KEY")
    base_url_env = ("POLYGON_COMPATCO_BASE_URL",)
    default_url = "https://api.compatco.example/v1"
    url_example = "http://host:port/v1"


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`compatco` registered for this test only (the built-ins stay)."""
    monkeypatch.setattr(_registry.PROVIDERS, "entries", dict(_registry.PROVIDERS.loaded()))
    for variable in (*CompatAdapter.api_key_env, *CompatAdapter.base_url_env):
        monkeypatch.delenv(variable, raising=False)
    _registry.provider("compatco")(CompatAdapter)
    yield


def ask(model: Any) -> Any:
    """One user line to `model`, closing its clients after."""

    async def go() -> Any:
        try:
            return await model.chat(ChatRequest(messages=[ChatMessage(role="user", content="hello")]))
        finally:
            await model.aclose()

    return asyncio.run(go())


def sent_keys(server: FakeLLMServer) -> list[str | None]:
    """The Authorization header of every request the server saw."""
    return [{k.lower(): v for k, v in h.items()}.get("authorization") for h in server.headers_seen]


def test_built_in_providers_are_registered_in_their_own_modules() -> None:
    assert _registry.provider_names() == ("openai", "anthropic")
    assert _registry.adapter_class("anthropic").__name__ == "AnthropicAdapter"
    assert _registry.adapter_class("openai") is OpenAIAdapter
    assert (OpenAIAdapter.provider, OpenAIAdapter.api_key_env, OpenAIAdapter.base_url_env) == (
        "openai", ("POLYGON_OPENAI_API_KEY", "OPENAI_API_KEY"), ("POLYGON_OPENAI_BASE_URL",))


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
        reply = ask(model)
        assert (reply.text, reply.provider) == (AGENT_LINES[0], "compatco")
        assert model.name == f"compatco:m1@{server.openai_url}"
        assert model.supports_batch  # type: ignore[attr-defined]
        assert sent_keys(server) == ["Bearer no-key"]  # no key set, none sent


def test_a_provider_reads_the_variables_it_declares(registered: None, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer() as server:
        monkeypatch.setenv("COMPATCO_API_KEY", COMPATCO_KEY)
        monkeypatch.setenv("POLYGON_COMPATCO_BASE_URL", server.openai_url)
        settings = fast_settings(tmp_path)  # read after the variables are set, as at start-up
        monkeypatch.setenv("COMPATCO_API_KEY", "set-after-loading")  # the settings keep what they read
        assert ask(make_chat_model("compatco:m1", settings)).text == AGENT_LINES[0]
        assert sent_keys(server) == [f"Bearer {COMPATCO_KEY}"]
        # The POLYGON_ variable comes first; a blank one counts as unset.
        monkeypatch.setenv("POLYGON_COMPATCO_API_KEY", "sk-polygon-compatco-0000")
        assert settings.provider_value("compatco", "api_key", CompatAdapter.api_key_env) == COMPATCO_KEY
        assert fast_settings(tmp_path).provider_value("compatco", "api_key", CompatAdapter.api_key_env) == (
            "sk-polygon-compatco-0000")
        monkeypatch.setenv("POLYGON_COMPATCO_API_KEY", "  ")
        assert fast_settings(tmp_path).provider_value("compatco", "api_key", CompatAdapter.api_key_env) == (
            "set-after-loading")
    # The settings never show what they read from the environment.
    assert COMPATCO_KEY not in repr(settings) and COMPATCO_KEY not in settings.model_dump_json()


def test_polygon_s_own_fields_still_win_for_openai(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    settings = fast_settings(tmp_path, openai_api_key="sk-override", openai_base_url="http://127.0.0.1:9/v1")
    assert settings.provider_value("openai", "api_key", OpenAIAdapter.api_key_env) == "sk-override"
    assert settings.provider_value("openai", "base_url", OpenAIAdapter.base_url_env) == "http://127.0.0.1:9/v1"


def test_registering_a_name_twice_is_refused(registered: None) -> None:
    with pytest.raises(ValueError, match="provider 'openai' is registered twice"):
        _registry.provider("openai")(CompatAdapter)
    with pytest.raises(ValueError, match="provider 'offline' is Polygon's own model"):
        _registry.provider("offline")


def test_a_compatible_provider_must_declare_its_own_key_variables_and_url(registered: None) -> None:
    class NoKeyVariables(OpenAIAdapter):
        title, default_url = "Acme", "https://api.acme.example/v1"

    class NoUrl(OpenAIAdapter):
        title, api_key_env = "Acme", ("POLYGON_ACME_API_KEY", "ACME_API_KEY")

    # Inherited, OpenAI's key variables would send the user's OpenAI key to acme's host.
    with pytest.raises(ValueError, match=r"^provider 'acme' \(test_a_compatible_provider_must_declare_its_own_key"
                                         r"_variables_and_url.<locals>.NoKeyVariables\) must declare its own "
                                         r"api_key_env: an inherited one"):
        _registry.provider("acme")(NoKeyVariables)
    with pytest.raises(ValueError, match=r"NoUrl\) must declare its own default_url"):
        _registry.provider("acme")(NoUrl)
    assert "acme" not in _registry.provider_names()
