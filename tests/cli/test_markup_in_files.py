"""Text from the user's files is printed as written: Rich markup in it is neither parsed nor rendered.

Issue 32 item 3: `[bold red]x[/]` in a persona's goal or an assertion's name was rendered as bold
red "x" (the brackets lost), and a regex whose `[/a-z]` Rich read as a closing tag crashed
`validate` and `run` with a MarkupError (that case is in tests/hardening/test_one_validation_path.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import _base, app
from polygon_core.demo import demo_dir

runner = CliRunner()
MARKUP = "[bold red]x[/]"


def _suite(root: Path) -> None:
    shutil.copytree(demo_dir() / "suite", root / "suite")
    for extra in sorted((root / "suite" / "scenarios").glob("*.yaml"))[1:]:
        extra.unlink()  # one scenario keeps the run short
    shutil.copy(demo_dir() / "agents" / "agent_v1.yaml", root / "agent.yaml")
    shutil.copy(demo_dir() / "agents" / "prompt_v1.txt", root / "prompt_v1.txt")
    scenario = root / "suite" / "scenarios" / "01_billing_dispute.yaml"
    text = scenario.read_text(encoding="utf-8")
    for old, new in (
        ("seed: 41\n", f'seed: 41\ndescription: "{MARKUP} described"\n'),
        ("goal: reverse a duplicate charge from last month", f'goal: "{MARKUP} reverse a duplicate charge"'),
        ("  goal_met: refund_issued(amount == 49.00)\n",
         f"  goal_met: refund_issued(amount == 49.00)\n  \"{MARKUP}\": \"said('{MARKUP}')\"\n"),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    scenario.write_text(text, encoding="utf-8")


def test_markup_in_a_scenario_is_printed_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, polygon_home: Path
) -> None:
    _suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_base.console, "_width", 200)  # no cell wraps (tests/cli/test_tables_at_80.py)
    validated = runner.invoke(app, ["validate", "suite", "agent.yaml"])
    assert (validated.exit_code, validated.output) == (0, "ok: 2 path(s) valid\n")

    ran = runner.invoke(app, ["run", "suite", "--agent", "agent.yaml", "--seeds", "1", "--json"])
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["runs"][0]["run_id"]

    shown = runner.invoke(app, ["show", run_id])
    assert shown.exit_code == 0, shown.output
    rows = [line for line in shown.stdout.splitlines() if line.startswith("│ billing-dispute-v3-s0-")]
    assert [row.split("│")[-2].strip() for row in rows] == [MARKUP]  # the failed assertion

    conversation = rows[0].split("│")[1].strip()
    detail = runner.invoke(app, ["show", run_id, conversation])
    assert detail.exit_code == 0, detail.output
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in detail.stdout.splitlines()]
    assert [MARKUP, "fail", f"agent never said '{MARKUP}'"] in cells  # the assertions table
    assert ["1", "caller", f"Hi. {MARKUP} reverse a duplicate charge. I've got five minutes."] in cells
    assert "\\[" not in detail.stdout  # printed as written, not escaped either

