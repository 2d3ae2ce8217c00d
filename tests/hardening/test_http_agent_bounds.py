"""An HTTP agent's reply is bounded in size and in time over the whole reply (issue 32, item 2).

Before: a 300 MB reply was read whole (a run reached 5.3 GB) and a reply dripping one byte at a time
restarted httpx's read timeout at every byte. The endpoints here are a threaded `http.server` on
loopback that records how much it managed to write and whether the client closed the connection.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from polygon_core.adapters.agents import agent_factory
from polygon_core.adapters.agents._http import HttpAgent, HttpAgentError
from polygon_core.adapters.settings import load_settings
from polygon_core.conversation import AgentRequest
from polygon_core.models import AgentConfig

CAP = 65_536
CHUNK = 65_536  # httpcore reads the socket 64 KiB at a time
BIG = 64 * 1024 * 1024  # what the big endpoints offer


class _Seen:
    """What the server saw: bytes of body written, and whether the client closed on it."""

    def __init__(self) -> None:
        self.written = 0
        self.closed = threading.Event()


@contextmanager
def _server() -> Iterator[tuple[str, _Seen]]:
    seen = _Seen()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            if self.path == "/declared":  # says its size up front
                self.send_header("content-length", str(BIG))
            elif self.path == "/drip":
                self.send_header("content-length", "400")
            self.end_headers()  # /streamed: no length, the body ends when the connection does
            try:
                if self.path == "/drip":  # one byte every 50 ms: 20 s in all, far past any deadline here
                    for _ in range(400):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        seen.written += 1
                        time.sleep(0.05)
                else:
                    while seen.written < BIG:
                        self.wfile.write(b" " * CHUNK)
                        seen.written += CHUNK
            except (BrokenPipeError, ConnectionResetError):
                seen.closed.set()
            self.close_connection = True

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def _fail(agent: HttpAgent) -> str:
    with pytest.raises(HttpAgentError) as caught:
        asyncio.run(agent.act(AgentRequest(conversation_id="c", turn=0)))
    return str(caught.value)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Sizes of the body chunks the client read (httpx's `aiter_bytes`, counted as they are yielded)."""
    sizes: list[int] = []
    original = httpx.Response.aiter_bytes

    async def counting(self: httpx.Response, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        async for chunk in original(self, chunk_size):
            sizes.append(len(chunk))
            yield chunk

    monkeypatch.setattr(httpx.Response, "aiter_bytes", counting)
    return sizes


def test_a_streamed_body_over_the_cap_is_refused_after_at_most_cap_plus_one_chunk(counted: list[int]) -> None:
    with _server() as (url, seen):
        reason = _fail(HttpAgent(url + "/streamed", max_body_bytes=CAP))
        assert seen.closed.wait(10)  # the client hung up; the server did not get to finish
    assert reason == (f"agent endpoint {url}/streamed answered more than 65,536 bytes "
                      "(the limit, POLYGON_HTTP_AGENT_MAX_BODY_BYTES)")
    assert CAP < sum(counted) <= CAP + CHUNK
    assert seen.written < BIG


def test_a_declared_length_over_the_cap_is_refused_before_reading_the_body(counted: list[int]) -> None:
    with _server() as (url, seen):
        reason = _fail(HttpAgent(url + "/declared", max_body_bytes=CAP))
        assert seen.closed.wait(10)
    assert reason == (f"agent endpoint {url}/declared answered more than 65,536 bytes "
                      "(the limit, POLYGON_HTTP_AGENT_MAX_BODY_BYTES)")
    assert counted == []
    assert seen.written < BIG


def test_a_dripping_reply_ends_at_the_deadline_over_the_whole_reply() -> None:
    with _server() as (url, seen):
        reason = _fail(HttpAgent(url + "/drip", timeout_s=0.3))
        assert seen.closed.wait(10)  # the next drip after the client gave up found the socket closed
    assert reason == (f"agent endpoint {url}/drip did not answer within 0.3 s "
                      "(the whole reply; POLYGON_HTTP_AGENT_TIMEOUT)")
    assert seen.written < 400


def test_the_settings_reach_the_agent_with_documented_defaults() -> None:
    make = agent_factory(AgentConfig(name="a", endpoint="http://127.0.0.1:9/act"),
                         settings=load_settings(http_agent_timeout=2.5, http_agent_max_body_bytes=1000))
    agent = make()
    assert isinstance(agent, HttpAgent)
    assert (agent.timeout_s, agent.max_body_bytes) == (2.5, 1000)
    defaults = load_settings()
    assert (defaults.http_agent_timeout, defaults.http_agent_max_body_bytes) == (30.0, 1_048_576)
