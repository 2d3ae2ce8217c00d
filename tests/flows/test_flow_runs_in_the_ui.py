"""What an operator sees of a `polygon run` in the Prefect UI: the flow run's name, its tags, its log."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()


@pytest.fixture
def logs_to_api(prefect_harness: None) -> Iterator[None]:
    """Flow-run logs sent to the test server, as `polygon run` does against a real one (the test
    session turns them off, and quiets Prefect's loggers to WARNING)."""
    import prefect.main  # noqa: F401  (its import configures logging: before the levels are set)
    from prefect.settings import PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    loggers = [logging.getLogger(name) for name in ("prefect.flow_runs", "prefect.task_runs")]
    levels = [logger.level for logger in loggers]
    try:
        with temporary_settings(updates={PREFECT_LOGGING_TO_API_ENABLED: True}):
            for logger in loggers:
                logger.setLevel(logging.INFO)
            yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def flow_runs_since(start: datetime, flow_name: str) -> list[Any]:
    """Flow runs of `flow_name` started after `start`, oldest first."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName, FlowRunFilter, FlowRunFilterStartTime
    from prefect.client.schemas.sorting import FlowRunSort

    with get_client(sync_client=True) as client:
        return client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[flow_name])),
            flow_run_filter=FlowRunFilter(start_time=FlowRunFilterStartTime(after_=start)),
            sort=FlowRunSort.START_TIME_ASC)


def log_lines(flow_run_id: Any) -> list[str]:
    """The messages the flow run itself logged (not its tasks), in order, once sent."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId, LogFilterTaskRunId
    from prefect.client.schemas.sorting import LogSort
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=60)
    with get_client(sync_client=True) as client:
        logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id]),
                                          task_run_id=LogFilterTaskRunId(is_null_=True)), sort=LogSort.TIMESTAMP_ASC)
    return [log.message for log in logs]


def test_a_run_is_named_tagged_and_logged(polygon_home: Path, logs_to_api: None) -> None:
    start = datetime.now(UTC)
    suite = demo_dir() / "suite"
    result = runner.invoke(app, ["run", str(suite), "--agent", str(demo_dir() / "agents" / "agent_v1.yaml"),
                                 "--seeds", "1", "--run-id", "ui-story", "--json"])
    assert result.exit_code == 0, result.output
    (out,) = json.loads(result.stdout)["runs"]
    version = out["agent_version"]
    (flow_run,) = flow_runs_since(start, "evaluate-suite")
    assert flow_run.name == f"evaluate suite: northwind-billing@{version[:8]}"
    assert flow_run.tags == ["agent:northwind-billing", "polygon", "rubric:v1", "source:synthetic",
                             "suite:northwind-demo", f"version:{version[:12]}"]
    # Polygon's own lines (Prefect adds its engine's: "Beginning flow run …", "Finished in state …").
    lines = [line for line in log_lines(flow_run.id)
             if line.startswith("evaluating suite") or "of 18 steps" in line or " finished: " in line]
    assert lines[0] == (f"evaluating suite {suite}: 6 conversations per agent, agents "
                        f"northwind-billing@{version[:8]} (run ui-story), rubric v1")
    # Progress at most once per tenth of the 18 steps (simulate, judge, probe × 6 conversations), to the end.
    progress = [int(line.split()[0]) for line in lines[1:-1]]
    assert lines[-2] == "18 of 18 steps (simulate, judge, probe per conversation) done"
    assert progress == sorted(set(progress)) and len({10 * n // 18 for n in progress}) == len(progress) <= 10
    # The progress artifact (updated from its own thread, off the conversations' loop) ends at 100%.
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, ArtifactFilterType

    with get_client(sync_client=True) as client:
        (artifact,) = client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run.id]), type=ArtifactFilterType(any_=["progress"])))
    assert (artifact.data, artifact.description) == (100.0, "18 of 18 steps")
    from polygon import usecases

    card = usecases.scorecard(usecases.open_stores(), "ui-story")
    assert (card.mean_composite, card.judge_model) == (out["mean_composite"], "offline-heuristic")
    assert lines[-1] == (f"run ui-story (northwind-billing@{version[:8]}) finished: 6 conversations, mean composite "
                         f"{card.mean_composite} [95% CI {card.ci_low}, {card.ci_high}] (rubric v1, judge "
                         f"offline-heuristic), verdicts {{'pass': 6, 'warn': 0, 'fail': 0}}, gate failures per gate none")


@pytest.mark.slow
def test_polygon_run_sends_its_lines_to_the_prefect_api_and_keeps_the_terminal_quiet(tmp_path: Path) -> None:
    # A real `polygon run` process with Prefect's logging left to Polygon's defaults (this test
    # session's own settings removed), against a running server as PREFECT_API_URL names it.
    import os
    import subprocess
    import sys

    from prefect.settings import get_current_settings

    start = datetime.now(UTC)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_LOGGING_", "POLYGON_"))}
    env.update({"PREFECT_API_URL": str(get_current_settings().api.url), "POLYGON_HOME": str(tmp_path / "home")})
    code = "import sys; from polygon.cli import main; sys.argv = ['polygon', *sys.argv[1:]]; main()"
    out = subprocess.run([sys.executable, "-c", code, "run", str(demo_dir() / "suite"), "--agent",
                          str(demo_dir() / "agents" / "agent_v1.yaml"), "--seeds", "1", "--run-id", "ui-process",
                          "--json"], env=env, capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    assert " | INFO " not in out.stderr  # Prefect's console handler stays at warnings
    (flow_run,) = flow_runs_since(start, "evaluate-suite")
    lines = log_lines(flow_run.id)
    assert any(line.startswith("evaluating suite ") and "(run ui-process)" in line for line in lines)
    assert any(line.startswith("run ui-process (northwind-billing@") and " finished: 6 conversations" in line
               for line in lines)
