"""A failing judge stops the line: 401, a timeout or a runaway reply make `run` and `rescore` exit 1
with one line naming the judge, the count and the first cause; the failure is stored and shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from tests.fakes.llm_server import FakeLLMServer

from ._files import scenario, write_suite

runner = CliRunner()

AGENT = """\
name: steady
prompt: Help the caller.
callable: tests.engine.script_agent:script_agent
"""

# Fault scripts for the fake server, each with the cause the one line must name.
FAULTS: dict[str, tuple[Callable[[FakeLLMServer], None], str]] = {
    "401": (lambda s: setattr(s.behaviour, "fault_for", lambda n: "401"), "401"),
    "timeout": (lambda s: (setattr(s.behaviour, "fault_for", lambda n: "slow"),
                           setattr(s.behaviour, "slow_seconds", 3.0)), "timed out after 1 s"),
    "runaway": (lambda s: setattr(s.behaviour, "runaway_tokens", 20_000), "cap"),
}


@pytest.fixture
def files(tmp_path: Path, polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_TIMEOUT", "1")
    monkeypatch.setenv("POLYGON_MODEL_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    return write_suite(tmp_path, scenario(), AGENT)


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_judge_makes_run_and_rescore_exit_1_with_one_line(
        files: tuple[Path, Path], fault: str) -> None:
    from polygon import usecases

    suite, agent = files
    script, cause = FAULTS[fault]
    with FakeLLMServer() as server:
        script(server)
        judge = f"openai:qwen@{server.openai_url}"
        result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1",
                                     "--judge-model", judge, "--json"])
        assert result.exit_code == 1, result.output
        line = _one_line(result.stderr)
        assert line.startswith(f"error: judge {judge} failed on 1 of 1 conversations: "), line
        assert cause in line, line
        (summary,) = json.loads(result.stdout)["runs"]
        assert (summary["judge_errors"], summary["mean_composite"], summary["verdicts"]) == (
            1, None, {"pass": 0, "warn": 0, "fail": 0})
        run_id = summary["run_id"]
        (stored,) = usecases.open_stores().repo.judgments(run_id)
        assert (stored.status, stored.verdict, stored.composite) == ("judge_error", None, None)
        assert cause in (stored.reason or "")

        again = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--judge", judge, "--json"])
        assert again.exit_code == 1, again.output
        assert _one_line(again.stderr).startswith(f"error: judge {judge} failed on 1 of 1 conversations: ")
        out = json.loads(again.stdout)
        assert (out["added"], out["failed"], out["exit_code"]) == (0, [stored.conversation_id], 1)
        assert cause in out["judge_errors"][stored.conversation_id]


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_a_judge_error_is_retried_by_the_next_rescore_and_then_clears(files: tuple[Path, Path]) -> None:
    suite, agent = files
    with FakeLLMServer() as server:
        server.behaviour.fault_for = lambda n: "401"
        judge = f"openai:qwen@{server.openai_url}"
        first = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1",
                                    "--judge-model", judge, "--json"])
        assert first.exit_code == 1
        run_id = json.loads(first.stdout)["runs"][0]["run_id"]
        server.behaviour.fault_for = lambda n: None
        fixed = runner.invoke(app, ["rescore", run_id, "--rubric", "v1", "--judge", judge, "--json"])
    assert fixed.exit_code == 0, fixed.output
    out = json.loads(fixed.stdout)
    assert (out["added"], out["failed"], out["skipped"]) == (1, [], [])
    assert out["mean_composite"] is not None


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_grade_calls_and_probe_exit_1_when_their_model_fails(files: tuple[Path, Path], tmp_path: Path) -> None:
    from polygon_core.imports import sample_path

    suite, agent = files
    with FakeLLMServer() as server:
        server.behaviour.fault_for = lambda n: "401"
        model = f"openai:qwen@{server.openai_url}"
        graded = runner.invoke(app, ["grade-calls", str(sample_path("polygon").parent / "polygon.jsonl"),
                                     "--format", "polygon", "--judge-model", model, "--json"])
        assert graded.exit_code == 1, graded.output
        line = _one_line(graded.stderr)
        assert line.startswith(f"error: judge {model} failed on 2 of 2 conversations: 401"), line
        ran = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1", "--json"])
        assert ran.exit_code == 0, ran.output
        run_id = json.loads(ran.stdout)["runs"][0]["run_id"]
        probed = runner.invoke(app, ["probe", run_id, "--model", model])
    assert probed.exit_code == 1, probed.output
    assert _one_line(probed.stderr).startswith(f"error: probe answerer {model} failed on 1 of 1 conversations: 401")
