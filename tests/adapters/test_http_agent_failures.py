"""An HTTP agent that is down or too slow fails with one line saying so, httpx's reason kept."""

from __future__ import annotations

import asyncio
import socket

import pytest

from polygon_core.adapters.agents._http import HttpAgent, HttpAgentError
from polygon_core.conversation import AgentRequest


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: connections are refused


def _fail(agent: HttpAgent) -> str:
    with pytest.raises(HttpAgentError) as caught:
        asyncio.run(agent.act(AgentRequest(conversation_id="c", turn=0)))
    return str(caught.value)


def test_a_refused_connection_says_cannot_connect() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/agent"
    assert _fail(HttpAgent(url)) == (
        f"cannot connect to {url} (ConnectError: All connection attempts failed): is the agent running?")


def test_an_endpoint_that_never_answers_says_how_long_it_waited() -> None:
    with socket.socket() as listening:  # accepts connections (the backlog) but never answers
        listening.bind(("127.0.0.1", 0))
        listening.listen(1)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/agent"
        assert _fail(HttpAgent(url, timeout_s=0.2)) == (
            f"agent endpoint {url} did not answer within 0.2 s (the whole reply; POLYGON_HTTP_AGENT_TIMEOUT)")
