"""The trends API (issue #32, item 13): one suite (the last chosen, else the newest that is not a
sweep's), a line per agent version, each point at its run's `created_at` (the chart's time axis),
production lines named by the import source their calls came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from polygon import usecases
from polygon.web import create_app
from polygon_core.adapters.settings import load_settings
from polygon_core.models import Run

JUDGE = "offline-heuristic"


def _store(run_id: str, agent: str, version: str, suite: str, at: str, mean: float, *,
           source: str = "synthetic") -> None:
    repo = usecases.open_stores().repo
    repo.save_run(Run(id=run_id, suite=suite, agent_name=agent, agent_version=version, rubric_version="v1",
                      seeds=[0], models={"judge": JUDGE}, source=source, created_at=at))  # type: ignore[arg-type]
    summary = {"mean_composite": mean, "ci_low": mean - 5, "ci_high": mean + 5, "scored": 4,
               "rubric_version": "v1", "judge_model": JUDGE, "criteria": {}, "probes": []}
    repo.set_run_status(run_id, "complete", summary=summary)


def _point(run_id: str, at: str, version: str, mean: float) -> dict[str, Any]:
    return {"run_id": run_id, "created_at": at, "agent_version": version, "value": mean, "low": mean - 5,
            "high": mean + 5, "n": 4}


def _series(agent: str, version: str, label: str, source: str, points: list[dict[str, Any]]) -> dict[str, Any]:
    return {"agent": agent, "agent_version": version, "label": label, "rubric_version": "v1", "source": source,
            "judge_model": JUDGE, "points": points}


def test_a_line_per_agent_over_time_on_the_chosen_suite(polygon_home: Path) -> None:
    _store("calls-1", "unknown", "unknown", "production:support", "2026-01-01T09:00:00+00:00", 60.0,
           source="production")
    _store("r1", "billing", "aaa111", "demo", "2026-01-02T10:00:00+00:00", 70.0)
    _store("r2", "billing", "bbb222", "demo", "2026-01-03T10:00:00+00:00", 90.0)
    _store("r3", "billing", "aaa111", "demo", "2026-01-05T10:00:00+00:00", 72.0)
    # The newest run is a sweep point's: the page does not open on the sweep.
    _store("sweep-tune-p1-abcd", "billing", "ccc333", "tune", "2026-01-06T10:00:00+00:00", 50.0)
    client = TestClient(create_app(load_settings(home=polygon_home)), client=("127.0.0.1", 50000))

    trend = client.get("/api/trends").json()
    assert (trend["suite"], trend["runs"]) == ("demo", 3)
    # v1 and v2 are two lines, not one zigzag; each point sits at its run's time.
    assert [{k: v for k, v in s.items() if k != "calibration"} for s in trend["series"]] == [
        _series("billing", "aaa111", "billing@aaa111", "synthetic",
                [_point("r1", "2026-01-02T10:00:00+00:00", "aaa111", 70.0),
                 _point("r3", "2026-01-05T10:00:00+00:00", "aaa111", 72.0)]),
        _series("billing", "bbb222", "billing@bbb222", "synthetic",
                [_point("r2", "2026-01-03T10:00:00+00:00", "bbb222", 90.0)])]
    assert [(c["suite"], c["runs"], c["agents"], c["sweep"]) for c in trend["choices"]] == [
        ("tune", 1, ["billing"], True), ("demo", 3, ["billing"], False),
        ("production:support", 1, ["unknown"], False)]

    # The suite the user chose (the page remembers it and asks for it) is the one shown.
    sweep = client.get("/api/trends", params={"suite": "tune"}).json()
    assert [(s["label"], [p["run_id"] for p in s["points"]]) for s in sweep["series"]] == [
        ("billing@ccc333", ["sweep-tune-p1-abcd"])]
    # Production calls are labelled by the source they came from, not "unknown @ unknown".
    calls = client.get("/api/trends", params={"suite": "production:support"}).json()
    assert [{k: v for k, v in s.items() if k != "calibration"} for s in calls["series"]] == [
        _series("unknown", "unknown", "calls from support", "production",
                [_point("calls-1", "2026-01-01T09:00:00+00:00", "unknown", 60.0)])]
    # An agent named on the query narrows the suite's lines to it.
    assert client.get("/api/trends", params={"suite": "demo", "agent": "nobody"}).json()["series"] == []
