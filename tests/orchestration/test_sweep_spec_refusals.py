"""A sweep request for a spec that does not exist or is not a sweep is refused by the webhook (422,
the file, line and field), and a task failing on a bad input file is not retried.

A webhook's 202 means its event reached the Prefect server: with the API unreachable the answer is
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
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from polygon.tasks._retry import retry_unless_bad_input
from prefect.client.orchestration import get_client
from prefect.events.filters import EventFilter, EventIDFilter
from prefect.settings import PREFECT_API_URL, temporary_settings

from polygon.web import create_app
from polygon.web._webhooks import sign
from polygon_core.adapters.settings import load_settings
from polygon_core.files import FileErrors, PolygonFileError

SECRET = "sweep-spec-secret"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "polygon_core" / "demo", checkout)
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_roots=[checkout])
    return TestClient(create_app(settings))


def _sweep(client: TestClient, spec_path: str, delivery: str | None = None) -> Any:
    raw = json.dumps({"spec_path": spec_path}).encode()
    return client.post("/webhooks/sweep", content=raw, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw),
        "X-Polygon-Delivery": delivery or str(uuid.uuid4())})


def test_a_missing_spec_is_422_and_emits_nothing(client: TestClient, emitted: list[dict[str, Any]]) -> None:
    response = _sweep(client, "sweeps/nope.yaml")
    assert (response.status_code, response.json()) == (
        422, {"detail": "invalid payload: spec_path: sweeps/nope.yaml: no such file under the webhook roots"})
    assert emitted == []


def test_a_file_that_is_not_a_sweep_is_422_naming_its_line(client: TestClient,
                                                          emitted: list[dict[str, Any]]) -> None:
    response = _sweep(client, "suite/suite.yaml")
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "invalid payload: spec_path: suite/suite.yaml:2: agent: missing required field 'agent'; "
        "suite/suite.yaml:2: suite: missing required field 'suite'; "
        "suite/suite.yaml:2: parameters: missing required field 'parameters'")
    assert emitted == []
    accepted = _sweep(client, "sweeps/noise.yaml")
    assert accepted.status_code == 202
    assert [e["payload"]["spec_path"] for e in emitted] == ["sweeps/noise.yaml"]


def _failed_with(error: BaseException) -> SimpleNamespace:
    return SimpleNamespace(result=lambda raise_on_failure=True: error)


def test_bad_input_files_are_not_retried_and_other_failures_are() -> None:
    missing = PolygonFileError("sweeps/nope.yaml", "no such file")
    assert retry_unless_bad_input(None, None, _failed_with(missing)) is False
    assert retry_unless_bad_input(None, None, _failed_with(FileErrors([missing]))) is False
    wrapped = RuntimeError("planning failed")
    wrapped.__cause__ = FileErrors([missing])
    assert retry_unless_bad_input(None, None, _failed_with(wrapped)) is False
    assert retry_unless_bad_input(None, None, _failed_with(ConnectionError("reset"))) is True


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_the_plan_task_reads_a_missing_spec_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.tasks import plan_sweep_task

    from polygon import usecases

    reads: list[str] = []
    plan = usecases.plan_sweep  # the task's one use-case call, which reads the spec

    def counted(path: Any) -> Any:
        reads.append(str(path))
        return plan(path)

    monkeypatch.setattr(usecases, "plan_sweep", counted)
    state = plan_sweep_task(str(tmp_path / "nope.yaml"), return_state=True)
    assert state.is_failed()
    assert reads == [str(tmp_path / "nope.yaml")]  # retries=1: without the condition it is read twice


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stored_event(event_id: str) -> list[str]:
    """The names of the events the Prefect server holds with this id (it stores them shortly after)."""
    with get_client(sync_client=True) as prefect:
        for _ in range(50):
            page = prefect.read_events(filter=EventFilter(id=EventIDFilter(id=[uuid.UUID(event_id)])), limit=10)
            if page.events:
                return [e.event for e in page.events]
            time.sleep(0.2)
    return []


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_prefect_down_is_503_and_the_retry_after_it_is_up_is_202(client: TestClient) -> None:
    down = f"http://127.0.0.1:{_unused_port()}/api"
    with temporary_settings(updates={PREFECT_API_URL: down}):
        refused = _sweep(client, "sweeps/noise.yaml", "gh-lost-7")
    assert refused.status_code == 503
    assert refused.json() == {"detail": f"the Prefect API at {down} did not take the event: "
                                        "[Errno 111] Connection refused; nothing was recorded: retry the delivery"}

    accepted = _sweep(client, "sweeps/noise.yaml", "gh-lost-7")  # the sender's retry, with the harness's server up
    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert body["delivery"] == "gh-lost-7"
    assert _stored_event(body["event_id"]) == ["polygon.sweep.requested"]

    replay = _sweep(client, "sweeps/noise.yaml", "gh-lost-7")  # once accepted, the id is kept
    assert (replay.status_code, replay.json()) == (409, {"detail": "delivery gh-lost-7 was already received"})


def test_a_sweep_whose_agent_is_not_callable_is_422(client: TestClient, emitted: list[dict[str, Any]],
                                                    tmp_path: Path) -> None:
    # Issue 32 item 8: `callable: this:s` was 202, and the sweep's first point then failed on a worker
    # (a task retried twice, a traceback per try in the flow run's log, a point run left behind).
    checkout = tmp_path / "checkout"
    (checkout / "agents" / "zen.yaml").write_text('name: zen\ncallable: "this:s"\n', encoding="utf-8")
    spec = (checkout / "sweeps" / "noise.yaml").read_text(encoding="utf-8")
    (checkout / "sweeps" / "zen.yaml").write_text(
        spec.replace("agent: ../agents/agent_v1.yaml", "agent: ../agents/zen.yaml"), encoding="utf-8")
    response = _sweep(client, "sweeps/zen.yaml")
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "invalid payload: spec_path: agents/zen.yaml:2: callable: callable "
        "'this:s' is neither a class nor a function: module 'this' defines 's' as a str")
    assert emitted == []
