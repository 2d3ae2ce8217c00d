"""The flows that start `evaluate_suite` as a subflow (a sweep's points, a prompt commit's
re-evaluation) give it the task runner `POLYGON_TASK_RUNNER` names where they run, as `polygon run`
does: threads as many as `POLYGON_CONCURRENCY` (not the subflow's declared 8), and a bad value fails
the flow with the variable's own error before any conversation. No Dask cluster is started
(`test_dask_runner.py` runs one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SUITE = demo_dir() / "suite"
V2 = demo_dir() / "agents" / "agent_v2.yaml"
BAD = "POLYGON_TASK_RUNNER='ray': expected one of thread, dask"


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The task runner of each evaluate_suite run (its type and thread count), as the flow sees it
    when it decides where its conversations go (`on_cluster`)."""
    import polygon.flows._evaluate as evaluate
    from prefect.context import FlowRunContext

    runners: list[tuple[str, int]] = []
    real = evaluate.on_cluster

    def spy() -> bool:
        context = FlowRunContext.get()
        assert context is not None
        runner: Any = context.task_runner
        runners.append((type(runner).__name__, runner._max_workers))
        return real()

    monkeypatch.setattr(evaluate, "on_cluster", spy)
    return runners


def _sweep(tmp_path: Path) -> Any:
    body = {"name": "runner", "agent": str(V2), "suite": str(SUITE), "scenarios": ["address-change"],
            "seeds": [0], "strategy": "grid", "parameters": {"noise": [0.0, 0.5]}, "tokens_per_turn_estimate": 1}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return CliRunner().invoke(app, ["sweep", str(path), "--json"])


def _reevaluate() -> dict[str, Any]:
    from polygon.flows import reevaluate_on_prompt_commit

    return reevaluate_on_prompt_commit(agent_path=str(V2), prompt_hash="sha256:" + "ab" * 32,
                                       suite_path=str(SUITE), seeds=[0])


def _stored_runs() -> list[str]:
    from polygon import usecases

    return [r.id for r in usecases.open_stores().repo.list_runs(limit=None)]


@pytest.mark.usefixtures("polygon_home")
def test_each_sweep_point_runs_on_the_variable_s_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         seen: list[tuple[str, int]]) -> None:
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "thread")
    monkeypatch.setenv("POLYGON_CONCURRENCY", "3")
    result = _sweep(tmp_path)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert sorted(p["label"] for p in report["leaderboard"]) == ["noise=0.0", "noise=0.5"]
    assert seen == [("ThreadPoolTaskRunner", 3), ("ThreadPoolTaskRunner", 3)]  # one per point


@pytest.mark.usefixtures("polygon_home")
def test_a_bad_runner_fails_the_sweep_with_its_message_before_any_point(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seen: list[tuple[str, int]]) -> None:
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "ray")
    result = _sweep(tmp_path)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"error: {BAD}"
    assert seen == [] and _stored_runs() == []


@pytest.mark.usefixtures("polygon_home")
def test_the_re_evaluation_runs_its_suite_on_the_variable_s_runner(monkeypatch: pytest.MonkeyPatch,
                                                                   seen: list[tuple[str, int]]) -> None:
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "thread")
    monkeypatch.setenv("POLYGON_CONCURRENCY", "3")
    out = _reevaluate()
    assert seen == [("ThreadPoolTaskRunner", 3)]
    assert _stored_runs() == [out["run_id"]]


@pytest.mark.usefixtures("polygon_home")
def test_a_bad_runner_fails_the_re_evaluation_with_its_message_before_anything_runs(
        monkeypatch: pytest.MonkeyPatch, seen: list[tuple[str, int]]) -> None:
    monkeypatch.setenv("POLYGON_TASK_RUNNER", "ray")
    with pytest.raises(ValueError) as failed:
        _reevaluate()
    assert str(failed.value) == BAD
    assert seen == [] and _stored_runs() == []
