"""`polygon deploy`: bad input and an unreachable Prefect server are one line each, nothing created."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app

runner = CliRunner()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server_is_exit_1_naming_it() -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    api = f"http://127.0.0.1:{_closed_port()}/api"
    with temporary_settings(updates={PREFECT_API_URL: api}):
        result = runner.invoke(app, ["deploy", "--pool", "nowhere"])
    assert result.exit_code == 1
    assert result.output.strip() == (f"cannot reach the Prefect API at {api}: start one (`prefect server start`) "
                                     "and set PREFECT_API_URL=http://<host>:4200/api")


@pytest.mark.parametrize(("args", "message"), [
    (["--seeds", "0,one"], "--seeds 0,one: expected comma-separated integers such as 0,1,2"),
    (["--job-variables", "[1]"], "--job-variables [1]: expected a JSON object such as '{\"image\": \"…\"}'"),
    (["--pull-cron", "*/15 * * *"], "--pull-cron '*/15 * * *': Invalid cron string: \"*/15 * * *\""),
    (["--cron", "every monday"], "--cron 'every monday': Invalid cron string: \"every monday\""),
    (["--timezone", "Mars/Olympus"], "--timezone 'Mars/Olympus': Invalid timezone: \"Mars/Olympus\""),
])
def test_bad_options_are_exit_2_before_any_server_is_asked(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["deploy", *args])
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_the_schedules_are_the_cron_options_in_the_timezone(tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.schedules import CronSchedule

    result = runner.invoke(app, ["deploy", "--pool", "cron-pool", "--working-dir", str(tmp_path), "--json",
                                 "--production-source", "s3://calls/exports", "--cron", "30 5 * * 2",
                                 "--pull-cron", "*/5 * * * *", "--timezone", "Europe/Paris"])
    assert result.exit_code == 0, result.output
    with get_client(sync_client=True) as client:
        schedules = {name: [s.schedule for s in client.read_deployment_by_name(f"{name}/{name}").schedules]
                     for name in ("weekly-production-grading", "pull-calls")}
    crons = {name: [(s.cron, s.timezone) for s in found if isinstance(s, CronSchedule)]
             for name, found in schedules.items()}
    assert crons == {"weekly-production-grading": [("30 5 * * 2", "Europe/Paris")],
                     "pull-calls": [("*/5 * * * *", "Europe/Paris")]}
