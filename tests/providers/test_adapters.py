"""The provider layer over HTTP: the real openai/anthropic SDKs against the fake wire-format server."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from polygon_core.adapters.providers import (
    OFFLINE_REPLY,
    ModelNameError,
    ModelSpec,
    OfflineChatModel,
    ProviderConfigError,
    ReplayMiss,
    UsageMeter,
    estimate_cost,
    make_chat_model,
    parse_model_name,
    read_structured,
)
from polygon_core.conversation import ProviderFailure
from polygon_core.models import Usage
from polygon_core.providers import ChatMessage, ChatRequest, ChatTool
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import FAKE_KEY, SCHEMA, fast_settings, served_model


def _ask(model, request: ChatRequest):
    async def go():
        try:
            return await model.chat(request)
        finally:
            await model.aclose()
    return asyncio.run(go())


def _req(**kw) -> ChatRequest:
    return ChatRequest(messages=[ChatMessage(role="system", content="be brief", cache=True),
                                 ChatMessage(role="user", content="hello")], **kw)


def test_parse_model_names() -> None:
    assert parse_model_name("offline") == ModelSpec("offline", "offline")
    assert parse_model_name("openai:gpt-4o") == ModelSpec("openai", "gpt-4o")
    assert parse_model_name("anthropic:claude-x@http://127.0.0.1:9/") == ModelSpec(
        "anthropic", "claude-x", "http://127.0.0.1:9")
    assert parse_model_name("openai:m@http://u:pw@h:1/v1").name == "openai:m@http://h:1/v1"
    for bad in ("gpt-4o", "mistral:x", "openai:", "openai:m@ftp://x"):
        with pytest.raises(ModelNameError):
            parse_model_name(bad)
    # A base URL without a host was once stored as 'http:' and refused only inside the flow.
    for hostless in ("openai:x@http://", "openai:x@https://", "anthropic:x@http://:8000/v1",
                     "openai:x@http://127.0.0.1:80a0/v1", "openai:x@http://h ost/v1"):
        with pytest.raises(ModelNameError, match=r"names no host, or a bad port \(e\.g\. '@http://127\.0\.0\.1:8000/v1'\)"):
            parse_model_name(hostless)


def test_missing_key_names_the_variable(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, openai_api_key=None, anthropic_api_key=None)
    with pytest.raises(ProviderConfigError, match="OPENAI_API_KEY"):
        make_chat_model("openai:gpt-4o", settings)
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY"):
        make_chat_model("anthropic:claude-x", settings)


def test_missing_sdk_names_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "anthropic", None)  # as if the package were not installed
    with pytest.raises(ProviderConfigError, match="pip install anthropic"):
        make_chat_model("anthropic:claude-x", fast_settings(tmp_path))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_text_reply_usage_and_request_id(tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    reply = _ask(make_chat_model(served_model(server, provider), fast_settings(tmp_path)), _req(seed=3, temperature=0))
    assert reply.text == AGENT_LINES[0]
    assert reply.provider == provider and reply.request_id is not None and reply.retries == 0
    assert reply.usage.cached_tokens == 8 and reply.usage.output_tokens == len(AGENT_LINES[0]) // 4
    body = server.behaviour.seen[0]
    if provider == "openai":
        assert body["seed"] == 3 and body["temperature"] == 0
    else:  # the static prefix is marked for prompt caching; no seed in the Messages API
        assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
        assert "seed" not in body and body["temperature"] == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_structured_output(tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    reply = _ask(make_chat_model(served_model(server, provider), fast_settings(tmp_path)), _req(response_schema=SCHEMA))
    assert (reply.parsed, reply.unparseable) == ({"score": 5}, False)
    body = server.behaviour.seen[0]
    if provider == "openai":
        assert body["response_format"]["type"] == "json_schema"
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "reply"}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_reply_ignoring_schema_is_unparseable_not_raised(tmp_path: Path, server: FakeLLMServer,
                                                         provider: str) -> None:
    server.behaviour.ignore_schema = True
    reply = _ask(make_chat_model(served_model(server, provider), fast_settings(tmp_path)), _req(response_schema=SCHEMA))
    assert reply.unparseable is True and reply.parse_error == "the reply is not JSON"
    assert reply.text == "I think the agent did fine overall."


def test_tolerant_json_parse() -> None:
    assert read_structured('Sure! ```json\n{"score": 4}\n```', SCHEMA) == ({"score": 4}, False, None)
    assert read_structured('My answer: {"score": 2} thanks', SCHEMA) == ({"score": 2}, False, None)
    parsed, bad, error = read_structured('{"score": 9}', SCHEMA)
    assert parsed == {"score": 9} and bad and error.startswith("the reply does not fit the schema")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tool_calls_normalised_and_malformed_arguments_kept(tmp_path: Path, server: FakeLLMServer,
                                                            provider: str) -> None:
    server.behaviour.tool_call = True
    model = make_chat_model(served_model(server, provider), fast_settings(tmp_path))
    reply = _ask(model, _req(tools=[ChatTool(name="lookup_account")]))
    (call,) = reply.tool_calls
    assert (call.name, call.arguments, call.arguments_valid) == ("lookup_account", {"account_id": "4417"}, True)
    server.behaviour.malformed_arguments = True
    reply = _ask(make_chat_model(served_model(server, provider), fast_settings(tmp_path)),
                 _req(tools=[ChatTool(name="lookup_account")]))
    (call,) = reply.tool_calls
    assert call.arguments_valid is False and call.arguments == {}
    assert call.raw_arguments == ('{"account_id": "44' if provider == "openai" else "not-an-object")


def test_tool_results_sent_back_in_each_api_form(tmp_path: Path, server: FakeLLMServer) -> None:
    from polygon_core.providers import ChatToolCall

    history = [ChatMessage(role="user", content="hi"),
               ChatMessage(role="assistant", tool_calls=[ChatToolCall(id="c1", name="a", arguments={"x": 1}),
                                                         ChatToolCall(id="c2", name="b")]),
               ChatMessage(role="tool", tool_call_id="c1", content='{"ok": true}'),
               ChatMessage(role="tool", tool_call_id="c2", content='{"ok": false}')]
    for provider in ("openai", "anthropic"):
        _ask(make_chat_model(served_model(server, provider), fast_settings(tmp_path)), ChatRequest(messages=history))
    oa, an = server.behaviour.seen
    assert [m["role"] for m in oa["messages"]] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in oa["messages"][1]["tool_calls"]] == ["c1", "c2"]
    assert oa["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    assert oa["messages"][2] == {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'}
    assert [m["role"] for m in an["messages"]] == ["user", "assistant", "user"]
    assert [b["id"] for b in an["messages"][1]["content"]] == ["c1", "c2"]
    assert an["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": '{"ok": true}'},
        {"type": "tool_result", "tool_use_id": "c2", "content": '{"ok": false}'}]


@pytest.mark.parametrize("fault", ["429", "500", "slow", "nonjson"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_transient_faults_are_retried(tmp_path: Path, server: FakeLLMServer, provider: str, fault: str) -> None:
    server.behaviour.fault_for = lambda n: fault if n < 2 else None
    # A timeout is a clock: the healthy third reply must come back well inside it even on a loaded
    # machine (0.3 s was exceeded once in CI with other work running), and the slow ones well past it.
    server.behaviour.slow_seconds = 4.0
    meter = UsageMeter()
    model = make_chat_model(served_model(server, provider), fast_settings(tmp_path, model_timeout=1.5), meter=meter)
    reply = _ask(model, _req())
    assert reply.text == AGENT_LINES[0] and reply.retries == 2
    assert json.loads(meter.to_json())["agent"]["retries"] == 2


def test_retry_after_is_honoured(tmp_path: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # What is asserted is the wait the retry asked for (the server's Retry-After), not a stopwatch.
    from polygon_core.adapters.providers import _retry

    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay: float, *args: object, **kwargs: object) -> None:
        # asyncio.sleep is patched for the whole process: a server thread an earlier test left
        # running (its header and body deadlines sleep too) must not count as this request's waits.
        if threading.current_thread() is threading.main_thread():
            slept.append(delay)
        await real_sleep(delay)

    monkeypatch.setattr(_retry.asyncio, "sleep", recording_sleep)
    server.behaviour.fault_for = lambda n: "429" if n == 0 else None
    server.behaviour.retry_after = "0.4"
    reply = _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path)), _req())
    assert (reply.retries, slept) == (1, [0.4])


@pytest.mark.parametrize("status", ["400", "401"])
def test_client_errors_fail_at_once(tmp_path: Path, server: FakeLLMServer, status: str) -> None:
    server.behaviour.fault_for = lambda n: status
    expected = (f"{served_model(server, 'anthropic')}: HTTP 400: fake fault 400" if status == "400" else
                f"401 Unauthorized from anthropic:claude-3-5-haiku-latest at {server.anthropic_url}: "
                "check ANTHROPIC_API_KEY")
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(served_model(server, "anthropic"), fast_settings(tmp_path)), _req())
    assert str(info.value) == expected
    assert server.requests == 1  # no retry, and the SDK's own retries are off
    assert FAKE_KEY not in str(info.value)


def test_attempts_are_bounded(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "500"
    with pytest.raises(ProviderFailure, match="gave up after 4 attempts: HTTP 500"):
        _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, model_max_attempts=4)), _req())
    assert server.requests == 4


def test_total_retry_time_is_bounded(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "429"
    server.behaviour.retry_after = "30"
    with pytest.raises(ProviderFailure, match="retry budget"):
        _ask(make_chat_model(served_model(server, "openai"), fast_settings(tmp_path, model_retry_seconds=1.0)), _req())
    assert server.requests == 1


def test_concurrency_cap_holds(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.delay = 0.05
    settings = fast_settings(tmp_path, model_limits={"openai:gpt-4o-mini": {"concurrency": 3}})
    model = make_chat_model(served_model(server, "openai"), settings)

    async def go():
        try:
            return await asyncio.gather(*[model.chat(_req()) for _ in range(20)])
        finally:
            await model.aclose()

    replies = asyncio.run(go())
    assert len(replies) == 20 and server.requests == 20
    assert server.max_in_flight == 3


def test_record_then_replay_without_server(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        name = served_model(srv, "openai")
        recorded = _ask(make_chat_model(name, fast_settings(tmp_path, model_cache="record")), _req(seed=1))
    replayed = _ask(make_chat_model(name, fast_settings(tmp_path, model_cache="replay")), _req(seed=1))
    assert replayed.text == recorded.text and replayed.cached is True and replayed.usage == recorded.usage
    with pytest.raises(ReplayMiss, match="no recorded reply"):
        _ask(make_chat_model(name, fast_settings(tmp_path, model_cache="replay")), _req(seed=2))


def test_offline_model_is_deterministic() -> None:
    model = OfflineChatModel()
    assert asyncio.run(model.chat(_req())).text == OFFLINE_REPLY
    reply = asyncio.run(model.chat(_req(response_schema={
        "type": "object", "required": ["a", "b", "c"],
        "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"enum": ["yes", "no"]},
                       "c": {"type": "array", "items": {"type": "string"}}}})))
    assert reply.parsed == {"a": 1, "b": "yes", "c": []} and not reply.unparseable


def test_cost_estimate_uses_cached_price() -> None:
    usage = Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=100_000)
    # gpt-4o-mini: 0.6M × 0.15 + 0.4M × 0.075 + 0.1M × 0.60 = 0.09 + 0.03 + 0.06
    assert estimate_cost("openai:gpt-4o-mini", usage) == pytest.approx(0.18)
    assert estimate_cost("openai:gpt-4o-mini-2024-07-18", usage) == pytest.approx(0.18)
    assert estimate_cost("openai:my-local-model", usage) is None
