"""A call webhook's database work runs off the event loop: while one delivery waits on a locked
database, the same server still answers other requests, and the delivery completes once the lock
is released."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from polygon.web import _webhooks, create_app
from polygon_core.adapters.settings import load_settings
from tests.orchestration.test_call_arrivals import _vapi_report

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "polygon_core" / "demo" / "agents" / "agent_v1.yaml"
SECRET = "vapi-server-secret-for-tests"


def _report(call_id: str) -> bytes:
    return json.dumps(_vapi_report(call_id)).encode()


@pytest.fixture
def app(polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  vapi-line:\n    platform: vapi\n    secret_env: TEST_VAPI_SECRET\n"
                       f"    agent: {AGENT}\n", encoding="utf-8")
    monkeypatch.setenv("TEST_VAPI_SECRET", SECRET)
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    monkeypatch.setattr(_webhooks, "emit_event", lambda **kwargs: None)  # Prefect events off
    return create_app(load_settings())


async def _post(client: httpx.AsyncClient, call_id: str) -> httpx.Response:
    return await client.post("/webhooks/calls/vapi-line", content=_report(call_id),
                             headers={"Content-Type": "application/json", "X-Vapi-Signature": SECRET})


def test_a_delivery_waiting_on_the_database_does_not_block_the_server(app: Any, polygon_home: Path) -> None:
    async def scenario() -> tuple[int, int, bool, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://polygon") as client:
            first = await _post(client, "call-before-the-lock")  # creates the database and stores
            lock = sqlite3.connect(polygon_home / "polygon.db", timeout=30)
            lock.execute("BEGIN IMMEDIATE")  # another writer holds the database
            try:
                waiting = asyncio.create_task(_post(client, "call-during-the-lock"))
                await asyncio.sleep(0.3)  # the delivery has reached its write and is waiting on it
                health = await asyncio.wait_for(client.get("/healthz"), timeout=20)
                still_waiting = not waiting.done()
            finally:
                lock.rollback()
                lock.close()
            second = await asyncio.wait_for(waiting, timeout=60)
            return first.status_code, health.status_code, still_waiting, second.status_code

    first, health, still_waiting, second = asyncio.run(scenario())
    assert (first, health, still_waiting, second) == (202, 200, True, 202)
