"""Stored records on the JSON API are documented by their domain models, not by copies of them.

A run, its judgments, probe answers and assertions, and calibrations are served as their domain
models dump them; the OpenAPI schema names those models, and every payload validates against them
(strictly: the domain models forbid unknown fields). See docs/design.md, "Stored records".
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon.web._models import ConversationRow, ConversationView, RunDetail, RunRow
from polygon_core.adapters.settings import load_settings
from polygon_core.adapters.storage import Repository
from polygon_core.models import AssertionResult, GateHit, Judgment, ProbeAnswer, Run

from .conftest import LOOPBACK, Demo

pytestmark = [pytest.mark.prefect]


@pytest.fixture(scope="module")
def client(demo: Demo) -> TestClient:
    return TestClient(create_app(load_settings(home=demo.home)), client=LOOPBACK)


@pytest.fixture(scope="module")
def schemas(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()["components"]["schemas"]


def _items_ref(schemas: dict[str, Any], page: str) -> str:
    return schemas[page]["properties"]["items"]["items"]["$ref"]


def test_pages_of_stored_records_name_their_domain_models(schemas: dict[str, Any]) -> None:
    assert _items_ref(schemas, "JudgmentPage") == "#/components/schemas/Judgment"
    assert _items_ref(schemas, "CalibrationPage") == "#/components/schemas/Calibration"
    assert set(schemas["Judgment"]["properties"]) == set(Judgment.model_fields)
    view = schemas["ConversationView"]["properties"]
    assert view["run"] == {"$ref": "#/components/schemas/Run"}
    assert view["probes"]["items"] == {"$ref": "#/components/schemas/ProbeAnswer"}
    assert view["assertions"]["items"] == {"$ref": "#/components/schemas/AssertionResult"}
    assert view["gates"]["items"] == {"$ref": "#/components/schemas/GateHit"}


def test_a_runs_row_is_the_run_and_its_summary(schemas: dict[str, Any], client: TestClient, demo: Demo) -> None:
    assert set(Run.model_fields) < set(schemas["RunRow"]["properties"])
    row = next(r for r in client.get("/api/runs").json()["items"] if r["id"] == demo.v1)
    with Repository(load_settings(home=demo.home).resolved_database_url()) as repo:
        run = repo.get_run(demo.v1)
    assert run is not None
    assert {name: row[name] for name in Run.model_fields} == run.model_dump(mode="json")
    assert RunRow.model_validate(row).model_dump(mode="json") == row
    assert set(row) == set(RunRow.model_fields)  # every key documented, none only "allowed"
    detail = client.get(f"/api/runs/{demo.v1}").json()
    assert RunDetail.model_validate(detail).model_dump(mode="json") == detail


def test_judgments_page_items_are_judgments_without_raw_output(client: TestClient, demo: Demo) -> None:
    items = client.get(f"/api/runs/{demo.v2}/judgments").json()["items"]
    assert len(items) == 6 and all("raw" not in item for item in items)
    for item in items:
        assert Judgment.model_validate(item).model_dump(mode="json", exclude={"raw"}) == item


def test_the_conversation_views_records_are_domain_models(client: TestClient, demo: Demo) -> None:
    conversations = client.get(f"/api/runs/{demo.v2}/conversations").json()["items"]
    # A row of the list is a projection of the record and its judgment, not a record: its keys are
    # the documented ones.
    assert all(set(c) == set(ConversationRow.model_fields) for c in conversations)
    views = [client.get(f"/api/runs/{demo.v2}/conversations/{c['conversation_id']}").json() for c in conversations]
    assert len(views) == 6
    for view in views:
        ConversationView.model_validate(view)
        assert Run.model_validate(view["run"]).id == demo.v2
        assert [AssertionResult.model_validate(a).model_dump(mode="json") for a in view["assertions"]] \
            == view["assertions"]
        assert [GateHit.model_validate(g).model_dump(mode="json") for g in view["gates"]] == view["gates"]
        assert [ProbeAnswer.model_validate(p).model_dump(mode="json") for p in view["probes"]] == view["probes"]
    # The demo's failing calls carry failed assertions, gates and probe answers: none of the lists is empty.
    assert all(any(view[key] for view in views) for key in ("assertions", "gates", "probes"))


def test_a_run_and_its_records_say_what_made_them(client: TestClient, demo: Demo) -> None:
    from polygon_core.adapters.provenance import current_provenance

    made = current_provenance().model_dump(mode="json")
    assert client.get(f"/api/runs/{demo.v1}").json()["provenance"] == made
    assert next(r for r in client.get("/api/runs").json()["items"] if r["id"] == demo.v1)["provenance"] == made
    assert {j["format_version"] for j in client.get(f"/api/runs/{demo.v1}/judgments").json()["items"]} == {1}
    cid = client.get(f"/api/runs/{demo.v1}/conversations").json()["items"][0]["conversation_id"]
    assert client.get(f"/api/runs/{demo.v1}/conversations/{cid}").json()["conversation"]["format_version"] == 1
