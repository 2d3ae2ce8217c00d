"""`polygon grade-calls --rubric`: a graded window keeps its own rubric (another one asked for is
refused, naming the rescore that adds it), and the printed summary names the rubric and judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.imports import sample_path

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()
WINDOW = ["--since", "2024-05-06", "--until", "2024-05-07"]


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


def test_a_graded_window_keeps_its_rubric_and_says_which(polygon_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    shutil.copy(sample_path("vapi"), folder / "vapi_calls.json")
    shutil.copy(sample_path("retell"), folder / "retell_calls.json")
    first = runner.invoke(app, ["grade-calls", str(folder), *WINDOW, "--json"])
    assert first.exit_code == 0, first.output
    (card,) = json.loads(first.stdout)["runs"]
    run_id, v, mean = card["run_id"], card["verdicts"], card["mean_composite"]
    assert (card["rubric_version"], card["judge_model"]) == ("v1", "offline-heuristic")

    # The same rubric named again resumes; the summary names the rubric and the judge behind its numbers.
    again = runner.invoke(app, ["grade-calls", str(folder), *WINDOW, "--rubric", "v1"])
    assert again.exit_code == 0, again.output
    assert _lines(again.stdout)[-1] == (f"{run_id}: 3 calls, mean {mean:.1f}, pass/warn/fail "
                                        f"{v['pass']}/{v['warn']}/{v['fail']} (rubric v1, judge offline-heuristic)")

    refused = runner.invoke(app, ["grade-calls", str(folder), *WINDOW, "--rubric", "v2"])
    assert refused.exit_code == 2, refused.output
    assert _lines(refused.stderr) == [
        f"error: {run_id} was already graded under rubric v1, not v2: a resumed run keeps its own settings; "
        f"`polygon rescore {run_id} --rubric v2` adds v2 judgments to it"]
    stores = usecases.open_stores()
    run = stores.repo.get_run(run_id, exact=True)
    assert run is not None and run.rubric_version == "v1"
    assert {j.rubric_version for j in stores.repo.judgments(run_id)} == {"v1"}
    stores.repo.close()


def test_a_production_run_is_compared_with_a_suites_run_under_its_rubric(polygon_home: Path) -> None:
    """docs/import-formats.md, "Grading real calls": a suite judged under v2, calls graded under the default v1."""
    suite, agent = demo_dir() / "suite", demo_dir() / "agents" / "agent_v1.yaml"
    ran = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1", "--rubric", "v2", "--json"])
    assert ran.exit_code == 0, ran.output
    synthetic = json.loads(ran.stdout)["runs"][0]["run_id"]
    imported = runner.invoke(app, ["import", str(sample_path("polygon")), "--format", "polygon",
                                   "--source", "support", "--agent", str(agent), "--suite", str(suite)])
    assert imported.exit_code == 0, imported.output
    graded = runner.invoke(app, ["grade-calls", "support", "--json"])
    assert graded.exit_code == 0, graded.output
    production = json.loads(graded.stdout)["runs"][0]["run_id"]

    refused = runner.invoke(app, ["compare", synthetic, production])
    assert refused.exit_code == 2
    assert "--rubric v2 compares the judgments stored under v2" in refused.stderr
    assert runner.invoke(app, ["rescore", production, "--rubric", "v2"]).exit_code == 0
    compared = runner.invoke(app, ["compare", synthetic, production, "--rubric", "v2", "--json"])
    assert compared.exit_code in (0, 1), compared.output  # a verdict, not a refusal
    cards = json.loads(compared.stdout)["cards"]
    assert [(c["run_id"], c["rubric_version"]) for c in cards] == [(synthetic, "v2"), (production, "v2")]
