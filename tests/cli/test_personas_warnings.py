"""`polygon personas generate` names a fact the prompt asks for that no generated persona has (issue 31)."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.demo import demo_dir

runner = CliRunner()


def test_generate_warns_of_a_field_no_persona_has(polygon_home: Path, tmp_path: Path) -> None:
    shutil.copy(demo_dir() / "agents" / "agent_v1.yaml", tmp_path / "agent.yaml")
    (tmp_path / "prompt_v1.txt").write_text(
        "You help patients book appointments. Always confirm the caller's identity: name and date of birth.\n")
    made = runner.invoke(app, ["personas", "generate", "--agent", str(tmp_path / "agent.yaml"), "--count", "4"])
    assert made.exit_code == 0, made.output
    assert " ".join(made.stderr.split()) == (
        "warning: no persona has date_of_birth, which the prompt says the agent asks for (\"Always confirm the "
        "caller's identity: name and date of birth.\"): every call that asks for it will fail for want of it")
