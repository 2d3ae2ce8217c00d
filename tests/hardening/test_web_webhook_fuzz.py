"""Fuzzing the webhook payload parser (hypothesis, bounded): correctly signed bodies of arbitrary
JSON, and trees keyed by the payloads' own field names with hostile path values.

Whatever arrives, the answer is 202 or 422 (never a 5xx, never a traceback), a 422 says why, and
every event emitted names only paths inside the webhook root.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polygon.web import _webhooks, create_app, sign
from polygon_core.adapters.settings import load_settings

SECRET = "fuzz-webhook-secret"
EXAMPLES = max(1, int(60 * float(os.environ.get("POLYGON_FUZZ_EXAMPLES", "1"))))
FUZZ = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=3), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FIELDS = ["agent_path", "prompt_hash", "suite_path", "prompt_path", "commit", "previous_run_id", "spec_path",
          "ref", "after", "repository", "full_name", "commits", "id", "added", "modified", "removed"]
PATHS = st.one_of(
    st.sampled_from(["agents/a.yaml", "prompts/x.md", "prompts/../../../etc/passwd.md", "/etc/passwd",
                     "prompts/a/../../..", "", ".", "..", "prompts/\x00.md", "prompts/" + "a" * 5000 + ".md",
                     "//etc/passwd", "prompts/./../prompts/ok.md", "~/x.md", "C:\\Windows\\x.md"]),
    st.text(alphabet=st.sampled_from("ab./\\~\x00é"), max_size=40))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20), PATHS)
TREES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=6)),
    max_leaves=25)
EVENTS = st.sampled_from([None, "push", "ping", "issues", "pull_request", ""])


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    checkout = tmp_path_factory.mktemp("fuzz-root")
    (checkout / "prompts").mkdir()
    return checkout.resolve()


@pytest.fixture(scope="module")
def emitted() -> Iterator[list[dict[str, Any]]]:
    captured: list[dict[str, Any]] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_webhooks, "send_event", lambda **kw: captured.append(kw) or SimpleNamespace(id=kw["id"]))
        yield captured


@pytest.fixture(scope="module")
def client(root: Path, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    settings_ = load_settings(home=tmp_path_factory.mktemp("fuzz-home"), webhook_secret=SECRET, webhook_roots=[root],
                              webhook_prompts={"prompts/**": "agents/support.yaml"})
    return TestClient(create_app(settings_))


def _inside(path: str, root: Path) -> bool:
    return (root / path).resolve().is_relative_to(root)


def _send(client: TestClient, hook: str, body: Any, event: str | None) -> Any:
    raw = json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw),
               "X-Polygon-Delivery": str(uuid.uuid4())}
    if event is not None:
        headers["X-GitHub-Event"] = event
    return client.post(f"/webhooks/{hook}", content=raw, headers=headers)


def _check(response: Any, emitted: list[dict[str, Any]], root: Path) -> None:
    assert response.status_code in (202, 413, 422), response.text
    if response.status_code != 202:
        assert response.json()["detail"] and emitted == []
    for event in emitted:
        body = event["payload"]
        paths = [body.get(k) for k in ("agent_path", "suite_path", "prompt_path", "spec_path")]
        paths += body.get("prompt_paths") or []
        assert all(_inside(p, root) for p in paths if p is not None), body
    emitted.clear()


@FUZZ
@given(body=TREES, event=EVENTS, hook=st.sampled_from(["prompt-commit", "sweep"]))
def test_arbitrary_signed_json(client: TestClient, emitted: list[dict[str, Any]], root: Path, body: Any,
                               event: str | None, hook: str) -> None:
    _check(_send(client, hook, body, event), emitted, root)


@FUZZ
@given(agent=PATHS, suite=st.none() | PATHS, prompt=st.none() | PATHS, spec=PATHS,
       pushed=st.lists(PATHS, max_size=4))
def test_payloads_near_the_real_shapes(client: TestClient, emitted: list[dict[str, Any]], root: Path, agent: str,
                                       suite: str | None, prompt: str | None, spec: str, pushed: list[str]) -> None:
    own = {"agent_path": agent, "prompt_hash": "h", "suite_path": suite, "prompt_path": prompt}
    _check(_send(client, "prompt-commit", own, None), emitted, root)
    _check(_send(client, "sweep", {"spec_path": spec}, None), emitted, root)
    push = {"ref": "refs/heads/main", "after": "a" * 40, "repository": {"full_name": "acme/x"},
            "commits": [{"id": "c", "added": pushed, "modified": pushed[::-1]}]}
    _check(_send(client, "prompt-commit", push, "push"), emitted, root)
