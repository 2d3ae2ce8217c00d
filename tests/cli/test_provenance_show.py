"""`polygon show` says what made a run (Polygon and package versions, formats), `--json` under
`provenance`; a run stored before Polygon recorded it says so; reports carry their format version."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.adapters.provenance import current_provenance
from polygon_core.demo import demo_dir
from tests.cli.test_show_compare_pages import scale

runner = CliRunner()
SUITE, V1 = str(demo_dir() / "suite"), str(demo_dir() / "agents" / "agent_v1.yaml")


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 400)  # the "made by" line whole


@pytest.mark.usefixtures("wide")
def test_a_new_run_shows_the_versions_that_made_it(polygon_home: Path) -> None:
    stores = usecases.open_stores()
    run = usecases.new_run(V1, SUITE, seeds=[0], run_id="made", roles={}, caches=stores.caches)
    usecases.create_run(stores, run, suite_path=SUITE, agent_path=V1)
    done = asyncio.run(usecases.evaluate_conversation(stores, "made", "billing-dispute-v3", 0))
    usecases.finish_run(stores, "made")
    made = current_provenance()
    shown = json.loads(runner.invoke(app, ["show", "made", "--json"]).stdout)
    assert shown["provenance"] == made.model_dump(mode="json")
    assert list(shown["provenance"]["packages"]) == ["prefect", "pydantic", "openai", "anthropic", "numpy",
                                                     "scipy", "scikit-learn"]
    assert shown["provenance"]["formats"] == {"transcript": 1, "judgment": 1, "report": 1}
    text = runner.invoke(app, ["show", "made"]).output
    packages = ", ".join(f"{n} {v}" for n, v in made.packages.items())
    assert f"made by: Polygon {made.polygon} ({packages}); formats: transcript 1, judgment 1, report 1" in text
    # The transcript and the judgment it stored say their format too.
    assert usecases.load_conversation(stores, "made", done.conversation_id).format_version == 1
    assert [j.format_version for j in stores.repo.judgments("made")] == [1]


@pytest.mark.usefixtures("wide")
def test_a_run_stored_before_versions_were_recorded_reads_and_says_so(polygon_home: Path, tmp_path: Path) -> None:
    polygon_home.mkdir(parents=True)
    old, other = scale.fill(polygon_home, 4)  # stored as before: no provenance, judgments without a format
    shown = runner.invoke(app, ["show", old, "--json"])
    assert shown.exit_code == 0, shown.output
    out = json.loads(shown.stdout)
    assert out["provenance"] is None and out["scorecard"]["conversations"] == 4
    assert "made by: not recorded (stored before Polygon recorded versions)" in runner.invoke(app, ["show", old]).output
    stores = usecases.open_stores()
    assert {j.format_version for j in stores.repo.judgments(old)} == {0}
    # Reports: the JSON leads with its format version, the HTML page names it in a <meta>.
    compared = runner.invoke(app, ["compare", old, other, "--json", "-o", str(tmp_path / "report.html")])
    assert json.loads(compared.stdout)["format_version"] == 1
    assert "<meta name='polygon-report-format' content='1'>" in (tmp_path / "report.html").read_text(encoding="utf-8")
