"""One deterministic agent through all three adapter kinds gives the same transcript."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.providers import aclose_all
from polygon_core.adapters.settings import load_settings
from polygon_core.callers import OfflineCaller
from polygon_core.conversation import AgentRequest, conversation_key, run_conversation
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.models import AgentConfig, Conversation
from tests.engine.script_agent import openai_reply, script_agent

SUITE = load_suite(demo_dir() / "suite")


@contextmanager
def _serve(handle: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            payload = json.dumps(handle(self.path, body)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _run(config: AgentConfig, scenario_id: str, seed: int, **factory: Any) -> Conversation:
    scenario = SUITE.scenario(scenario_id).model_copy(update={"max_turns": 6})
    cid = conversation_key(scenario, seed)
    agent = agent_factory(config, **factory)()

    async def go() -> Conversation:
        try:
            return await run_conversation(scenario, agent, OfflineCaller(scenario.persona, conversation_id=cid,
                                                                         seed=seed),
                                          SUITE.tools, seed=seed, agent_name="script", agent_version="s")
        finally:
            await aclose_all(agent)  # its SDK clients belong to this loop

    return asyncio.run(go())


def _transcript(conv: Conversation) -> str:
    # A turn's latency holds the agent's measured reply time (the HTTP round trip, the model call),
    # which differs between adapters and runs by nature; everything else must be the same.
    return json.dumps({"turns": [t.model_dump(mode="json", exclude={"latency_ms"}) for t in conv.turns],
                       "end": conv.end_reason.value,
                       "events": [e.model_dump(mode="json") for e in conv.events],
                       "state": conv.final_state}, sort_keys=True)


@pytest.mark.parametrize(("scenario_id", "seed"), [("address-change", 0), ("suspicious-duplicate-charge", 1)])
def test_callable_http_and_model_adapters_give_the_same_transcript(scenario_id: str, seed: int) -> None:
    as_callable = _run(AgentConfig(name="s", callable="tests.engine.script_agent:script_agent"), scenario_id, seed)
    with _serve(lambda path, body: script_agent(AgentRequest.model_validate(body)).model_dump(mode="json")) as url:
        as_http = _run(AgentConfig(name="s", endpoint=url + "/act"), scenario_id, seed)
    with _serve(lambda path, body: openai_reply(body)) as url:
        model = f"openai:script@{url}/v1"
        as_model = _run(AgentConfig(name="s", model=model, prompt="You are the test line."), scenario_id, seed,
                        settings=load_settings(model_cache="off"))
    assert _transcript(as_http) == _transcript(as_callable)
    assert _transcript(as_model) == _transcript(as_callable)
    # The scenario really exercised the tools through every adapter.
    assert any(c.name == "lookup_account" for t in as_callable.turns for c in t.tool_calls)
