"""A stand-in for Polygon's tool-stub server, as small as the bot needs: `GET /tools` lists
OpenAI-style function definitions, `POST /tools/<name>` answers a call (the JSON arguments are
kept) with a fixed result, and an unknown name with a 404."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOKUP_ORDER: dict[str, Any] = {"type": "function", "function": {
    "name": "lookup_order", "description": "Find the caller's order by account number.",
    "parameters": {"type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}}}
RESULT: dict[str, Any] = {"order_id": "A-1001", "status": "shipped"}


class ToolStub:
    """Start with `with ToolStub() as stub:`; `stub.url` goes into the call's `tools_url`."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/tools"

    def __enter__(self) -> ToolStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _reply(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/tools":
                    return self._reply(200, [LOOKUP_ORDER])
                return self._reply(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                name = self.path.rstrip("/").rsplit("/", 1)[-1]
                stub.calls.append((name, body))
                if name != LOOKUP_ORDER["function"]["name"]:
                    return self._reply(404, {"error": f"no tool {name!r}"})
                return self._reply(200, RESULT)

        return Handler
