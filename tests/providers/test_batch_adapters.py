"""Batch APIs over HTTP: OpenAI Files + Batch and Anthropic Message Batches through the real SDKs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from polygon_core.adapters.artifacts import artifact_store_from_url
from polygon_core.adapters.providers import (
    ReplayMiss,
    UsageMeter,
    make_chat_model,
    price_table,
    run_usage,
)
from polygon_core.conversation import ProviderFailure
from polygon_core.models import Usage
from polygon_core.providers import ChatMessage, ChatRequest
from tests.fakes.llm_server import FakeLLMServer

from .conftest import SCHEMA, fast_settings, served_model


def _requests(n: int) -> dict[str, ChatRequest]:
    return {f"j{i:06d}": ChatRequest(messages=[ChatMessage(role="system", content="grade it"),
                                               ChatMessage(role="user", content=f"transcript {i}")],
                                     response_schema=SCHEMA, schema_name="grade", temperature=0.0,
                                     seed=i, role="judge")
            for i in range(n)}


def _ask_live(model: Any, request: ChatRequest) -> Any:
    async def go() -> Any:
        try:
            return await model.chat(request)
        finally:
            await model.aclose()
    return asyncio.run(go())


def _through(model: Any, requests: dict[str, ChatRequest]) -> tuple[list[Any], list[Any]]:
    """Submit, poll until done, read: what the pipeline does, in one event loop."""
    async def go() -> tuple[list[Any], list[Any]]:
        try:
            batch_id = await model.submit_batch(requests)
            polls = [await model.batch_status(batch_id)]
            while not polls[-1].done:
                polls.append(await model.batch_status(batch_id))
            return polls, await model.batch_results(batch_id, requests)
        finally:
            await model.aclose()
    return asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_round_trip_maps_every_result_back_by_custom_id(tmp_path: Path, server: FakeLLMServer,
                                                              provider: str) -> None:
    server.behaviour.batch_polls = 2
    server.behaviour.vary = True  # each reply depends on its request; results come back newest first
    meter = UsageMeter()
    model = make_chat_model(served_model(server, provider), fast_settings(tmp_path), meter=meter)
    requests = _requests(5)
    polls, outcomes = _through(model, requests)
    assert [p.state for p in polls] == ["pending", "pending", "ended"]
    assert polls[-1].succeeded == 5 and polls[-1].errored == 0
    assert [o.custom_id for o in outcomes] == list(requests)
    # Each outcome is its own request's reply: the same as asking that request live.
    live = [_ask_live(make_chat_model(served_model(server, provider), fast_settings(tmp_path)), r)
            for r in requests.values()]
    assert [o.response.parsed for o in outcomes] == [r.parsed for r in live]
    assert len({json.dumps(r.parsed) for r in live}) > 1  # the replies really differ
    assert all(o.error is None for o in outcomes)
    assert {o.response.provider for o in outcomes} == {provider}
    # The batch carried each request's own body: seeds (OpenAI) and the forced tool (Anthropic).
    (batch,) = server.batches.values()
    bodies = dict(batch["items"])
    if provider == "openai":
        assert [bodies[c]["seed"] for c in requests] == [0, 1, 2, 3, 4]
        assert bodies["j000003"]["response_format"]["json_schema"]["name"] == "grade"
    else:
        assert bodies["j000003"]["tool_choice"] == {"type": "tool", "name": "grade"}
        assert bodies["j000003"]["temperature"] == 0.0
    # Metered as batch usage, so the discount applies to exactly these tokens.
    entry = meter.roles["judge"]
    assert entry["batch"] == entry["models"]
    assert Usage.model_validate(entry["batch"][model.name]).calls == 5


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failed_items_come_back_as_values(tmp_path: Path, server: FakeLLMServer, provider: str) -> None:
    server.behaviour.batch_item_fault = {"j000001": "error", "j000003": "expired"}.get
    meter = UsageMeter()
    model = make_chat_model(served_model(server, provider), fast_settings(tmp_path), meter=meter)
    polls, outcomes = _through(model, _requests(4))
    assert polls[-1].state == "ended" and (polls[-1].succeeded, polls[-1].errored) == (2, 2)
    errors = {o.custom_id: o.error for o in outcomes if o.error}
    assert sorted(errors) == ["j000001", "j000003"]
    if provider == "openai":
        assert errors["j000001"] == "HTTP 400: fake item fault"
    else:
        assert errors["j000001"] == "errored: fake item fault"
        assert errors["j000003"] == "expired: expired"
    assert meter.roles["judge"]["failures"] == 2
    assert Usage.model_validate(meter.roles["judge"]["batch"][model.name]).calls == 2


def test_an_expired_openai_batch_returns_what_it_finished(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.batch_outcome = "expired"
    model = make_chat_model(served_model(server, "openai"), fast_settings(tmp_path))
    polls, outcomes = _through(model, _requests(4))
    assert polls[-1].state == "expired"
    assert [o.error is None for o in outcomes] == [True, True, False, False]
    assert outcomes[3].error == "no result in batch batch_1 (status expired)"


def test_a_failed_openai_batch_says_why(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.batch_outcome = "failed"
    model = make_chat_model(served_model(server, "openai"), fast_settings(tmp_path))
    polls, outcomes = _through(model, _requests(2))
    assert (polls[-1].state, polls[-1].detail) == ("failed", "fake batch failure")
    assert all(o.error for o in outcomes)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_calls_go_through_the_one_retry_layer(tmp_path: Path, server: FakeLLMServer,
                                                    provider: str) -> None:
    # Every third request (uploads, creation, polls, downloads) answers 429 first.
    server.behaviour.fault_for = lambda n: "429" if n % 3 == 0 else None
    meter = UsageMeter()
    model = make_chat_model(served_model(server, provider), fast_settings(tmp_path), meter=meter)
    _polls, outcomes = _through(model, _requests(3))
    assert all(o.response is not None for o in outcomes)
    assert server.statuses[429] >= 2
    assert meter.roles["judge"]["retries"] == server.statuses[429]


def test_a_batch_that_cannot_be_created_fails_with_the_reason(tmp_path: Path, server: FakeLLMServer) -> None:
    server.behaviour.fault_for = lambda n: "400"
    model = make_chat_model(served_model(server, "anthropic"), fast_settings(tmp_path))
    with pytest.raises(ProviderFailure, match="HTTP 400: fake fault 400"):
        _through(model, _requests(1))


def test_record_then_replay_answers_a_batch_from_the_cache(tmp_path: Path) -> None:
    requests = _requests(3)
    with FakeLLMServer() as server:
        name = served_model(server, "openai")
        recorder = make_chat_model(name, fast_settings(tmp_path, model_cache="record"))
        _polls, recorded = _through(recorder, requests)
    meter = UsageMeter()
    replayer = make_chat_model(name, fast_settings(tmp_path, model_cache="replay"), meter=meter)
    hits = replayer.cached_replies(requests)
    assert {cid: r.parsed for cid, r in hits.items()} == {o.custom_id: o.response.parsed for o in recorded}
    assert all(r.cached for r in hits.values())
    with pytest.raises(ReplayMiss, match="no recorded reply for batch request extra"):
        replayer.cached_replies({"extra": requests["j000000"].model_copy(update={"seed": 99})})


def test_batch_discount_halves_the_cost_of_batch_tokens(tmp_path: Path) -> None:
    """The ledger keeps batch usage apart; run_usage prices it at list price less the discount."""
    table = price_table()
    assert table.discount("openai:gpt-4o-mini") == 0.5 and table.discount("anthropic:claude-x") == 0.5
    meter = UsageMeter()
    live = Usage(input_tokens=1_000_000, output_tokens=0, calls=1)
    batched = Usage(input_tokens=2_000_000, output_tokens=1_000_000, calls=2)
    meter.add("judge", "openai:gpt-4o-mini", live)
    meter.add("judge", "openai:gpt-4o-mini", batched, batch=True)
    artifacts = artifact_store_from_url(f"file://{tmp_path}")
    artifacts.put_text("runs/r1/usage/x.judge.json", meter.to_json())
    usage = run_usage(artifacts, "r1")
    judge = usage["roles"]["judge"]
    # gpt-4o-mini: $0.15 in, $0.60 out per million. Live 0.15; batch (0.30 + 0.60) × 0.5 = 0.45.
    assert judge["cost_usd"] == pytest.approx(0.60, abs=1e-9)
    assert judge["batch_savings_usd"] == pytest.approx(0.45, abs=1e-9)
    assert (judge["calls"], judge["batch_calls"]) == (3, 2)
    assert usage["batch_savings_usd"] == pytest.approx(0.45, abs=1e-9)
    assert usage["cost_usd"] == pytest.approx(0.60, abs=1e-9)
