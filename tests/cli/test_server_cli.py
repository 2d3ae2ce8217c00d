"""`polygon server`: a detached, long-lived Prefect server recorded under POLYGON_HOME, and stopped by it."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from polygon.cli import _server
from polygon.cli._app import app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_start_runs_a_detached_server_with_its_pid_and_log_under_home_and_stop_ends_it(tmp_path: Path) -> None:
    folder, port = tmp_path / "prefect-server", _free_port()
    try:
        started = _server.start(240.0, folder, port=port)
        assert started.answering and started.ours and started.api_url == f"http://127.0.0.1:{port}/api"
        pid = int((folder / "server.pid").read_text(encoding="utf-8"))
        assert started.pid == pid
        # Its own session: a Ctrl-C in the terminal that started it does not reach it.
        assert os.getsid(pid) == pid
        assert (folder / "server.log").is_file() and (folder / "prefect.db").is_file()
        # It runs with the task-run recorder batching (unless this environment set its own value).
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        expected = os.environ.get("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", "100")
        assert f"PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE={expected}".encode() in environ
        assert httpx.get(f"{started.api_url}/health", timeout=5).json() is True
        again = _server.start(240.0, folder, port=port)  # a second start finds it and starts nothing
        assert again.pid == pid
    finally:
        stopped = _server.stop(folder)
    assert stopped == pid
    assert not (folder / "server.pid").exists()
    assert _server.state(folder, port) == _server.ServerState(
        api_url=f"http://127.0.0.1:{port}/api", answering=False, pid=None, folder=folder)


def test_the_server_env_batches_the_task_run_recorder_keeps_a_value_set_and_drops_the_api_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", raising=False)
    monkeypatch.setenv("PREFECT_API_URL", "http://elsewhere:4200/api")
    env = _server.server_env(tmp_path)
    assert env["PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE"] == "100"
    assert env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] == f"sqlite+aiosqlite:///{tmp_path / 'prefect.db'}"
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert "PREFECT_API_URL" not in env
    monkeypatch.setenv("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", "7")  # an operator's own
    assert _server.server_env(tmp_path)["PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE"] == "7"


def test_stop_leaves_a_process_alone_whose_pid_is_not_a_prefect_server(tmp_path: Path) -> None:
    folder = tmp_path / "prefect-server"
    folder.mkdir()
    (folder / "server.pid").write_text(f"{os.getpid()}\n", encoding="utf-8")  # this pytest process
    assert _server.stop(folder) is None
    assert not (folder / "server.pid").exists()  # the stale record is cleared, nothing signalled


@pytest.mark.parametrize("command", ["stop"])
def test_stop_without_a_server_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.setenv("POLYGON_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["server", command])
    assert result.exit_code == 0
    assert result.output.startswith("no Prefect server started by `polygon server start` is running")


def test_the_temporary_server_batches_the_task_run_recorder_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon.cli import _prefect

    seen: list[dict[str, str]] = []

    class Popen:  # records the environment instead of starting a server
        def __init__(self, args: list[str], env: dict[str, str], **_kw: object) -> None:
            seen.append(env)

    monkeypatch.setattr(_prefect.subprocess, "Popen", Popen)
    monkeypatch.delenv("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", raising=False)
    _prefect._spawn(4321)
    monkeypatch.setenv("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", "7")  # an operator's own
    _prefect._spawn(4321)
    assert [env["PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE"] for env in seen] == ["100", "7"]
