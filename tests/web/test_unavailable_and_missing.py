"""`polygon serve`'s answers when a store is unreachable (503 with the reason, not a 500 with a
traceback), a run page for a run that does not exist (404), and the webhooks its banner lists."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.models import Run

from .conftest import LOOPBACK

VAPI_SECRET = "vapi-secret-for-503"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _sources(tmp_path: Path) -> Path:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  vline:\n    platform: vapi\n    secret_env: VAPI_503_SECRET\n"
                       "  bucket:\n    platform: polygon\n    s3_prefix: s3://calls/incoming/\n"
                       "  rline:\n    platform: retell\n    secret_env: RETELL_503_KEY\n", encoding="utf-8")
    return sources


def test_an_unreachable_artifact_store_is_503_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("VAPI_503_SECRET", VAPI_SECRET)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # one refused connection, not boto's retries
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    settings = load_settings(home=tmp_path / ".polygon", artifacts_url="s3://nowhere/polygon",
                             s3_endpoint_url=endpoint, sources=str(_sources(tmp_path)))
    client = TestClient(create_app(settings), client=LOOPBACK, raise_server_exceptions=False)
    body = json.dumps({"message": {
        "type": "end-of-call-report", "startedAt": "2024-05-06T13:20:00Z", "endedAt": "2024-05-06T13:21:00Z",
        "call": {"id": "c-503"}, "artifact": {"messages": [
            {"role": "bot", "message": "Northwind billing.", "secondsFromStart": 0},
            {"role": "user", "message": "My balance?", "secondsFromStart": 2}]}}}).encode()
    response = client.post("/webhooks/calls/vline", content=body, headers={
        "Content-Type": "application/json", "X-Vapi-Signature": VAPI_SECRET})
    assert (response.status_code, response.json()) == (
        503, {"detail": "cannot use the artifact store; see the server log"})
    # The server log has the whole line (the endpoint and the setting to check); the answer has not.
    assert any(r.getMessage().startswith("POST /webhooks/calls/vline: 503: cannot reach the artifact store: ")
               and r.getMessage().endswith("(check POLYGON_S3_ENDPOINT_URL)") for r in caplog.records)
    assert endpoint not in response.text


def test_a_run_page_for_no_run_is_404(tmp_path: Path) -> None:
    from polygon.usecases import open_stores

    settings = load_settings(home=tmp_path / ".polygon")
    open_stores(settings).repo.save_run(Run(id="run-kept", suite="demo", agent_name="a", agent_version="abc",
                                            rubric_version="v1", seeds=[0]))
    client = TestClient(create_app(settings), client=LOOPBACK)
    missing = client.get("/runs/nope")
    assert missing.status_code == 404
    assert 'data-page="run"' in missing.text  # the page still loads, and shows the API's reason
    assert client.get("/runs/run-kept").status_code == 200
    assert client.get("/runs/run-k").status_code == 200  # a unique prefix, as the API takes it


def test_the_banner_lists_each_sources_webhooks(tmp_path: Path) -> None:
    from polygon.cli._cmd_serve import webhook_paths

    assert webhook_paths(load_settings(home=tmp_path / ".polygon", sources=str(_sources(tmp_path)))) == [
        "/webhooks/prompt-commit", "/webhooks/sweep", "/webhooks/calls/vline", "/webhooks/calls/bucket/s3",
        "/webhooks/calls/rline"]
    assert webhook_paths(load_settings(home=tmp_path / ".polygon")) == ["/webhooks/prompt-commit", "/webhooks/sweep"]
