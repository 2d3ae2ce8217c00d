"""The signed webhook receiver: every refusal has its status code and emits nothing."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import (
    DatabaseDeliveryStore,
    MemoryDeliveryStore,
    PromptTarget,
    WebhookConfig,
    create_app,
    glob_match,
    sign,
    verify_signature,
)
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import DeliveryLedger, ensure_database

SECRET = "s3cr3t-webhook-key-do-not-log"
PROMPT = {"agent_path": "agents/support.yaml", "prompt_hash": "abc123def456",
          "suite_path": "suites/support"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_max_body_bytes=2048,
                             webhook_prompts={"prompts/**/*.md": "agents/support.yaml",
                                              "billing/*.txt": {"agent": "agents/billing.yaml",
                                                                "suite": "suites/billing"}})
    return TestClient(create_app(settings))


def _post(client: TestClient, path: str, payload: Any, *, delivery: str | None = None,
          secret: str = SECRET, content_type: str = "application/json",
          headers: dict[str, str] | None = None, body: bytes | None = None) -> Any:
    raw = body if body is not None else json.dumps(payload).encode()
    sent = {"Content-Type": content_type, "X-Hub-Signature-256": sign(secret, raw),
            "X-Polygon-Delivery": delivery or str(uuid.uuid4()), **(headers or {})}
    return client.post(path, content=raw, headers=sent)


def test_signature_helpers_match_githubs_example() -> None:
    # GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign("It's a Secret to Everybody", b"Hello, World!") == expected
    assert verify_signature("It's a Secret to Everybody", b"Hello, World!", expected) is True
    assert verify_signature("It's a Secret to Everybody", b"Hello, World!", expected[:-1] + "0") is False
    assert verify_signature("It's a Secret to Everybody", b"Hello, World!", None) is False
    assert verify_signature("It's a Secret to Everybody", b"Hello, World!", expected[7:]) is False


def test_valid_prompt_commit_emits_one_event_and_answers_202(client: TestClient,
                                                             emitted: list[dict[str, Any]]) -> None:
    response = _post(client, "/webhooks/prompt-commit", PROMPT, delivery="d-1")
    assert response.status_code == 202
    assert len(emitted) == 1
    event = emitted[0]
    assert response.json() == {"delivery": "d-1", "event_id": str(event["id"]),
                               "event_ids": [str(event["id"])]}
    assert event["event"] == "polygon.prompt.committed"
    assert event["resource"] == {"prefect.resource.id": "polygon.agent.agents/support.yaml",
                                 "prefect.resource.name": "agents/support.yaml"}
    assert event["payload"] == {**PROMPT, "prompt_path": None, "commit": None, "previous_run_id": None,
                                "source": "webhook", "delivery": "d-1"}


def test_forged_signature_is_401_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    assert _post(client, "/webhooks/prompt-commit", PROMPT, secret="wrong").status_code == 401
    raw = json.dumps(PROMPT).encode()
    unsigned = client.post("/webhooks/prompt-commit", content=raw,
                           headers={"Content-Type": "application/json", "X-Polygon-Delivery": "u-1"})
    assert unsigned.status_code == 401
    # A valid signature over a different body (a tampered payload) is forged too.
    tampered = client.post("/webhooks/prompt-commit", content=raw.replace(b"support", b"billing"),
                           headers={"Content-Type": "application/json", "X-Polygon-Delivery": "u-2",
                                    "X-Hub-Signature-256": sign(SECRET, raw)})
    assert tampered.status_code == 401
    assert emitted == []


def test_replayed_delivery_is_409_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    assert _post(client, "/webhooks/prompt-commit", PROMPT, delivery="same").status_code == 202
    replay = _post(client, "/webhooks/prompt-commit", PROMPT, delivery="same")
    assert replay.status_code == 409
    assert replay.json() == {"detail": "delivery same was already received"}
    assert len(emitted) == 1


def test_oversized_body_is_413_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    big = {**PROMPT, "prompt_path": "x" * 4000}
    assert _post(client, "/webhooks/prompt-commit", big).status_code == 413
    assert emitted == []


def test_wrong_content_type_is_415_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = _post(client, "/webhooks/prompt-commit", PROMPT, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert emitted == []


@pytest.mark.parametrize("payload", [
    {"prompt_hash": "abc"},                                    # no agent
    {**PROMPT, "unexpected": 1},                               # extra field
    {**PROMPT, "prompt_hash": ""},                             # empty hash
    ["not", "an", "object"],
])
def test_invalid_payload_is_422_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]],
                                                  payload: Any) -> None:
    assert _post(client, "/webhooks/prompt-commit", payload).status_code == 422
    assert emitted == []


def test_invalid_json_and_missing_delivery_id_are_422(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    assert _post(client, "/webhooks/prompt-commit", None, body=b"{not json").status_code == 422
    raw = json.dumps(PROMPT).encode()
    no_id = client.post("/webhooks/prompt-commit", content=raw,
                        headers={"Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw)})
    assert no_id.status_code == 422
    assert emitted == []


def test_a_refused_payload_does_not_burn_its_delivery_id(client: TestClient,
                                                         emitted: list[dict[str, Any]]) -> None:
    assert _post(client, "/webhooks/prompt-commit", {"prompt_hash": "x"}, delivery="retry").status_code == 422
    assert _post(client, "/webhooks/prompt-commit", PROMPT, delivery="retry").status_code == 202
    assert len(emitted) == 1


def _push(*commits: dict[str, list[str]]) -> dict[str, Any]:
    return {"ref": "refs/heads/main", "before": "0" * 40, "after": "a1b2c3d4e5f6a7b8c9d0" * 2,
            "repository": {"full_name": "acme/agents", "private": True},
            "pusher": {"name": "dev"}, "head_commit": None,
            "commits": [{"id": f"c{i}", "message": "m", **c} for i, c in enumerate(commits)]}


def test_github_push_detects_changed_prompt_files(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    payload = _push({"added": ["prompts/support/greeting.md", "README.md"], "modified": [], "removed": []},
                    {"added": [], "modified": ["prompts/tone.md", "billing/main.txt", "billing/x/deep.txt"],
                     "removed": ["prompts/old.md"]})
    response = _post(client, "/webhooks/prompt-commit", payload, delivery="gh-1",
                     headers={"X-GitHub-Event": "push", "X-GitHub-Delivery": "gh-1"})
    assert response.status_code == 202
    assert [e["payload"]["agent_path"] for e in emitted] == ["agents/support.yaml", "agents/billing.yaml"]
    support, billing = (e["payload"] for e in emitted)
    assert support["prompt_paths"] == ["prompts/support/greeting.md", "prompts/tone.md"]
    assert support["prompt_hash"] == "git:" + "a1b2c3d4e5f6a7b8c9d0" * 2
    assert support["suite_path"] is None and support["repository"] == "acme/agents"
    assert support["source"] == "github"
    assert billing["prompt_paths"] == ["billing/main.txt"] and billing["suite_path"] == "suites/billing"
    assert response.json()["event_ids"] == [str(e["id"]) for e in emitted]


def test_github_push_without_prompt_changes_and_ping_emit_nothing(client: TestClient,
                                                                  emitted: list[dict[str, Any]]) -> None:
    push = _post(client, "/webhooks/prompt-commit", _push({"modified": ["README.md"]}),
                 headers={"X-GitHub-Event": "push"})
    assert push.status_code == 202 and push.json()["event_ids"] == []
    ping = _post(client, "/webhooks/prompt-commit", {"zen": "Keep it simple."}, headers={"X-GitHub-Event": "ping"})
    assert ping.status_code == 202
    other = _post(client, "/webhooks/prompt-commit", {"action": "opened"}, headers={"X-GitHub-Event": "issues"})
    assert other.status_code == 422
    assert emitted == []


def test_sweep_request_emits_sweep_event(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    # The spec must load (the roots are the working folder, the repository): the bundled one does.
    response = _post(client, "/webhooks/sweep", {"spec_path": "polygon_core/demo/sweeps/noise.yaml"}, delivery="sw-1")
    assert response.status_code == 202
    assert [(e["event"], e["payload"]) for e in emitted] == [
        ("polygon.sweep.requested", {"spec_path": "polygon_core/demo/sweeps/noise.yaml", "delivery": "sw-1"})]
    assert _post(client, "/webhooks/sweep", {"spec_path": ""}).status_code == 422
    assert _post(client, "/webhooks/sweep", {}).status_code == 422
    assert len(emitted) == 1


def test_no_secret_configured_refuses_everything(emitted: list[dict[str, Any]], tmp_path: Path) -> None:
    client = TestClient(create_app(load_settings(home=tmp_path, webhook_secret="")))
    assert _post(client, "/webhooks/prompt-commit", PROMPT).status_code == 401
    assert emitted == []


def test_secrets_never_reach_the_logs(client: TestClient, emitted: list[dict[str, Any]],
                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    _post(client, "/webhooks/prompt-commit", PROMPT, delivery="log-1")
    _post(client, "/webhooks/prompt-commit", PROMPT, secret="forged-key", delivery="log-2")
    _post(client, "/webhooks/prompt-commit", PROMPT, delivery="log-1")
    text = caplog.text
    assert "webhook prompt-commit delivery log-1 accepted: 1 event(s)" in text
    assert "refused (401)" in text and "refused (409)" in text
    for secret in (SECRET, "forged-key", sign(SECRET, json.dumps(PROMPT).encode())[7:]):
        assert secret not in text


def test_delivery_store_expires_and_stays_bounded() -> None:
    now = [0.0]
    store = MemoryDeliveryStore(capacity=2, ttl_seconds=10, clock=lambda: now[0])
    assert [store.reserve("a"), store.reserve("a"), store.reserve("b")] == [True, False, True]
    assert store.reserve("c") is True and len(store) == 2      # "a" evicted beyond capacity
    assert store.reserve("a") is True
    now[0] = 25.0
    assert store.reserve("c") is True                         # expired
    store.release("c")
    assert store.reserve("c") is True


def test_glob_match() -> None:
    assert glob_match("prompts/a.md", "prompts/**/*.md") is True
    assert glob_match("prompts/x/y/a.md", "prompts/**/*.md") is True
    assert glob_match("other/prompts/a.md", "prompts/**/*.md") is False
    assert glob_match("billing/x/a.txt", "billing/*.txt") is False
    assert glob_match("a.prompt.md", "**/*.prompt.md") is True
    assert PromptTarget(agent="a.yaml").suite is None


# -- delivery ids in the database --------------------------------------------------------------


@pytest.fixture
def ledger(tmp_path: Path) -> DeliveryLedger:
    return DeliveryLedger(ensure_database(f"sqlite:///{tmp_path / 'polygon.db'}").engine)


def test_ledger_claims_once_until_expiry(ledger: DeliveryLedger) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    day = 24 * 3600.0
    assert ledger.claim("d-1", "sweep", ttl_seconds=day, now=t0) is True
    assert ledger.claim("d-1", "sweep", ttl_seconds=day, now=t0 + timedelta(hours=23)) is False
    assert ledger.claim("d-2", "prompt-commit", ttl_seconds=day, now=t0) is True
    assert ledger.count() == 2
    # A day later both have expired: the next claim deletes them and d-1 is new again.
    assert ledger.claim("d-1", "sweep", ttl_seconds=day, now=t0 + timedelta(days=1)) is True
    assert ledger.count() == 1
    ledger.release("d-1")
    assert ledger.count() == 0


def test_ledger_rows_hold_kind_and_times(ledger: DeliveryLedger) -> None:
    import sqlalchemy as sa

    ledger.claim("gh-9", "prompt-commit", ttl_seconds=7 * 24 * 3600,
                 now=datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    with ledger.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT * FROM polygon_webhook_delivery")).all()
    assert [tuple(r) for r in rows] == [("gh-9", "prompt-commit", "2026-03-01T12:00:00.000000+00:00",
                                         "2026-03-08T12:00:00.000000+00:00")]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One database two receivers share: a SQLite file, or a fresh Postgres database at head."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    from polygon_core.adapters.storage import Repository

    url = request.getfixturevalue("postgres_url")
    with Repository(url) as repository:
        repository.upgrade()  # Postgres is never migrated implicitly (`polygon db upgrade`)
    return url


def test_concurrent_claims_of_one_id_accept_exactly_one(shared_url: str) -> None:
    url = shared_url
    # Two receivers sharing one database, each with its own engine (as two replicas would).
    stores = [DatabaseDeliveryStore(lambda: ensure_database(url).engine, ttl_seconds=3600) for _ in range(2)]
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def claim(store: DatabaseDeliveryStore) -> None:
        barrier.wait()
        results.append(store.reserve("same-delivery", "sweep"))

    threads = [threading.Thread(target=claim, args=(stores[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]


def test_replay_days_setting_sets_the_expiry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYGON_WEBHOOK_REPLAY_DAYS", "2")
    monkeypatch.setenv("POLYGON_WEBHOOK_ROOTS", f"{tmp_path}/a:{tmp_path}/b")
    config = WebhookConfig.from_settings(load_settings())
    assert config.delivery_ttl_seconds == 2 * 24 * 3600
    assert config.roots == [tmp_path / "a", tmp_path / "b"]
    monkeypatch.setenv("POLYGON_WEBHOOK_ROOTS", json.dumps([str(tmp_path / "c")]))
    assert load_settings().webhook_roots == [tmp_path / "c"]
    monkeypatch.delenv("POLYGON_WEBHOOK_ROOTS")
    assert WebhookConfig.from_settings(load_settings()).resolved_roots() == [Path.cwd().resolve()]


def test_an_unreachable_ledger_is_503_and_emits_nothing(tmp_path: Path, emitted: list[dict[str, Any]],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    url = "postgresql+psycopg://polygon:hunter2@127.0.0.1:9/none"  # nothing listens on port 9
    settings = load_settings(home=tmp_path, database_url=url, webhook_secret=SECRET)
    client = TestClient(create_app(settings))
    response = _post(client, "/webhooks/sweep", {"spec_path": "sweeps/a.yaml"})
    assert (response.status_code, response.json()) == (503, {"detail": (
        "the webhook delivery ledger (Polygon's database) is unavailable; see the server log")})
    assert emitted == []
    assert "hunter2" not in caplog.text
