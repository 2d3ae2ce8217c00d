"""`polygon validate` warns (yellow, exit code unchanged) about a persona with a goal but no facts."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir
from polygon_core.files import validation_warnings

runner = CliRunner()

ARENA = """id: arena-refund
persona:
  temperament: impatient
  goal: get my money back for a double charge
"""


def test_a_persona_without_facts_is_a_warning_naming_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(ARENA, encoding="utf-8")
    warnings = validation_warnings([path])
    assert [str(w) for w in warnings] == [
        f"{path}: persona.ground_truth: persona has a goal ('get my money back for a double charge') but no "
        "facts to give: ground_truth is empty, so the simulated caller cannot answer the agent's "
        "questions (the facts the agent will ask for: a name, an account or order number, a date…)"]
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0
    assert "warning:" in result.stderr and "no facts to give" in result.stderr
    assert "ok: 1 path(s) valid" in result.stdout


def test_in_a_suite_the_warning_names_the_arguments_its_tools_require(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", suite)
    (suite / "scenarios" / "07_arena.yaml").write_text(ARENA + "tools: [lookup_account]\n", encoding="utf-8")
    warnings = validation_warnings([suite])
    assert len(warnings) == 1
    assert "07_arena.yaml" in str(warnings[0])
    assert str(warnings[0]).endswith("(its tools ask for account_id, postcode)")


def test_the_demo_suite_has_no_warnings() -> None:
    assert validation_warnings([demo_dir() / "suite"]) == []
