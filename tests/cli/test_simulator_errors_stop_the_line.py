"""A conversation that ends `simulator_error` (a stub template broke mid-run) is not scored, and
`polygon run` exits 1 with one line naming the count and the first reason, as for provider errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon.cli._failures import failure_line
from polygon_core.compare import Scorecard
from polygon_core.demo import demo_dir

REASON = ("tool stub 'issue_refund' failed: StubError: tool 'issue_refund': template "
          "'{{ args.amount + state.no_such.thing }}' failed: 'dict object' has no attribute 'no_such'")


def test_failure_line_names_simulator_errors_after_provider_errors() -> None:
    # Only the counts matter to the line.
    card = Scorecard.model_construct(  # type: ignore[call-arg]
        label="a", conversations=3, provider_errors=1, simulator_errors=2, agent_failures=0, judge_errors=0,
        probe_errors=0)
    assert failure_line([card], first_provider_detail="p", first_simulator_detail="s") == (
        "1 of 3 conversations ended with provider_error (not scored); first: p; "
        "2 of 3 conversations ended with simulator_error (not scored); first: s")
    assert failure_line([card], kinds=("judge",)) is None


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_run_exits_1_when_a_stub_breaks_mid_run(polygon_home: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(demo_dir() / "suite", suite)
    for extra in sorted((suite / "scenarios").glob("*.yaml"))[1:]:
        extra.unlink()  # the billing dispute, where the demo agent issues a refund
    tools = suite / "tools.yaml"
    # `state.no_such` passes validate (state's keys are the scenario's) and fails when rendered.
    tools.write_text(tools.read_text(encoding="utf-8").replace(
        '{amount: "{{ args.amount }}"', '{amount: "{{ args.amount + state.no_such.thing }}"'), encoding="utf-8")
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    result = CliRunner().invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1", "--json"])
    assert result.exit_code == 1, result.output
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        f"error: 1 of 1 conversations ended with simulator_error (not scored); first: {REASON}"]
    summary = json.loads(result.stdout)
    assert [(r["conversations"], r["simulator_errors"]) for r in summary["runs"]] == [(1, 1)]
    shown = CliRunner().invoke(app, ["show", summary["runs"][0]["run_id"], "--json"])
    assert shown.exit_code == 0, shown.output
    conversation = json.loads(shown.stdout)["conversations"][0]
    assert (conversation["end_reason"], conversation["reason"]) == ("simulator_error", REASON)
    assert conversation["why"].startswith(f"simulator_error: {REASON}")
