"""An interrupted `polygon run` (Ctrl-C) marks its run `interrupted` (it used to stay `running` for
ever in `polygon runs`), says what it kept and how to resume it, and a resume runs it again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polygon_core.demo import demo_dir
from tests.fakes.llm_server import Behaviour, FakeLLMServer

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]


def _stored(folder: Path) -> int:
    return len(list(folder.glob("*.json"))) if folder.is_dir() else 0


def test_ctrl_c_marks_the_run_interrupted_and_says_how_to_resume(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import get_current_settings

    from polygon import usecases

    home = tmp_path / "home"
    with FakeLLMServer(Behaviour(delay=0.3)) as server:
        agent = tmp_path / "agent.yaml"
        agent.write_text(f"name: slow-agent\nprompt: You are Northwind's billing agent.\n"
                         f"model: openai:slow@{server.openai_url}\n", encoding="utf-8")
        env = {**os.environ, "POLYGON_HOME": str(home), "POLYGON_OPENAI_API_KEY": "fake-key",
               "PREFECT_API_URL": str(get_current_settings().api.url)}
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("polygon")), "run", str(demo_dir() / "suite"), "--agent", str(agent),
             "--seeds", "2", "--concurrency", "1", "--run-id", "intr"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        folder = home / "artifacts" / "runs" / "intr" / "conversations"
        deadline = time.monotonic() + 120
        while _stored(folder) < 1 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    monkeypatch.setenv("POLYGON_HOME", str(home))
    stores = usecases.open_stores()
    run = stores.repo.get_run("intr", exact=True)
    assert run is not None and run.status == "interrupted", err
    kept = len(stores.repo.conversation_ids("intr"))
    assert 1 <= kept < 12
    assert (f"interrupted: run intr keeps its {kept} stored conversation(s); resume it with the same command "
            "and --run-id intr") in " ".join(err.split())
    # Resumed, it is running again (and a complete run is never marked).
    assert usecases.create_run(stores, run).status == "running"
    assert stores.repo.get_run("intr", exact=True).status == "running"  # type: ignore[union-attr]
    stores.repo.set_run_status("intr", "complete")
    assert usecases.mark_unfinished(stores, ["intr", "missing"], "interrupted") == []
    stores.repo.close()
