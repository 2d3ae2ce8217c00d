"""A sweep whose base agent cannot run is refused in one line before any point starts (issue 32,
item 8: `callable: this:s` let `polygon sweep` start, and the first point's task failure printed a
traceback before the error line)."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir


def test_a_sweep_with_an_agent_that_is_not_callable_is_one_line(polygon_home: Path, tmp_path: Path) -> None:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    (tmp_path / "agent.yaml").write_text('name: z\ncallable: "os:sep"\n', encoding="utf-8")
    (tmp_path / "sweep.yaml").write_text(
        "name: late\nagent: agent.yaml\nsuite: suite\nscenarios: [billing-dispute-v3]\nseeds: [0]\n"
        "strategy: grid\nparameters:\n  noise: [0.0]\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["sweep", str(tmp_path / "sweep.yaml")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.output.strip() == (f"error: {(tmp_path / 'agent.yaml').resolve()}: callable 'os:sep' is "
                                     "neither a class nor a function")
