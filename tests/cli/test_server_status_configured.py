"""`polygon server status` with a configured Prefect API: it names that API, which commands use as it
is, instead of the local server at 127.0.0.1:4200 or a temporary one."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings
from typer.testing import CliRunner

from polygon.cli._app import app


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass


@pytest.fixture
def answering() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api"
    server.shutdown()
    server.server_close()


def _status(url: str, monkeypatch: pytest.MonkeyPatch, *, in_env: bool) -> tuple[int, str]:
    if in_env:
        monkeypatch.setenv("PREFECT_API_URL", url)
    else:
        monkeypatch.delenv("PREFECT_API_URL", raising=False)
    with temporary_settings(updates={PREFECT_API_URL: url}):
        result = CliRunner().invoke(app, ["server", "status"])
    return result.exit_code, " ".join(result.stdout.split())


def test_an_answering_configured_api_is_named(answering: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _status(answering, monkeypatch, in_env=True) == (
        0, f"commands use the Prefect API at {answering} (set by PREFECT_API_URL): it answers")


def test_a_configured_api_that_does_not_answer_is_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/api"  # closed again when the block ends
    assert _status(url, monkeypatch, in_env=False) == (
        1, f"commands use the Prefect API at {url} (set by the Prefect settings): it does not answer, so "
           "commands that run flows fail until it does")
