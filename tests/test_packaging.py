"""The wheel installs and the CLI runs outside the checkout, with tasks/flows under `polygon.`."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def test_wheel_installs_and_cli_runs_outside_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(REPO)], check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("polygon_bench-*.whl")
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
