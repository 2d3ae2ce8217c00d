"""A sweep whose base agent cannot run is refused in one line before any point starts (issue 32,
item 8: `callable: this:s` let `polygon sweep` start, and the first point's task failure printed a
traceback before the error line).

A value that is not a class or function is refused when the spec's agent is read (as `validate`
refuses it); what only importing shows (a class that cannot be made without arguments) by the
check `run` makes before it starts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir


def _spec(tmp_path: Path, callable_: str) -> Path:
    shutil.copytree(demo_dir() / "suite", tmp_path / "suite")
    (tmp_path / "agent.yaml").write_text(f'name: z\ncallable: "{callable_}"\n', encoding="utf-8")
    (tmp_path / "sweep.yaml").write_text(
        "name: late\nagent: agent.yaml\nsuite: suite\nscenarios: [billing-dispute-v3]\nseeds: [0]\n"
        "strategy: grid\nparameters:\n  noise: [0.0]\n", encoding="utf-8")
    return tmp_path / "sweep.yaml"


@pytest.mark.parametrize("callable_", ["os:sep", "this:s"])
def test_a_sweep_with_an_agent_that_is_a_value_is_one_line(polygon_home: Path, tmp_path: Path,
                                                           callable_: str) -> None:
    module, _, name = callable_.partition(":")
    result = CliRunner().invoke(app, ["sweep", str(_spec(tmp_path, callable_))])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.output.strip() == (
        f"error: {(tmp_path / 'agent.yaml').resolve()}:2: callable: callable '{callable_}' is neither a class "
        f"nor a function: module '{module}' defines '{name}' as a str")


def test_a_sweep_with_a_class_that_needs_arguments_is_one_line(polygon_home: Path, tmp_path: Path) -> None:
    spec = _spec(tmp_path, "needs_args_agent:Agent")
    (tmp_path / "needs_args_agent.py").write_text(
        "class Agent:\n    def __init__(self, token):\n        self.token = token\n\n"
        "    def act(self, request):\n        return {'say': 'hi'}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["sweep", str(spec)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.output.strip() == (
        f"error: {(tmp_path / 'agent.yaml').resolve()}: callable 'needs_args_agent:Agent': class 'Agent' "
        "cannot be made without arguments (missing a required argument: 'token'); Polygon makes one per "
        "conversation as `Agent()`")


def test_validate_finds_a_sweep_agents_module_in_the_sweeps_suite(tmp_path: Path) -> None:
    # As the sweep's runs look for it: beside the agent file, then in the suite folder (validate
    # looked only beside the agent file, so it refused a sweep that runs).
    spec = _spec(tmp_path, "suite_module_agent:act")
    (tmp_path / "suite" / "suite_module_agent.py").write_text("def act(request):\n    return {}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(spec)])
    assert (result.exit_code, result.output.strip()) == (0, "ok: 1 path(s) valid")
