"""One test per webhook attack class: each is refused with its status and emits no Prefect event,
while a valid delivery on the same receiver still emits its event.

The receiver runs with its default delivery store (Polygon's database, in a private home), so a
replay "across a restart" is a second app instance on the same database.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app, sign
from polygon_core.adapters.settings import load_settings

SECRET = "attack-class-webhook-secret"
PROMPT = {"agent_path": "agents/support.yaml", "prompt_hash": "abc123", "suite_path": "suites/support"}
OUTSIDE = "is outside the webhook roots (POLYGON_WEBHOOK_ROOTS)"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The one webhook root: a checkout with an agent, a suite and a prompt folder."""
    checkout = tmp_path / "checkout"
    for folder in ("agents", "suites/support", "prompts", "sweeps"):
        (checkout / folder).mkdir(parents=True)
    (checkout / "agents" / "support.yaml").write_text("name: support\n", encoding="utf-8")
    return checkout


def _app(tmp_path: Path, root: Path) -> TestClient:
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_max_body_bytes=4096,
                             webhook_roots=[root], webhook_prompts={"prompts/**/*.md": "agents/support.yaml"})
    return TestClient(create_app(settings))


@pytest.fixture
def client(tmp_path: Path, root: Path) -> TestClient:
    return _app(tmp_path, root)


def _post(client: TestClient, path: str, payload: Any, *, delivery: str | None = None, secret: str = SECRET,
          content_type: str = "application/json", headers: dict[str, str] | None = None) -> Any:
    raw = json.dumps(payload).encode()
    sent = {"Content-Type": content_type, "X-Hub-Signature-256": sign(secret, raw),
            "X-Polygon-Delivery": delivery or str(uuid.uuid4()), **(headers or {})}
    return client.post(path, content=raw, headers=sent)


def _still_accepts(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    """After the attack, a valid delivery is accepted and emits exactly its one event."""
    assert emitted == []
    response = _post(client, "/webhooks/prompt-commit", PROMPT, delivery="valid-after-attack")
    assert response.status_code == 202
    assert [e["event"] for e in emitted] == ["polygon.prompt.committed"]
    assert emitted[0]["payload"]["agent_path"] == "agents/support.yaml"


def test_unsigned(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    raw = json.dumps(PROMPT).encode()
    response = client.post("/webhooks/prompt-commit", content=raw,
                           headers={"Content-Type": "application/json", "X-Polygon-Delivery": "unsigned"})
    assert (response.status_code, response.json()) == (
        401, {"detail": "missing or invalid X-Hub-Signature-256 signature"})
    _still_accepts(client, emitted)


def test_forged_signature(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = _post(client, "/webhooks/sweep", {"spec_path": "sweeps/a.yaml"}, secret="not-the-secret")
    assert (response.status_code, response.json()) == (
        401, {"detail": "missing or invalid X-Hub-Signature-256 signature"})
    _still_accepts(client, emitted)


def test_replayed_across_a_restart(tmp_path: Path, root: Path, emitted: list[dict[str, Any]]) -> None:
    first = _app(tmp_path, root)
    assert _post(first, "/webhooks/prompt-commit", PROMPT, delivery="delivery-42").status_code == 202
    assert len(emitted) == 1
    first.close()
    emitted.clear()
    restarted = _app(tmp_path, root)  # a new process on the same database
    replay = _post(restarted, "/webhooks/prompt-commit", PROMPT, delivery="delivery-42")
    assert (replay.status_code, replay.json()) == (409, {"detail": "delivery delivery-42 was already received"})
    _still_accepts(restarted, emitted)


def test_oversized_body(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = _post(client, "/webhooks/prompt-commit", {**PROMPT, "prompt_path": "p" * 5000})
    assert (response.status_code, response.json()) == (413, {"detail": "body larger than 4096 bytes"})
    _still_accepts(client, emitted)


def test_wrong_content_type(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = _post(client, "/webhooks/prompt-commit", PROMPT, content_type="text/plain")
    assert (response.status_code, response.json()) == (415, {"detail": "content type must be application/json"})
    _still_accepts(client, emitted)


@pytest.mark.parametrize(("hook", "payload", "field"), [
    ("prompt-commit", {**PROMPT, "agent_path": "../../../../etc/passwd"}, "agent_path"),
    ("prompt-commit", {**PROMPT, "suite_path": "suites/../../outside"}, "suite_path"),
    ("prompt-commit", {**PROMPT, "prompt_path": "prompts/../../secret.md"}, "prompt_path"),
    ("sweep", {"spec_path": "sweeps/../../../etc/shadow"}, "spec_path"),
])
def test_path_traversal(client: TestClient, emitted: list[dict[str, Any]], hook: str, payload: dict[str, Any],
                        field: str) -> None:
    response = _post(client, f"/webhooks/{hook}", payload)
    assert (response.status_code, response.json()) == (422, {"detail": f"invalid payload: {field} {OUTSIDE}"})
    _still_accepts(client, emitted)


def test_path_traversal_in_a_github_push(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    # `prompts/**/*.md` matches `prompts/../../x.md`: `**` spans any folder names, `..` included.
    push = {"ref": "refs/heads/main", "after": "a" * 40, "repository": {"full_name": "acme/agents"},
            "commits": [{"id": "c0", "added": ["prompts/ok.md"], "modified": []},
                        {"id": "c1", "added": [], "modified": ["README.md", "prompts/../../../etc/x.md"]}]}
    response = _post(client, "/webhooks/prompt-commit", push, headers={"X-GitHub-Event": "push"})
    assert (response.status_code, response.json()) == (
        422, {"detail": f"invalid payload: commits[1].modified[1] {OUTSIDE}"})
    _still_accepts(client, emitted)


@pytest.mark.parametrize(("hook", "payload", "field"), [
    ("prompt-commit", {**PROMPT, "agent_path": "/etc/passwd"}, "agent_path"),
    ("sweep", {"spec_path": "/root/.ssh/id_rsa"}, "spec_path"),
])
def test_absolute_path(client: TestClient, emitted: list[dict[str, Any]], hook: str, payload: dict[str, Any],
                       field: str) -> None:
    response = _post(client, f"/webhooks/{hook}", payload)
    assert (response.status_code, response.json()) == (422, {"detail": f"invalid payload: {field} {OUTSIDE}"})
    assert "/etc/passwd" not in response.text and "id_rsa" not in response.text
    _still_accepts(client, emitted)


def test_a_symlink_leading_out_of_the_root(tmp_path: Path, root: Path, client: TestClient,
                                          emitted: list[dict[str, Any]]) -> None:
    secret = tmp_path / "elsewhere" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("token: x\n", encoding="utf-8")
    (root / "agents" / "linked.yaml").symlink_to(secret)
    response = _post(client, "/webhooks/prompt-commit", {**PROMPT, "agent_path": "agents/linked.yaml"})
    assert (response.status_code, response.json()) == (422, {"detail": f"invalid payload: agent_path {OUTSIDE}"})
    assert str(secret) not in response.text  # the resolved target is never echoed
    _still_accepts(client, emitted)


def test_an_absolute_path_inside_the_root_is_accepted(client: TestClient, root: Path,
                                                      emitted: list[dict[str, Any]]) -> None:
    inside = str(root / "agents" / "support.yaml")
    response = _post(client, "/webhooks/prompt-commit", {**PROMPT, "agent_path": inside})
    assert response.status_code == 202
    assert [e["payload"]["agent_path"] for e in emitted] == [inside]
