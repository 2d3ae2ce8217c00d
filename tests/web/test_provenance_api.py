"""A run, judgment and transcript stored before Polygon recorded provenance and formats are served
as they were: no provenance, format 0."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from tests.cli.test_show_compare_pages import scale

from .conftest import LOOPBACK


def test_an_older_run_is_served_without_provenance_and_its_records_as_format_0(tmp_path: Path) -> None:
    home = tmp_path / ".polygon"
    home.mkdir()
    old, _other = scale.fill(home, 2)
    client = TestClient(create_app(load_settings(home=home)), client=LOOPBACK)
    assert client.get(f"/api/runs/{old}").json()["provenance"] is None
    assert {j["format_version"] for j in client.get(f"/api/runs/{old}/judgments").json()["items"]} == {0}
    cid = client.get(f"/api/runs/{old}/conversations").json()["items"][0]["conversation_id"]
    (transcript,) = home.glob(f"artifacts/runs/{old}/conversations/{cid}.json")
    written = json.loads(transcript.read_text(encoding="utf-8"))
    del written["format_version"]  # as Polygon wrote transcripts before formats were versioned
    transcript.write_text(json.dumps(written), encoding="utf-8")
    view = client.get(f"/api/runs/{old}/conversations/{cid}")
    assert view.status_code == 200 and view.json()["conversation"]["format_version"] == 0
