"""Resume after SIGKILL (every conversation exactly once) and `polygon replay` (no differences)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
SUITE = demo_dir() / "suite"
V1 = demo_dir() / "agents" / "agent_v1.yaml"
EXE = str(Path(sys.executable).with_name("polygon"))


def _env(home: Path) -> dict[str, str]:
    from prefect.settings import PREFECT_API_URL

    # The subprocess talks to the session's test server instead of starting its own.
    return {**os.environ, "POLYGON_HOME": str(home), "PREFECT_API_URL": str(PREFECT_API_URL.value())}


def _stored(db: Path, run_id: str) -> list[str]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("select conversation_id from polygon_conversation where run_id = ?",
                                (run_id,)).fetchall()
    except sqlite3.OperationalError:
        return []
    return [r[0] for r in rows]


def test_sigkill_then_resume_runs_every_conversation_exactly_once(polygon_home: Path) -> None:
    db = polygon_home / "polygon.db"
    args = [EXE, "run", str(SUITE), "--agent", str(V1), "--seeds", "4", "--run-id", "resume-me", "--json"]
    proc = subprocess.Popen(args, env=_env(polygon_home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(_stored(db, "resume-me")) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _stored(db, "resume-me")
    assert 0 < len(before) < 24, "the kill should land half-way"
    out = subprocess.run(args, env=_env(polygon_home), capture_output=True, text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    after = _stored(db, "resume-me")
    assert len(after) == len(set(after)) == 24
    assert set(before) <= set(after)
    (run,) = json.loads(out.stdout)["runs"]
    assert run["conversations"] == 24 and sum(run["verdicts"].values()) == 24


def test_replay_of_a_stored_conversation_reports_no_differences(polygon_home: Path) -> None:
    env = _env(polygon_home)
    out = subprocess.run([EXE, "run", str(SUITE), "--agent", str(V1), "--seeds", "1", "--run-id", "rp",
                          "--json"], env=env, capture_output=True, text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    conv = _stored(polygon_home / "polygon.db", "rp")[0]
    replay = subprocess.run([EXE, "replay", conv], env=env, capture_output=True, text=True, check=False, timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert f"replayed {conv} from run rp: no differences" in " ".join(replay.stdout.split())
