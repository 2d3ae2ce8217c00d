"""`polygon sweep --scenario`: the spec's scenarios replaced by the ids and globs given."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

runner = CliRunner()


def _spec(tmp_path: Path) -> Path:
    # Paths relative to the spec, as people write them: the narrowed copy must still find them.
    rel = os.path.relpath(demo_dir(), tmp_path)
    body = {"name": "narrow", "agent": f"{rel}/agents/agent_v1.yaml", "suite": f"{rel}/suite", "seeds": [0],
            "strategy": "grid", "parameters": {"noise": [0.0]}, "tokens_per_turn_estimate": 1}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return path


def test_an_unknown_scenario_is_bad_input_naming_it(polygon_home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(_spec(tmp_path)), "--scenario", "refund-*"])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert " ".join(result.stderr.split()).startswith("error: --scenario 'refund-*': no glob of suite")


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_the_sweep_runs_only_the_chosen_scenarios(polygon_home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(_spec(tmp_path)), "--scenario", "address-*", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (point,) = report["leaderboard"]
    assert [row["scenario_id"] for row in report["matrix_top"]] == ["address-change"]
    from polygon import usecases

    convs = usecases.open_stores().repo.list_conversations(point["run_id"])
    assert [c.scenario_id for c in convs] == ["address-change"]
    (narrowed,) = (polygon_home / "sweeps" / "narrow" / "specs").glob("*.yaml")
    doc = yaml.safe_load(narrowed.read_text(encoding="utf-8"))
    assert doc["scenarios"] == ["address-change"] and doc["suite"] == str((demo_dir() / "suite").resolve())


def test_a_narrowed_spec_keeps_its_prompt_files_inside_its_own_folder(polygon_home: Path, tmp_path: Path) -> None:
    # A sweep's prompt files must lie inside its spec's folder; the narrowed copy lives elsewhere,
    # so it carries copies of them beside it (named by content) rather than absolute paths.
    from polygon import usecases
    from polygon.cli._cmd_sweep import _narrowed_spec

    spec = _spec(tmp_path)
    (tmp_path / "v2.txt").write_text("Be brief.", encoding="utf-8")
    doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
    doc["parameters"] = {"prompt_file": ["v2.txt"]}
    spec.write_text(yaml.safe_dump(doc), encoding="utf-8")
    loaded = usecases.load_sweep(spec)
    narrowed = usecases.load_sweep(_narrowed_spec(spec, loaded.suite_path, ["address-*"]))
    (name,) = narrowed.spec.parameters["prompt_file"].values or []
    assert (narrowed.path.parent / str(name)).read_text(encoding="utf-8") == "Be brief."
    assert narrowed.spec.scenarios == ["address-change"]
