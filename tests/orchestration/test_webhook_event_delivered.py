"""A webhook's 202 means its event reached the Prefect server: with the API unreachable the answer is
503 and the delivery id is not kept, so the sender's retry (once Prefect is back) is accepted.

Before: Prefect's `emit_event` queued the event for a background worker and the webhook answered
202; the worker then logged "event data ... may be lost", and the retry got 409 (already received).
"""

from __future__ import annotations

import json
import shutil
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prefect.client.orchestration import get_client
from prefect.events.filters import EventFilter, EventIDFilter
from prefect.settings import PREFECT_API_URL, temporary_settings

from polygon.web import create_app
from polygon.web._webhooks import sign
from polygon_core.adapters.settings import load_settings

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]

SECRET = "delivered-secret"
REPO = Path(__file__).resolve().parents[2]


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "polygon_core" / "demo", checkout)
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_roots=[checkout])
    return TestClient(create_app(settings))


def _sweep(client: TestClient, delivery: str) -> Any:
    raw = json.dumps({"spec_path": "sweeps/noise.yaml"}).encode()
    return client.post("/webhooks/sweep", content=raw, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw),
        "X-Polygon-Delivery": delivery})


def _stored_event(event_id: str) -> list[str]:
    """The names of the events the Prefect server holds with this id (it stores them shortly after)."""
    with get_client(sync_client=True) as prefect:
        for _ in range(50):
            page = prefect.read_events(filter=EventFilter(id=EventIDFilter(id=[uuid.UUID(event_id)])), limit=10)
            if page.events:
                return [e.event for e in page.events]
            time.sleep(0.2)
    return []


def test_prefect_down_is_503_and_the_retry_after_it_is_up_is_202(client: TestClient) -> None:
    down = f"http://127.0.0.1:{_unused_port()}/api"
    with temporary_settings(updates={PREFECT_API_URL: down}):
        refused = _sweep(client, "gh-lost-7")
    assert refused.status_code == 503
    assert refused.json() == {"detail": f"the Prefect API at {down} did not take the event: "
                                        "[Errno 111] Connection refused; nothing was recorded: retry the delivery"}

    accepted = _sweep(client, "gh-lost-7")  # the sender's retry, with the harness's server up
    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert body["delivery"] == "gh-lost-7"
    assert _stored_event(body["event_id"]) == ["polygon.sweep.requested"]

    replay = _sweep(client, "gh-lost-7")  # once accepted, the id is kept
    assert (replay.status_code, replay.json()) == (409, {"detail": "delivery gh-lost-7 was already received"})
