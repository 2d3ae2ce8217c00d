"""A small HTTP agent server for tests: serves the demo agent over Polygon's HTTP agent protocol."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from polygon_core.conversation import AgentRequest
from polygon_core.demo import DemoAgent


@contextmanager
def serve_demo_agent(careful: bool = True) -> Iterator[str]:
    """Serve one DemoAgent per conversation id on a free loopback port; yields the endpoint URL."""
    agents: dict[str, DemoAgent] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            request = AgentRequest.model_validate_json(body)
            with lock:
                agent = agents.setdefault(request.conversation_id, DemoAgent(careful=careful))
                action = asyncio.run(agent.act(request))
            payload = action.model_dump_json().encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/act"
    finally:
        server.shutdown()
        server.server_close()


def reply(body: dict) -> bytes:
    """JSON bytes (helper for handlers in other tests)."""
    return json.dumps(body).encode()
