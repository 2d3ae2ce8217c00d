"""A production call is findable on its platform, and an import says what it read.

Findings from an operator's session: results showed only Polygon's `prod-…` id, never the
platform's call id; a Vapi end-of-call report without `call.id` was accepted under a content hash
and one without a start time never entered a weekly window; `polygon import` demanded `--format`
although the docs said the name picks it, and a Vapi array read as Polygon's format was rejected
call by call for an "extra" field, which named a field and not the mistake.
"""

from __future__ import annotations

import json
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon.web import _webhooks, create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import ImportLedger
from polygon_core.demo import demo_dir
from polygon_core.imports import format_time, guess_format, sample_path

V1 = str(demo_dir() / "agents" / "agent_v1.yaml")
VAPI_ID = "0f4d2c1e-8b1a-4c55-9a57-2b8f3c1d7e01"  # the first call of the Vapi sample (May 6)
SECRET = "vapi-server-secret-for-tests"
LOOPBACK = ("127.0.0.1", 50123)


# -- 1. the platform's call id wherever a production conversation is listed or shown --------------


@pytest.fixture
def graded(stores: usecases.Stores) -> tuple[str, dict[str, str]]:
    """A production run of source `prod` (Polygon's and Vapi's samples), and conversation id →
    the external id each came with."""
    usecases.import_calls(stores, [str(sample_path("polygon"))], "polygon", source="prod", agent_path=V1)
    usecases.import_calls(stores, [str(sample_path("vapi"))], "vapi", source="prod", agent_path=V1)
    (run,) = usecases.grade_production(stores, "prod", "2024-05-06", "2024-05-07", agent_path=V1)
    ledger = ImportLedger(stores.repo.engine).select("prod", "2024-05-06", "2024-05-08")
    return run.id, {r.conversation_id: r.external_id for r in ledger}


def test_show_json_and_text_name_each_calls_source_and_platform_id(graded: tuple[str, dict[str, str]]) -> None:
    run_id, external = graded
    result = CliRunner().invoke(app, ["show", run_id, "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["conversations"]
    assert {r["conversation_id"]: r["origin"] for r in rows} == {
        cid: {"source": "prod", "external_id": ext} for cid, ext in external.items()}
    assert sorted(external.values()) == [VAPI_ID, "call-0001", "call-0002"]
    text = CliRunner().invoke(app, ["show", run_id], env={"COLUMNS": "220"})
    assert text.exit_code == 0, text.output
    assert "call (source: id)" in text.stdout
    assert f"prod: {VAPI_ID}" in text.stdout and "prod: call-0001" in text.stdout


def test_the_web_api_lists_and_shows_the_platform_call_id(graded: tuple[str, dict[str, str]],
                                                          polygon_home: Path) -> None:
    run_id, external = graded
    client = TestClient(create_app(load_settings()), client=LOOPBACK)
    listed = client.get(f"/api/runs/{run_id}/conversations")
    assert listed.status_code == 200, listed.text
    assert {r["conversation_id"]: r["origin"] for r in listed.json()["items"]} == {
        cid: {"source": "prod", "external_id": ext} for cid, ext in external.items()}
    vapi = next(cid for cid, ext in external.items() if ext == VAPI_ID)
    searched = client.get(f"/api/runs/{run_id}/conversations", params={"q": vapi})  # the filtered path
    assert [r["origin"] for r in searched.json()["items"]] == [{"source": "prod", "external_id": VAPI_ID}]
    shown = client.get(f"/api/runs/{run_id}/conversations/{vapi}")
    assert shown.status_code == 200, shown.text
    assert shown.json()["origin"] == {"source": "prod", "external_id": VAPI_ID}
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert set(schema["CallOriginOut"]["properties"]) == {"source", "external_id"}
    assert "origin" in schema["ConversationRow"]["properties"]


# -- 2. a Vapi report without a call id, or without a start time -----------------------------------


def _report(call: dict[str, Any], started: str | None = "2024-05-06T13:20:00.000Z") -> bytes:
    message: dict[str, Any] = {"type": "end-of-call-report", "endedReason": "customer-ended-call", "call": call,
                               "artifact": {"messages": [{"role": "user", "message": "hi"},
                                                         {"role": "bot", "message": "Hello, how can I help?"}]}}
    if started is not None:
        message["startedAt"] = started
    return json.dumps({"message": message}).encode()


@pytest.fixture
def webhook(polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  vline:\n    platform: vapi\n    secret_env: TEST_VAPI_SECRET\n", encoding="utf-8")
    monkeypatch.setenv("TEST_VAPI_SECRET", SECRET)
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    monkeypatch.setattr(_webhooks, "emit_event", lambda **kwargs: None)  # Prefect events off
    return TestClient(create_app(load_settings()), client=LOOPBACK)


def _post(client: TestClient, body: bytes) -> Any:
    return client.post("/webhooks/calls/vline", content=body,
                       headers={"Content-Type": "application/json", "X-Vapi-Signature": SECRET})


def test_a_report_without_a_call_id_is_refused_naming_the_field(webhook: TestClient,
                                                                stores: usecases.Stores) -> None:
    answer = _post(webhook, _report({}))
    assert answer.status_code == 422
    assert answer.json() == {"detail": "invalid call: no `message.call.id` in the end-of-call report "
                                       "(the Vapi call's id, which Polygon keys the call by)"}
    assert stores.artifacts.list("arrivals/") == []  # nothing held for import


def test_a_call_without_a_start_time_is_dated_by_its_arrival_and_graded_in_that_window(
        webhook: TestClient, stores: usecases.Stores) -> None:
    before = format_time(datetime.fromtimestamp(time.time() - 1, UTC))
    answer = _post(webhook, _report({"id": "vcall-undated"}, started=None))
    after = format_time(datetime.fromtimestamp(time.time() + 1, UTC))
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["external_id"] == "vcall-undated"
    assert body["note"] == "the call has no start time: it is dated by its arrival"
    assert before <= body["started_at"] <= after
    (held,) = stores.artifacts.list("arrivals/")
    record = json.loads(stores.artifacts.get_text(held))
    assert (record["started_at"], record["metadata"]["started_at_from"]) == (body["started_at"], "arrival")
    usecases.import_arrivals(stores, usecases.configured_sources(stores), "batch-1")
    day = body["started_at"][:10]
    window = ImportLedger(stores.repo.engine).select("vline", f"{day}T00:00:00.000000Z", f"{day}T23:59:59.999999Z")
    assert [(r.external_id, r.started_at) for r in window] == [("vcall-undated", body["started_at"])]
    dated = _post(webhook, _report({"id": "vcall-dated"}))  # a report with its start time keeps it
    assert (dated.status_code, set(dated.json())) == (202, {"external_id", "event_id"})


# -- 3. `polygon import` picks the format by name, as grade-calls does ------------------------------


def test_import_without_format_uses_the_name_hint(polygon_home: Path, tmp_path: Path) -> None:
    exported = tmp_path / "calls-vapi.json"
    shutil.copy(sample_path("vapi"), exported)
    result = CliRunner().invoke(app, ["import", str(exported), "--source", "line9", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"read": 2, "imported": 2, "duplicates": 0, "rejected": 0, "errors": []}
    assert guess_format(str(exported)) == "vapi"


def test_import_of_a_name_that_says_nothing_asks_for_format(polygon_home: Path, tmp_path: Path) -> None:
    exported = tmp_path / "export.json"
    shutil.copy(sample_path("vapi"), exported)
    result = CliRunner().invoke(app, ["import", str(exported), "--source", "line9"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {exported}: the file name does not say its format; give --format "
        "(csv | openai | polygon | retell | vapi)"]
    assert guess_format("export.json") is None


def test_a_vapi_export_read_as_polygon_format_says_which_format_it_is(polygon_home: Path, tmp_path: Path) -> None:
    exported = tmp_path / "export.json"
    shutil.copy(sample_path("vapi"), exported)
    result = CliRunner().invoke(app, ["import", str(exported), "--format", "polygon", "--source", "x", "--json"])
    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert errors == [
        f"{exported}:2 (conversation '{VAPI_ID}'): orgId: Extra inputs are not permitted; "
        "this looks like a vapi export: use --format vapi",
        f"{exported}:24 (conversation '7c9e6679-7425-40de-944b-e07fc1f90ae7'): assistantId: Extra inputs are "
        "not permitted; this looks like a vapi export: use --format vapi"]
