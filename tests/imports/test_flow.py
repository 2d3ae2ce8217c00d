"""The grade_production_calls flow and `polygon grade-calls`, through Prefect's test server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.adapters import pipeline
from polygon_core.imports import sample_path

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


def test_grade_calls_imports_a_folder_and_grades_the_window(polygon_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    shutil.copy(sample_path("vapi"), folder / "vapi_calls.json")
    shutil.copy(sample_path("retell"), folder / "retell_calls.json")
    result = CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                      "--until", "2024-05-07", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["import"] == {"read": 4, "imported": 4, "duplicates": 0, "rejected": 0, "errors": []}
    (card,) = out["runs"]
    assert card["conversations"] == 3  # the May 9 Vapi call is outside the window
    stores = pipeline.open_stores()
    run = stores.repo.get_run(card["run_id"], exact=True)
    assert run is not None and (run.source, run.status) == ("production", "complete")
    again = json.loads(CliRunner().invoke(app, ["grade-calls", str(folder), "--since", "2024-05-06",
                                                "--until", "2024-05-07", "--json"]).stdout)
    assert again["import"]["duplicates"] == 4 and again["runs"][0]["run_id"] == card["run_id"]
    assert len(stores.repo.list_conversations(card["run_id"])) == 3
    stores.repo.close()


def test_grade_calls_rejects_a_bad_date(polygon_home: Path) -> None:
    result = CliRunner().invoke(app, ["grade-calls", "x", "--since", "yesterday"])
    assert result.exit_code == 2
    assert "'yesterday' is not a date" in result.output
