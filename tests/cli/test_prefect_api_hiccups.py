"""A busy Prefect API (503 now and then) does not kill a run: the client retries it.

`polygon run` goes through a proxy that answers every 7th HTTP request to the API with 503 before it
reaches the server. Without retries the run dies; the issue saw a traceback. With the CLI's
default (`PREFECT_CLIENT_MAX_RETRIES` 10) it finishes and stores every conversation once.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir
from tests.fakes.flaky_proxy import FlakyProxy

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
EXE = str(Path(sys.executable).with_name("polygon"))


def _run_through(proxy: FlakyProxy, home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_CLIENT_")}
    env |= {"POLYGON_HOME": str(home), "PREFECT_API_URL": f"{proxy.url}/api", **extra}
    return subprocess.run([EXE, "run", str(SUITE), "--agent", str(V1), "--seeds", "1"], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _upstream() -> str:
    from prefect.settings import PREFECT_API_URL

    return str(PREFECT_API_URL.value()).removesuffix("/api")


def test_a_run_survives_503s_from_the_prefect_api(tmp_path: Path) -> None:
    with FlakyProxy(_upstream(), every=7) as proxy:
        out = _run_through(proxy, tmp_path / "home")
    assert proxy.refused >= 3, proxy.requests  # the API really was flaky during the run
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    with sqlite3.connect(tmp_path / "home" / "polygon.db") as db:
        (conversations, distinct), = db.execute(
            "select count(*), count(distinct conversation_id) from polygon_conversation").fetchall()
    assert conversations == distinct == 6  # the demo suite (six scenarios) at one seed, each stored once


def test_without_retries_the_same_api_stops_the_run_with_one_line(tmp_path: Path) -> None:
    with FlakyProxy(_upstream(), every=7) as proxy:
        out = _run_through(proxy, tmp_path / "home", PREFECT_CLIENT_MAX_RETRIES="0")
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0 and out.stderr.startswith("error:"), out.stderr[-2000:]
