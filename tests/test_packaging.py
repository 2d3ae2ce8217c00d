"""The wheel installs and the CLI runs outside the checkout, with tasks/flows under `polygon.`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout (once for this module's tests)."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(REPO)], check=True, capture_output=True, timeout=300)
    (built,) = dist.glob("polygon_bench-*.whl")
    return built


def test_wheel_installs_and_cli_runs_outside_checkout(tmp_path: Path, wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "polygon/flows/__init__.py" in names and "polygon/tasks/__init__.py" in names
    assert not any(n.startswith(("tasks/", "flows/")) for n in names)
    assert "polygon_core/demo/suite/scenarios/01_billing_dispute.yaml" in names
    assert any(n.startswith("polygon_core/adapters/storage/migrations/versions/") for n in names)
    # Every Python module of the checkout ships (pyproject lists packages explicitly because of
    # the tasks/flows mapping, so a forgotten subpackage must fail here, not on a user's machine).
    expected = {str(p.relative_to(REPO)) for root in ("polygon_core", "polygon")
                for p in (REPO / root).rglob("*.py") if "__pycache__" not in p.parts}
    expected |= {"polygon/" + str(p.relative_to(REPO)) for root in ("tasks", "flows")
                 for p in (REPO / root).rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(expected - set(names)) == []
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(target), "POLYGON_HOME": str(tmp_path / "home")}
    code = ("import polygon, polygon.flows, polygon.cli, polygon_core, sys; "
            "import polygon.usecases, polygon_core.adapters.providers; "
            "assert polygon.__file__.startswith(sys.argv[1]), polygon.__file__; "
            "assert polygon_core.__file__.startswith(sys.argv[1]); "
            "from polygon.cli import main; sys.argv = ['polygon', 'validate', sys.argv[2]]; main()")
    suite = target / "polygon_core" / "demo" / "suite"
    out = subprocess.run([sys.executable, "-c", code, str(target), str(suite)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ok" in out.stdout


def test_polygon_deploy_from_the_wheel_in_an_empty_folder_creates_the_deployments(
        tmp_path: Path, wheel: Path, prefect_harness: None) -> None:
    # The one documented command (docs/deployments.md), run where there is no checkout: the
    # deployments come from the package, and their flow runs start in the folder it was run in.
    from prefect.client.orchestration import get_client
    from prefect.settings import get_current_settings

    target, empty, home = tmp_path / "site", tmp_path / "empty", tmp_path / "prefect-home"
    empty.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    api = get_current_settings().api.url
    assert api is not None
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "POLYGON_"))},
           "PYTHONPATH": str(target), "PREFECT_API_URL": api, "PREFECT_HOME": str(home)}
    code = "import sys; from polygon.cli import main; sys.argv = ['polygon', *sys.argv[1:]]; main()"
    out = subprocess.run([sys.executable, "-c", code, "deploy", "--pool", "wheel-pool", "--json"], cwd=empty,
                         env=env, capture_output=True, text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    suite = target / "polygon_core" / "demo" / "suite"
    assert report["suite_path"] == str(suite) and report["working_dir"] == str(empty)
    assert report["work_pool"] == "wheel-pool" and report["work_pool_created"] is True
    assert [(d["name"], d["entrypoint"]) for d in report["deployments"]] == [
        ("reevaluate-on-prompt-commit", "polygon.flows._reevaluate.reevaluate_on_prompt_commit"),
        ("sweep", "polygon.flows._sweep.run_sweep"),
        ("import-calls", "polygon.flows._import_calls.import_arrived_calls"),
        ("pull-calls", "polygon.flows._import_calls.pull_calls")]
    start_in = [{"prefect.deployments.steps.set_working_directory": {"directory": str(empty)}}]
    with get_client(sync_client=True) as client:
        assert client.read_work_pool("wheel-pool").type == "process"
        reevaluate = client.read_deployment_by_name("reevaluate-on-prompt-commit/reevaluate-on-prompt-commit")
        sweep = client.read_deployment_by_name("run-sweep/sweep")
        for deployment in (reevaluate, sweep):
            assert deployment.work_pool_name == "wheel-pool" and deployment.pull_steps == start_in
        assert reevaluate.entrypoint == "polygon.flows._reevaluate.reevaluate_on_prompt_commit"
        assert reevaluate.parameters == {"suite_path": str(suite)}
        assert sweep.entrypoint == "polygon.flows._sweep.run_sweep"
        # Each event trigger is an automation that runs its deployment.
        started = {str(action.deployment_id) for automation in client.read_automations()
                   for action in automation.actions if getattr(action, "deployment_id", None)}
        assert {str(reevaluate.id), str(sweep.id)} <= started
