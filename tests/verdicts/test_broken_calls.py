"""A broken call never passes: agents that are down, raise, stay silent or hang up at once fail,
unjudged, with their reason, and `polygon run` exits 1 naming it."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core.conversation import AgentAction, AgentRequest

from ._files import scenario, write_suite

runner = CliRunner()

def raising(request: AgentRequest) -> AgentAction:
    """An agent whose code raises on its first step."""
    raise RuntimeError("database connection pool exhausted")


def silent(request: AgentRequest) -> AgentAction:
    """An agent that answers with nothing, every time."""
    return AgentAction(say="")


def hangs_up(request: AgentRequest) -> AgentAction:
    """An agent that greets and ends the call before the caller can speak."""
    return AgentAction(say="Thanks for calling Northwind. Goodbye.", end="end")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: connections are refused


def _files(tmp_path: Path, agent_line: str) -> tuple[Path, Path]:
    return write_suite(tmp_path, scenario(gate=True), f"name: broken\nprompt: Help the caller.\n{agent_line}\n")


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize(("agent_line", "reason"), [
    ("endpoint: http://127.0.0.1:{port}/agent",
     "agent_error: HttpAgentError: cannot connect to http://127.0.0.1:{port}/agent (ConnectError: All "
     "connection attempts failed): is the agent running?"),
    ("callable: tests.verdicts.test_broken_calls:raising", "agent_error: RuntimeError: database connection pool exhausted"),
    ("callable: tests.verdicts.test_broken_calls:silent", "the agent never spoke"),
    ("callable: tests.verdicts.test_broken_calls:hangs_up", "the agent ended the call before the caller spoke"),
], ids=["closed-port", "raising-callable", "silent", "hang-up-after-greeting"])
def test_a_broken_agent_fails_unjudged_and_run_exits_1_naming_it(
        polygon_home: Path, tmp_path: Path, agent_line: str, reason: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon import usecases
    from polygon.cli import _app

    monkeypatch.setattr(_app.console, "_width", 240)

    port = _closed_port()
    suite, agent = _files(tmp_path, agent_line.format(port=port))
    reason = reason.format(port=port)
    result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "2", "--json"])
    assert result.exit_code == 1, result.output
    (line,) = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert line.startswith("error: agent broken failed on 2 of 2 conversations: " + reason), line
    (summary,) = json.loads(result.stdout)["runs"]
    assert (summary["verdicts"], summary["agent_failures"], summary["mean_composite"]) == (
        {"pass": 0, "warn": 0, "fail": 2}, 2, None)
    assert summary["agent_failure_reason"].startswith(reason)
    stores = usecases.open_stores()
    judgments = stores.repo.judgments(summary["run_id"])
    assert [(j.status, j.verdict, j.composite, j.criteria, j.repeats) for j in judgments] == [
        ("agent_failure", "fail", None, [], 0)] * 2
    shown = runner.invoke(app, ["show", summary["run_id"]])
    assert shown.exit_code == 0, shown.output
    assert "agent_failure" in shown.stdout and "broken calls (fail, not judged)" in shown.stdout


def test_agent_failure_rule() -> None:
    from polygon_core.judging import agent_failure
    from polygon_core.models import Conversation, EndReason, Turn

    def conv(turns: list[Turn], end: EndReason = EndReason.AGENT_END, detail: str | None = None) -> Conversation:
        return Conversation(id="c", scenario_id="s", seed=0, agent_name="a", agent_version="v", persona_hash="p",
                            caller_type="busy", difficulty=1, turns=turns, end_reason=end, end_detail=detail)

    hello = Turn(index=0, speaker="agent", text="Hello.")
    caller = Turn(index=1, speaker="caller", text="Hi, my bill is wrong.")
    answer = Turn(index=2, speaker="agent", text="Let me check.")
    assert agent_failure(conv([hello, caller, answer])) is None
    assert agent_failure(conv([hello, caller, answer], EndReason.AGENT_ERROR, "timeout")) == "agent_error: timeout"
    assert agent_failure(conv([Turn(index=0, speaker="agent", text="  "), caller], EndReason.MAX_TURNS)) == (
        "the agent never spoke")
    assert agent_failure(conv([hello])) == "the agent ended the call before the caller spoke"
    # A caller who hangs up at once is not the agent's failure.
    assert agent_failure(conv([hello], EndReason.CALLER_HANGUP)) is None
