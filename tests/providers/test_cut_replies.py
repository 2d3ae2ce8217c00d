"""A reply cut off before its end (the server or the network closed the connection halfway) is a
transient provider fault, retried and then a provider error: never a short reply that counts
against the agent, loses the caller's `[END:` marker or makes a judgment unreadable."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon_core.adapters.providers import make_chat_model
from polygon_core.adapters.providers._retry import Retryable
from polygon_core.adapters.providers._stream import ReadLimits, read_completion
from polygon_core.conversation import ProviderFailure
from polygon_core.providers import ChatMessage, ChatRequest, ChatResponse
from tests.fakes.llm_server import AGENT_LINES, FakeLLMServer

from .conftest import fast_settings, model_agent, run_pipeline

UNFINISHED = "the stream ended before the reply was complete (no [DONE])"


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _read(parts: list[bytes]) -> Any:
    return asyncio.run(read_completion("text/event-stream", _chunks(parts), ReadLimits(100)))


def _event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return b"data: " + json.dumps({"id": "c1", "choices": [{"index": 0, "delta": delta,
                                                            "finish_reason": finish}]}).encode() + b"\n\n"


USAGE = b'data: {"id": "c1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}\n\n'
DONE = b"data: [DONE]\n\n"


def test_a_stream_that_stops_mid_reply_is_transient() -> None:
    with pytest.raises(Retryable) as info:
        _read([_event({"role": "assistant", "content": ""}), _event({"content": "I can help with that. Could"})])
    assert info.value.reason == UNFINISHED


def test_a_stream_with_usage_but_no_end_is_still_cut() -> None:
    with pytest.raises(Retryable) as info:
        _read([_event({"content": "Hello"}), USAGE])
    assert info.value.reason == UNFINISHED


@pytest.mark.parametrize(("server", "parts"), [
    # vLLM: the finish_reason on the last content chunk, then usage, then [DONE].
    ("vllm", [_event({"role": "assistant", "content": ""}), _event({"content": "Hi "}),
              _event({"content": "there"}, "stop"), USAGE, DONE]),
    # Ollama and llama.cpp: an empty chunk with the finish_reason, then usage, then [DONE].
    ("ollama", [_event({"role": "assistant", "content": "Hi "}), _event({"content": "there"}), _event({}, "stop"),
                USAGE, DONE]),
    # llama.cpp before September 2024 (and forks such as ik_llama.cpp): the finish chunk, no [DONE].
    ("old llama.cpp", [_event({"content": "Hi "}), _event({"content": "there"}), _event({}, "stop")]),
    # [DONE] without any finish_reason (a minimal proxy): the stream said it was done.
    ("bare", [_event({"content": "Hi there"}), DONE]),
])
def test_every_real_servers_normal_ending_is_a_whole_reply(server: str, parts: list[bytes]) -> None:
    done = _read(parts)
    assert (done.cut, done.body["choices"][0]["message"]["content"]) == (False, "Hi there"), server


def _ask(model: Any, request: ChatRequest) -> ChatResponse:
    async def go() -> ChatResponse:
        try:
            return await model.chat(request)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _req() -> ChatRequest:
    return ChatRequest(messages=[ChatMessage(role="system", content="be brief"),
                                 ChatMessage(role="user", content="hello")], role="agent")


@pytest.mark.parametrize("streamed", [True, False])
def test_a_reply_cut_once_is_retried_and_read_whole(tmp_path: Path, server: FakeLLMServer, streamed: bool) -> None:
    server.behaviour.stream = streamed  # False: one JSON body, cut short of its content-length
    server.behaviour.fault_for = lambda n: "cut" if n == 0 else None
    reply = _ask(make_chat_model(f"openai:qwen@{server.openai_url}", fast_settings(tmp_path)), _req())
    assert (reply.text, reply.retries, reply.cut, server.requests) == (AGENT_LINES[0], 1, False, 2)


@pytest.mark.parametrize(("streamed", "reason"), [
    (True, UNFINISHED), (False, "the connection to {url} dropped (ContentLengthError)")])
def test_a_server_that_always_cuts_is_a_provider_failure(tmp_path: Path, server: FakeLLMServer, streamed: bool,
                                                          reason: str) -> None:
    server.behaviour.stream = streamed
    server.behaviour.fault_for = lambda n: "cut"
    url = server.openai_url
    with pytest.raises(ProviderFailure) as info:
        _ask(make_chat_model(f"openai:qwen@{url}", fast_settings(tmp_path, model_max_attempts=3)), _req())
    assert str(info.value) == f"openai:qwen@{url}: gave up after 3 attempts: {reason.format(url=url)}"
    assert server.requests == 3


def _ends(stores: usecases.Stores, run_id: str) -> list[str]:
    return [c.end_reason for c in stores.repo.list_conversations(run_id)]


def _agent_lines(stores: usecases.Stores, run_id: str) -> dict[str, list[str]]:
    return {row.conversation_id: [t.text for t in usecases.load_conversation(stores, run_id, row.conversation_id).turns
                                  if t.speaker == "agent"] for row in stores.repo.list_conversations(run_id)}


def test_cut_agent_replies_are_retried_and_the_calls_go_as_without_faults(tmp_path: Path) -> None:
    def run(fault: Any, run_id: str) -> tuple[usecases.Stores, Any]:
        with FakeLLMServer() as server:
            server.behaviour.fault_for = fault
            agent = model_agent(tmp_path, f"openai:gpt-4o-mini@{server.openai_url}")
            return run_pipeline(fast_settings(tmp_path / "home"), agent, {}, seeds=[0], run_id=run_id)

    stores, whole = run(lambda n: None, "r-whole")
    _, cut = run(lambda n: "cut" if n % 2 == 0 else None, "r-cut-half")  # every other reply cut mid-way
    assert _ends(stores, cut.id) == _ends(stores, whole.id) and "provider_error" not in _ends(stores, cut.id)
    assert _agent_lines(stores, cut.id) == _agent_lines(stores, whole.id)  # no agent turn cut short
    assert all(set(lines) <= set(AGENT_LINES) and lines for lines in _agent_lines(stores, cut.id).values())


@pytest.mark.parametrize("role", ["agent", "caller"])
def test_a_server_that_always_cuts_ends_every_call_provider_error(tmp_path: Path, role: str) -> None:
    with FakeLLMServer() as good, FakeLLMServer() as cutting:
        cutting.behaviour.fault_for = lambda n: "cut"
        cut = f"openai:gpt-4o-mini@{cutting.openai_url}"
        agent = model_agent(tmp_path, cut if role == "agent" else f"openai:gpt-4o-mini@{good.openai_url}")
        stores, run = run_pipeline(fast_settings(tmp_path / "home", model_max_attempts=2), agent,
                                   {"caller": cut} if role == "caller" else {}, seeds=[0], run_id=f"r-cut-{role}")
    assert _ends(stores, run.id) == ["provider_error"] * 6
    assert stores.repo.judgments(run.id, "v1") == []  # not scored: says nothing about the agent
    conv = usecases.load_conversation(stores, run.id, stores.repo.list_conversations(run.id)[0].conversation_id)
    assert conv.end_detail == f"{cut}: gave up after 2 attempts: {UNFINISHED}"


def test_a_judge_whose_replies_are_cut_is_a_judge_error(tmp_path: Path) -> None:
    with FakeLLMServer() as good, FakeLLMServer() as cutting:
        cutting.behaviour.fault_for = lambda n: "cut"
        judge = f"openai:gpt-4o-mini@{cutting.openai_url}"
        agent = model_agent(tmp_path, f"openai:gpt-4o-mini@{good.openai_url}")
        stores, run = run_pipeline(fast_settings(tmp_path / "home", model_max_attempts=2), agent,
                                   {"judge": judge}, seeds=[0], run_id="r-cut-judge")
    judgments = stores.repo.judgments(run.id, "v1")
    assert [(j.status, j.reason, j.composite) for j in judgments] == [
        ("judge_error", f"{judge}: gave up after 2 attempts: {UNFINISHED}", None)] * 6
