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


def test_one_at_a_time_runs_each_distinct_configuration_once(polygon_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # address-change has no noise and the suite's tools no faults: `noise: 0.0` and
    # `stub_error_rate: 0.0` configure exactly the base. Four points, two configurations.
    from datetime import UTC, datetime

    from polygon import usecases
    from polygon_core.adapters.providers import run_usage
    from tests.fakes.llm_server import FakeLLMServer
    from tests.flows.test_flow_runs_in_the_ui import flow_runs_since
    from tests.providers.conftest import FAKE_KEY, model_agent

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    start = datetime.now(UTC)
    with FakeLLMServer() as srv:
        agent = model_agent(tmp_path, f"openai:gpt-4o-mini@{srv.openai_url}")
        report = _sweep(_spec(tmp_path, name="distinct", agent=str(agent), strategy="one_at_a_time",
                              parameters={"noise": [0.0, 0.6], "stub_error_rate": [0.0]}))
        requests = len(srv.behaviour.seen)
    assert sorted((p["label"], p["values"]) for p in report["leaderboard"]) == [
        ("base", {}), ("noise=0.6", {"noise": 0.6})]  # each point carries the values it sets
    assert [(s["label"], s["same_as"]) for s in report["same_configuration"]] == [
        ("noise=0.0", "base"), ("stub_error_rate=0.0", "base")]
    stores = usecases.open_stores()
    runs = [r for r in stores.repo.list_runs(limit=None) if r.suite == "distinct"]
    assert sorted(r.id for r in runs) == sorted(p["run_id"] for p in report["leaderboard"])
    assert len(runs) == 2
    # One scenario, one seed: one conversation per configuration, and every agent request the
    # model server saw belongs to one of the two runs (a third run would have added its own).
    assert [len(stores.repo.conversation_ids(r.id)) for r in runs] == [1, 1]
    calls = [run_usage(stores.artifacts, r.id)["roles"]["agent"]["calls"] for r in runs]
    assert min(calls) > 0 and sum(calls) == requests
    # In the Prefect UI each sub-run says which point it is, and carries the sweep's and point's tags.
    by_label = {p["label"]: next(r for r in runs if r.id == p["run_id"]) for p in report["leaderboard"]}
    subruns = flow_runs_since(start, "evaluate-suite")
    assert [f.name for f in subruns] == [
        f"sweep distinct point {n}/2 ({label}): model-agent@{by_label[label].agent_version[:8]}"
        for n, label in ((1, "base"), (2, "noise=0.6"))]
    for n, (flow_run, label) in enumerate(zip(subruns, ("base", "noise=0.6"), strict=True), start=1):
        run = by_label[label]
        assert flow_run.tags == sorted(["agent:model-agent", f"point:{n}", "polygon", "rubric:v1", "source:synthetic",
                                        "suite:distinct", "sweep:distinct", f"version:{run.agent_version[:12]}"])
    (sweep_run,) = flow_runs_since(start, "run-sweep")
    assert sweep_run.name == "sweep sweep.yaml"
    assert sweep_run.tags == sorted(["agent:model-agent", "polygon", "rubric:v1", "source:synthetic", "suite:distinct",
                                     "sweep:distinct", f"version:{by_label['base'].agent_version[:12]}"])


def test_a_spec_edited_to_other_seeds_or_rubric_runs_its_points_again(polygon_home: Path, tmp_path: Path) -> None:
    from polygon import usecases

    first = _sweep(_spec(tmp_path, name="edited", parameters={"noise": [0.0]}))
    reseeded = _sweep(_spec(tmp_path, name="edited", parameters={"noise": [0.0]}, seeds=[0, 1]))
    rejudged = _sweep(_spec(tmp_path, name="edited", parameters={"noise": [0.0]}, seeds=[0, 1], rubric="v2"))
    ids = [r["leaderboard"][0]["run_id"] for r in (first, reseeded, rejudged)]
    assert len(set(ids)) == 3  # each its own run, none resumed from another's
    stores = usecases.open_stores()
    runs = [stores.repo.get_run(rid, exact=True) for rid in ids]
    assert [(r.seeds, r.rubric_version) for r in runs if r is not None] == [
        ([0], "v1"), ([0, 1], "v1"), ([0, 1], "v2")]
    assert [len(stores.repo.conversation_ids(rid)) for rid in ids] == [1, 2, 2]
