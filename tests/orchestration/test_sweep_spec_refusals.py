"""A sweep request for a spec that does not exist or is not a sweep is refused by the webhook (422,
the file, line and field), and a task failing on a bad input file is not retried."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from polygon.tasks._retry import retry_unless_bad_input

from polygon.web import _webhooks, create_app
from polygon.web._webhooks import sign
from polygon_core.adapters.settings import load_settings
from polygon_core.files import FileErrors, PolygonFileError

SECRET = "sweep-spec-secret"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    captured: list[dict[str, Any]] = []

    def fake_emit(**kwargs: Any) -> SimpleNamespace:
        captured.append(kwargs)
        return SimpleNamespace(id=kwargs["id"])

    monkeypatch.setattr(_webhooks, "send_event", fake_emit)
    return captured


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "polygon_core" / "demo", checkout)
    settings = load_settings(home=tmp_path / ".polygon", webhook_secret=SECRET, webhook_roots=[checkout])
    return TestClient(create_app(settings))


def _sweep(client: TestClient, spec_path: str) -> Any:
    raw = json.dumps({"spec_path": spec_path}).encode()
    return client.post("/webhooks/sweep", content=raw, headers={
        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw),
        "X-Polygon-Delivery": str(uuid.uuid4())})


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
    load = usecases.load_sweep

    def counted(path: Any) -> Any:
        reads.append(str(path))
        return load(path)

    monkeypatch.setattr(usecases, "load_sweep", counted)
    state = plan_sweep_task(str(tmp_path / "nope.yaml"), return_state=True)
    assert state.is_failed()
    assert reads == [str(tmp_path / "nope.yaml")]  # retries=1: without the condition it is read twice
