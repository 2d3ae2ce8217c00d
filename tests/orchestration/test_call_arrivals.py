"""Calls arriving as deployments (#21): signed Vapi and Retell call-ended webhooks posted to the app
`polygon serve` runs, the import-calls flow on Prefect's test server, and S3 objects pulled across
two scheduled pulls (moto's S3 server)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from polygon.flows import import_arrived_calls, pull_calls
from polygon.flows._story import run_tags
from prefect.client.orchestration import get_client

from polygon import usecases
from polygon.web import _webhooks, create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import CallObjectLedger, ImportLedger
from polygon_core.imports import sample_path
from polygon_core.imports._retell import retell_signature
from polygon_core.imports._vapi import vapi_hmac_signature

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "polygon_core" / "demo" / "agents" / "agent_v1.yaml"
VAPI_SECRET = "vapi-server-secret-for-tests"
RETELL_KEY = "key_retell_webhook_badge_test"
HOOK_SECRET = "polygon-webhook-secret-for-s3"


def _vapi_report(call_id: str) -> dict[str, Any]:
    return {"message": {
        "type": "end-of-call-report", "endedReason": "customer-ended-call",
        "startedAt": "2024-05-06T13:20:00.000Z", "endedAt": "2024-05-06T13:21:00.000Z",
        "call": {"id": call_id, "assistantId": "asst-billing", "type": "inboundPhoneCall"},
        "artifact": {"messages": [
            {"role": "bot", "message": "Northwind billing, how can I help?", "time": 1714999201000},
            {"role": "user", "message": "Call me back on 415-555-0132 about my late fee.", "time": 1714999206000},
            {"role": "tool_calls", "toolCalls": [{"id": "k1", "function": {
                "name": "lookup_account", "arguments": "{\"account_id\": \"A-4004\"}"}}]},
            {"role": "tool_call_result", "toolCallId": "k1", "result": "{\"late_fee\": 15}"},
            {"role": "bot", "message": "The late fee is 15 dollars.", "time": 1714999212000}]}}}


def _retell_event(call_id: str, event: str = "call_ended") -> dict[str, Any]:
    return {"event": event, "call": {
        "call_id": call_id, "agent_id": "ag-1", "start_timestamp": 1714999200000, "end_timestamp": 1714999260000,
        "disconnection_reason": "user_hangup", "transcript_object": [
            {"role": "agent", "content": "Hello, Northwind support."},
            {"role": "user", "content": "My email is jane.doe@example.com, reset my password."},
            {"role": "agent", "content": "Done, check your inbox."}]}}


@pytest.fixture
def setup(polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"""sources:
  vapi-line:
    platform: vapi
    secret_env: TEST_VAPI_SECRET
    agent: {AGENT}
    grade_on_arrival: true
  retell-line:
    platform: retell
    secret_env: TEST_RETELL_KEY
    agent: {AGENT}
    grade_on_arrival: true
    redaction_region: GB
""", encoding="utf-8")
    monkeypatch.setenv("TEST_VAPI_SECRET", VAPI_SECRET)
    monkeypatch.setenv("TEST_RETELL_KEY", RETELL_KEY)
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    emitted: list[dict[str, Any]] = []
    real_emit = _webhooks.emit_event

    def recording_emit(**kwargs: Any) -> Any:  # Prefect's own emit, recorded
        emitted.append(kwargs)
        return real_emit(**kwargs)

    monkeypatch.setattr(_webhooks, "emit_event", recording_emit)
    settings = load_settings(webhook_max_body_bytes=8192, webhook_secret=HOOK_SECRET)
    return {"client": TestClient(create_app(settings)), "emitted": emitted, "sources": sources}


def _post_vapi(client: TestClient, payload: Any, secret: str = VAPI_SECRET, body: bytes | None = None) -> Any:
    raw = body if body is not None else json.dumps(payload).encode()
    return client.post("/webhooks/calls/vapi-line", content=raw,
                       headers={"Content-Type": "application/json", "X-Vapi-Signature": secret})


def _post_retell(client: TestClient, payload: Any, *, key: str = RETELL_KEY, at_ms: int | None = None,
                 body: bytes | None = None) -> Any:
    raw = body if body is not None else json.dumps(payload).encode()
    stamp = at_ms if at_ms is not None else int(time.time() * 1000)
    return client.post("/webhooks/calls/retell-line", content=raw,
                       headers={"Content-Type": "application/json",
                                "X-Retell-Signature": retell_signature(key, raw, stamp)})


def _rows(source: str) -> int:
    stores = usecases.open_stores()
    try:
        return ImportLedger(stores.repo.engine).count(source) + CallObjectLedger(stores.repo.engine).count(source)
    finally:
        stores.repo.close()


def test_signed_calls_import_redacted_and_graded_once(setup: dict[str, Any]) -> None:
    client, emitted = setup["client"], setup["emitted"]
    vapi = _post_vapi(client, _vapi_report("vapi-call-1"))
    retell = _post_retell(client, _retell_event("retell-call-1"))
    assert (vapi.status_code, retell.status_code) == (202, 202), (vapi.text, retell.text)
    assert [(e["event"], e["payload"]["source"], e["payload"]["external_ids"]) for e in emitted] == [
        ("polygon.calls.arrived", "vapi-line", ["vapi-call-1"]),
        ("polygon.calls.arrived", "retell-line", ["retell-call-1"])]
    assert all(e["payload"]["location"].startswith("file://") for e in emitted)
    # What is held before the import is already redacted.
    held = Path(emitted[0]["payload"]["location"].removeprefix("file://")).read_text()
    assert "415-555-0132" not in held and "[PHONE]" in held
    # Duplicate deliveries (Retell sends call_analyzed after call_ended) emit nothing.
    assert _post_vapi(client, _vapi_report("vapi-call-1")).json()["duplicate"] is True
    again = _post_retell(client, _retell_event("retell-call-1", "call_analyzed"))
    assert (again.status_code, again.json()["reason"]) == (200, "already received")
    assert len(emitted) == 2

    state = import_arrived_calls(source="vapi-line", return_state=True)
    result = state.result()
    by_source = {s["source"]: s for s in result["sources"]}
    assert {n: (s["arrived"], s["imported"], s["rejected"], s["graded"]) for n, s in by_source.items()} == {
        "retell-line": (1, 1, 0, 1), "vapi-line": (1, 1, 0, 1)}

    stores = usecases.open_stores()
    imports = ImportLedger(stores.repo.engine)
    (vapi_rec,) = imports.select("vapi-line")
    (retell_rec,) = imports.select("retell-line")
    texts = [json.loads(Path(r.artifact_uri.rsplit("#", 1)[0].removeprefix("file://")).read_text()
                        .splitlines()[int(r.artifact_uri.rsplit("#", 1)[1])]) for r in (vapi_rec, retell_rec)]
    said = [" ".join(t["text"] for t in c["turns"]) for c in texts]
    assert "[PHONE]" in said[0] and "415-555-0132" not in said[0]
    assert "[EMAIL]" in said[1] and "jane.doe@example.com" not in said[1]
    assert [c["name"] for t in texts[0]["turns"] for c in t["tool_calls"]] == ["lookup_account"]
    # Grade on arrival: one judged production run per source, each conversation judged.
    runs = [r for r in stores.repo.list_runs(limit=None) if r.source == "production"]
    assert sorted(r.suite for r in runs) == ["production:retell-line", "production:vapi-line"]
    for run in runs:
        assert run.status == "complete"
        (conv_id,) = stores.repo.conversation_ids(run.id)
        (judgment,) = stores.repo.judgments(run.id)
        assert (judgment.conversation_id, judgment.judge_model) == (conv_id, "offline-heuristic")
        assert judgment.composite is not None
    # Graded by the production grading loop: the flow run carries the tags of the runs it graded.
    with get_client(sync_client=True) as prefect:
        assert sorted(prefect.read_flow_run(state.state_details.flow_run_id).tags) == run_tags(runs)
    assert {"suite:production:retell-line", "suite:production:vapi-line", "source:production"} <= set(run_tags(runs))
    stores.repo.close()
    # The import is done once: another run finds nothing waiting, and a re-sent call is a no-op.
    assert import_arrived_calls(source="vapi-line")["sources"] == []
    assert _post_vapi(client, _vapi_report("vapi-call-1")).json() == {
        "duplicate": True, "external_id": "vapi-call-1", "reason": "already imported"}
    assert len(emitted) == 2


def test_forged_replayed_and_oversized_calls_store_and_emit_nothing(setup: dict[str, Any]) -> None:
    client, emitted = setup["client"], setup["emitted"]
    assert _post_vapi(client, _vapi_report("v-forged"), secret="guessed").status_code == 401
    unsigned = client.post("/webhooks/calls/vapi-line", content=json.dumps(_vapi_report("v-x")).encode(),
                           headers={"Content-Type": "application/json"})
    assert unsigned.status_code == 401
    raw = json.dumps(_vapi_report("v-hmac")).encode()
    stale = client.post("/webhooks/calls/vapi-line", content=raw, headers={
        "Content-Type": "application/json", "X-Timestamp": "1714999200",
        "X-Signature": vapi_hmac_signature(VAPI_SECRET, "1714999200", raw)})
    assert stale.status_code == 401  # a correctly signed request from 2024: replayed
    assert _post_retell(client, _retell_event("r-forged"), key="key_someone_else").status_code == 401
    replayed = _post_retell(client, _retell_event("r-old"), at_ms=1714999200000)
    assert replayed.status_code == 401
    tampered_body = json.dumps(_retell_event("r-tampered")).encode()
    signed_other = retell_signature(RETELL_KEY, tampered_body, int(time.time() * 1000))
    tampered = client.post("/webhooks/calls/retell-line", content=tampered_body.replace(b"user_hangup", b"agent_hangup"),
                           headers={"Content-Type": "application/json", "X-Retell-Signature": signed_other})
    assert tampered.status_code == 401
    big = _retell_event("r-big")
    big["call"]["transcript_object"][1]["content"] = "x" * 9000
    assert _post_retell(client, big).status_code == 413
    assert _post_vapi(client, {"message": {"type": "end-of-call-report", "call": {"id": "v-empty"},
                                           "artifact": {"messages": []}}}).status_code == 422
    assert _post_retell(client, None, body=b"{not json").status_code == 422
    assert client.post("/webhooks/calls/nowhere", content=b"{}",
                       headers={"Content-Type": "application/json"}).status_code == 404
    ignored = _post_vapi(client, {"message": {"type": "status-update", "status": "in-progress"}})
    assert (ignored.status_code, ignored.json()) == (200, {"ignored": "this event carries no finished call"})
    assert emitted == []
    assert (_rows("vapi-line"), _rows("retell-line")) == (0, 0)


def test_s3_objects_are_imported_once_across_two_scheduled_pulls(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, s3_endpoint: str) -> None:
    import boto3

    monkeypatch.setenv("POLYGON_S3_ENDPOINT_URL", s3_endpoint)
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  nightly:\n    platform: vapi\n    secret_env: UNUSED_SECRET\n"
                       "    s3_prefix: s3://calls-drop/nightly/\n", encoding="utf-8")
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    client.create_bucket(Bucket="calls-drop")
    client.put_object(Bucket="calls-drop", Key="nightly/2024-05-06/vapi_calls.json",
                      Body=sample_path("vapi").read_bytes())
    client.put_object(Bucket="calls-drop", Key="elsewhere/vapi_calls.json", Body=b"[]")

    first = pull_calls()
    assert first["new_objects"] == {"nightly": 1}
    assert [(s["source"], s["arrived"], s["imported"], s["duplicates"]) for s in first["sources"]] == [
        ("nightly", 1, 2, 0)]
    # A second night: one new object, and the first one listed again unchanged.
    one_call = json.loads(sample_path("vapi").read_text())[:1]
    one_call[0]["id"] = "second-night-call"
    client.put_object(Bucket="calls-drop", Key="nightly/2024-05-07/vapi_calls.json", Body=json.dumps(one_call).encode())
    second = pull_calls()
    assert second["new_objects"] == {"nightly": 1}
    assert [(s["arrived"], s["imported"], s["duplicates"]) for s in second["sources"]] == [(1, 1, 0)]
    assert pull_calls()["new_objects"] == {"nightly": 0}
    stores = usecases.open_stores()
    assert ImportLedger(stores.repo.engine).count("nightly") == 3
    assert CallObjectLedger(stores.repo.engine).count("nightly", pending=False) == 2
    stores.repo.close()


def test_weekly_grading_grades_what_arrived_by_webhook(setup: dict[str, Any]) -> None:
    from polygon.flows import weekly_production_grading

    assert _post_vapi(setup["client"], _vapi_report("weekly-call")).status_code == 202
    # No `source`: every configured source; the waiting arrival is imported first, then graded.
    out = weekly_production_grading(days=100_000)
    # Imported, not graded on arrival as well: the window's run below grades it, once.
    assert [(s["source"], s["imported"], s["graded"]) for s in out["arrivals"]["sources"]] == [("vapi-line", 1, 0)]
    assert sorted(out["sources"]) == ["retell-line", "vapi-line"]
    assert out["sources"]["retell-line"]["runs"] == []
    (card,) = out["sources"]["vapi-line"]["runs"]
    assert card["conversations"] == 1


def test_an_s3_event_notification_records_its_objects_for_the_same_import(
        polygon_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, s3_endpoint: str) -> None:
    import boto3

    from polygon.web import sign

    monkeypatch.setenv("POLYGON_S3_ENDPOINT_URL", s3_endpoint)
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  drops:\n    platform: retell\n    secret_env: UNUSED_KEY\n"
                       "    s3_prefix: s3://notified/in/\n", encoding="utf-8")
    monkeypatch.setenv("POLYGON_SOURCES", str(sources))
    emitted: list[dict[str, Any]] = []
    real_emit = _webhooks.emit_event
    monkeypatch.setattr(_webhooks, "emit_event", lambda **kw: (emitted.append(kw), real_emit(**kw))[1])
    s3 = boto3.client("s3", endpoint_url=s3_endpoint)
    s3.create_bucket(Bucket="notified")
    put = s3.put_object(Bucket="notified", Key="in/retell calls.json", Body=sample_path("retell").read_bytes())
    etag = put["ETag"].strip('"')
    # What S3 sends through SQS: the key URL-encoded (a space is `+`).
    notification = json.dumps({"Records": [{"eventName": "ObjectCreated:Put", "s3": {
        "bucket": {"name": "notified"}, "object": {"key": "in/retell+calls.json", "eTag": etag}}}]}).encode()
    client = TestClient(create_app(load_settings(webhook_secret=HOOK_SECRET)))

    def post(body: bytes, secret: str = HOOK_SECRET) -> Any:
        return client.post("/webhooks/calls/drops/s3", content=body, headers={
            "Content-Type": "application/json", "X-Hub-Signature-256": sign(secret, body)})

    assert post(notification, secret="wrong").status_code == 401
    assert post(json.dumps({"Records": []}).encode()).status_code == 422
    # Signed, but naming an object outside the source's prefix, or a malformed record: 422, no event.
    elsewhere = json.dumps({"Records": [{"s3": {"bucket": {"name": "payroll"}, "object": {"key": "in/x.json"}}}]})
    outside = post(elsewhere.encode())
    assert (outside.status_code, outside.json()["detail"]) == (
        422, "s3://payroll/in/x.json is not under the source's s3_prefix s3://notified/in/")
    assert post(json.dumps({"Records": [{"s3": {"bucket": "notified", "object": ["k"]}}]}).encode()).status_code == 422
    assert emitted == []
    accepted = post(notification)
    assert (accepted.status_code, accepted.json()["objects"]) == (202, 1)
    assert [(e["event"], e["payload"]["objects"]) for e in emitted] == [
        ("polygon.calls.arrived", ["s3://notified/in/retell calls.json"])]
    assert post(notification).json() == {"duplicate": True, "objects": 0}  # SQS delivers at least once
    result = import_arrived_calls(source="drops")
    assert [(s["source"], s["arrived"], s["imported"]) for s in result["sources"]] == [("drops", 1, 2)]
    assert len(emitted) == 1
