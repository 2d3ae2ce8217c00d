"""Infrastructure failures: one line with the cause and the fix, exit 1, nothing recorded; and the
temporary Prefect server never outlives a killed command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir

EXE = str(Path(sys.executable).with_name("polygon"))
SUITE = str(demo_dir() / "suite")
V1 = str(demo_dir() / "agents" / "agent_v1.yaml")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POLYGON_", "PREFECT_API_URL"))}
    env.update({"POLYGON_HOME": str(tmp_path / ".polygon"), "PREFECT_HOME": str(tmp_path / "prefect"),
                "COLUMNS": "200", **extra})
    return env


def polygon(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], capture_output=True, text=True, check=False, timeout=300,
                          env=_env(tmp_path, **env), cwd=tmp_path)


def _one_line(out: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    return lines[0]


def test_a_database_that_is_down_is_one_line_and_exit_1(tmp_path: Path) -> None:
    out = polygon(tmp_path, "runs", POLYGON_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:9/polygon")
    assert out.returncode == 1
    line = _one_line(out)
    assert line.startswith("error: the database cannot be used: ") and "POLYGON_DATABASE_URL" in line, line


@pytest.mark.postgres
def test_a_database_not_migrated_is_one_line_naming_the_fix(tmp_path: Path, postgres_url: str) -> None:
    out = polygon(tmp_path, "runs", POLYGON_DATABASE_URL=postgres_url)
    assert out.returncode == 1
    assert "run `polygon db upgrade`" in _one_line(out)


def test_an_unreachable_prefect_api_is_one_line_and_nothing_is_recorded(tmp_path: Path) -> None:
    out = polygon(tmp_path, "run", SUITE, "--agent", V1, "--seeds", "1", PREFECT_API_URL="http://127.0.0.1:9/api")
    assert out.returncode == 1
    assert _one_line(out) == ("error: cannot reach the Prefect API at http://127.0.0.1:9/api: is the server "
                              "running? (check PREFECT_API_URL)")
    assert not (tmp_path / ".polygon" / "artifacts" / "runs").exists()


def test_a_missing_bucket_is_one_line_before_any_run_is_recorded(tmp_path: Path, s3_endpoint: str) -> None:
    # The fixture's fake credentials are in this process's environment, which the command inherits.
    out = polygon(tmp_path, "run", SUITE, "--agent", V1, "--seeds", "1", POLYGON_ARTIFACTS_URL="s3://no-such-bucket/p",
                  POLYGON_S3_ENDPOINT_URL=s3_endpoint)
    assert out.returncode == 1
    assert _one_line(out) == (
        f"error: the artifact store cannot be used: S3 bucket 'no-such-bucket' does not exist at {s3_endpoint}; "
        "create it or fix the artifacts URL (POLYGON_ARTIFACTS_URL, POLYGON_S3_ENDPOINT_URL)")
    listed = polygon(tmp_path, "runs")
    assert listed.returncode == 0 and "run-" not in listed.stdout  # no run row was created


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
def test_a_sigkilled_run_leaves_no_prefect_server_behind(tmp_path: Path) -> None:
    cli = subprocess.Popen([EXE, "run", SUITE, "--agent", V1, "--seeds", "20"], env=_env(tmp_path),
                           cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        server: list[int] = []
        while not server and time.monotonic() < deadline and cli.poll() is None:
            time.sleep(0.2)
            server = _children(cli.pid)
        assert server, "the command never started its Prefect server"
        time.sleep(1.0)  # past the launcher's exec: the child is the server itself now
        cli.send_signal(signal.SIGKILL)
        cli.wait(timeout=30)
        gone_by = time.monotonic() + 30
        while any(_alive(p) for p in server) and time.monotonic() < gone_by:
            time.sleep(0.2)
        assert not any(_alive(p) for p in server), f"orphaned Prefect server: {server}"
    finally:
        if cli.poll() is None:
            cli.kill()
