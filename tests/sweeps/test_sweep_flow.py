"""The run_sweep flow end to end (offline): early stop, token cap, resume without new calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()


def _spec(tmp_path: Path, **kw: object) -> Path:
    body = {"name": "t", "agent": str(demo_dir() / "agents" / "agent_v1.yaml"),
            "suite": str(demo_dir() / "suite"), "scenarios": ["address-change"], "seeds": [0],
            "strategy": "grid", "parameters": {"noise": [0.0, 0.5, 0.9]},
            "tokens_per_turn_estimate": 1, **kw}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return path


def _sweep(path: Path) -> dict:
    result = runner.invoke(app, ["sweep", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_floor_above_the_first_point_stops_after_one_point(polygon_home: Path, tmp_path: Path) -> None:
    # Demo agent v2 refunds before verifying identity: the safety gate fails it on this scenario.
    report = _sweep(_spec(tmp_path, agent=str(demo_dir() / "agents" / "agent_v2.yaml"),
                          scenarios=["billing-dispute-v3"], floor=80.0))
    assert len(report["leaderboard"]) == 1
    assert report["leaderboard"][0]["mean_composite"] == 69.4444
    assert report["stopped_early"] == ("the first point (noise=0.0) scored 69.4444 below the floor of 80.0; "
                                       "the sweep stopped after one point")


def test_a_cap_that_fits_two_points_runs_two_and_refuses_the_rest(polygon_home: Path, tmp_path: Path) -> None:
    first = _sweep(_spec(tmp_path))
    per_point = [p["tokens"] for p in first["leaderboard"]]
    assert len(per_point) == 3
    # The matrix of the top points: one row per scenario, a cell per point.
    (row,) = first["matrix_top"]
    assert row["scenario_id"] == "address-change" and len(row["cells"]) == 3
    # A fresh home, and a cap just above what the first two points use.
    capped = _sweep(_spec(tmp_path, name="capped", token_cap=sum(sorted(per_point)[:2]) + 5))
    assert len(capped["leaderboard"]) == 2
    (refused,) = capped["refused"]
    assert refused["estimate"]["source"] == "measured" and "past the cap" in refused["reason"]


def test_rerunning_a_finished_sweep_reuses_its_runs(polygon_home: Path, tmp_path: Path) -> None:
    from polygon import usecases

    path = _spec(tmp_path, name="again")
    first = _sweep(path)
    stores = usecases.open_stores()
    before = {p["run_id"]: len(stores.repo.judgments(p["run_id"])) for p in first["leaderboard"]}
    second = _sweep(path)
    assert [p["run_id"] for p in second["leaderboard"]] == [p["run_id"] for p in first["leaderboard"]]
    # Finished points are not run again: no new conversations, no new judge calls.
    assert {rid: len(stores.repo.judgments(rid)) for rid in before} == before
    assert second["leaderboard"] == first["leaderboard"]
    stored = json.loads(stores.artifacts.get_text("sweeps/again/leaderboard.json"))
    assert [p["run_id"] for p in stored["leaderboard"]] == [p["run_id"] for p in first["leaderboard"]]
