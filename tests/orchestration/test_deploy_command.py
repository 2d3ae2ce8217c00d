"""`polygon deploy`: bad input and an unreachable Prefect server are one line each, nothing created."""

from __future__ import annotations

import socket

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
])
def test_bad_options_are_exit_2_before_any_server_is_asked(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["deploy", *args])
    assert result.exit_code == 2
    assert message in result.output
