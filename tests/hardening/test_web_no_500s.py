"""The three 500s of issue #32 item 7, each a clear 4xx now: a sweep name no sweep is stored under
(a backslash or NUL from the URL was the artifact store's refused key), and a signed JSON body
nested 100,000 levels deep on the sweep and Vapi webhooks (the parser's RecursionError)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app, sign
from polygon_core.adapters.settings import load_settings

SECRET = "no-500s-webhook-secret"
VAPI_SECRET = "no-500s-vapi-secret"
DEEP = b"[" * 100_000 + b"]" * 100_000  # valid JSON, deeper than any parser recursion allows
TOO_DEEP = {"detail": "body is nested more than 64 levels deep"}


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  vline:\n    platform: vapi\n    secret_env: NO_500S_VAPI_SECRET\n",
                       encoding="utf-8")
    monkeypatch.setenv("NO_500S_VAPI_SECRET", VAPI_SECRET)
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_roots=[tmp_path],
                             webhook_max_body_bytes=1_000_000, sources=str(sources))
    return TestClient(create_app(settings), client=("127.0.0.1", 50123), raise_server_exceptions=False)


@pytest.mark.parametrize(("path", "name"), [
    ("/api/sweeps/a%5Cb", "a\\b"), ("/api/sweeps/a%5Cb/curves", "a\\b"),
    ("/api/sweeps/a%00b", "a\x00b"), ("/api/sweeps/%2E%2E/curves", "..")])
def test_a_sweep_name_no_sweep_can_have_is_404(client: TestClient, path: str, name: str) -> None:
    response = client.get(path)
    assert (response.status_code, response.json()) == (404, {"detail": f"no sweep {name!r} is stored"})


def test_a_signed_deep_body_on_the_sweep_webhook_is_422(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = client.post("/webhooks/sweep", content=DEEP, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, DEEP),
        "X-Polygon-Delivery": str(uuid.uuid4())})
    assert (response.status_code, response.json()) == (422, TOO_DEEP)
    assert emitted == []


def test_a_body_just_over_the_depth_limit_is_422_and_one_under_is_read(client: TestClient,
                                                                     emitted: list[dict[str, Any]]) -> None:
    # 65 levels parse without recursion trouble: the limit, not the parser, refuses them.
    over = json.dumps({"spec_path": "sweeps/a.yaml", "extra": json.loads("[" * 64 + "]" * 64)}).encode()
    response = client.post("/webhooks/sweep", content=over, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, over),
        "X-Polygon-Delivery": str(uuid.uuid4())})
    assert (response.status_code, response.json()) == (422, TOO_DEEP)
    under = json.dumps({"spec_path": "sweeps/a.yaml", "extra": json.loads("[" * 63 + "]" * 63)}).encode()
    response = client.post("/webhooks/sweep", content=under, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, under),
        "X-Polygon-Delivery": str(uuid.uuid4())})
    # Read, then refused for what it says (a field the payload has not), not for its depth.
    assert (response.status_code, response.json()) == (
        422, {"detail": "invalid payload: extra: Extra inputs are not permitted"})
    assert emitted == []


def test_a_signed_deep_body_on_the_vapi_webhook_is_422(client: TestClient) -> None:
    response = client.post("/webhooks/calls/vline", content=DEEP, headers={
        "Content-Type": "application/json", "X-Vapi-Signature": VAPI_SECRET})
    assert (response.status_code, response.json()) == (422, TOO_DEEP)
