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
        assert httpx.get(f"{started.api_url}/health", timeout=5).json() is True
        again = _server.start(240.0, folder, port=port)  # a second start finds it and starts nothing
        assert again.pid == pid
    finally:
        stopped = _server.stop(folder)
    assert stopped == pid
    assert not (folder / "server.pid").exists()
    assert _server.state(folder, port) == _server.ServerState(
        api_url=f"http://127.0.0.1:{port}/api", answering=False, pid=None, folder=folder)


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
