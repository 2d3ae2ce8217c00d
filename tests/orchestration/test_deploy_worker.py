"""A deployment `polygon deploy` made from the installed package runs on a process worker: the flow
comes from the package (a module entrypoint), the run starts in the working folder, so a relative
spec path in the parameters resolves there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("prefect_harness")]
BIN = Path(sys.executable).parent


def test_a_sweep_deployed_from_the_package_runs_on_a_worker_in_the_working_folder(tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import get_current_settings

    work, home = tmp_path / "agents-repo", tmp_path / "home"
    work.mkdir()
    (work / "sweep.yaml").write_text(yaml.safe_dump({
        "name": "on-worker", "agent": str(demo_dir() / "agents" / "agent_v1.yaml"),
        "suite": str(demo_dir() / "suite"), "scenarios": ["address-change"], "seeds": [0],
        "strategy": "one_at_a_time", "parameters": {"noise": [0.0, 0.5]}}), encoding="utf-8")
    deployed = CliRunner().invoke(app, ["deploy", "--pool", "worker-pool", "--working-dir", str(work), "--json"])
    assert deployed.exit_code == 0, deployed.output
    api = get_current_settings().api.url
    assert api is not None
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name("run-sweep/sweep")
        flow_run = client.create_flow_run_from_deployment(deployment.id, parameters={"spec_path": "sweep.yaml"})
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "POLYGON_"))},
               "PREFECT_API_URL": api, "PREFECT_HOME": str(tmp_path / "prefect-home"),
               "POLYGON_HOME": str(home), "PREFECT_WORKER_QUERY_SECONDS": "1"}
        worker = subprocess.run([str(BIN / "prefect"), "worker", "start", "--pool", "worker-pool", "--type",
                                 "process", "--run-once"], cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=600, check=False)
        state = client.read_flow_run(flow_run.id).state
    assert state is not None and state.is_completed(), worker.stdout[-3000:] + worker.stderr[-3000:]
    board = json.loads((home / "artifacts" / "sweeps" / "on-worker" / "leaderboard.json").read_text())
    # Three points, two configurations: noise=0.0 on a scenario without noise is the base.
    assert sorted(p["label"] for p in board["leaderboard"]) == ["base", "noise=0.5"]
    assert [(s["label"], s["same_as"]) for s in board["same_configuration"]] == [("noise=0.0", "base")]
