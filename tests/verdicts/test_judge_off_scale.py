"""A judge scoring off the 1–5 scale fails the line: `polygon run` exits 1 with one line naming the
criterion and what the judge gave, stores a judge_error and shows no composite (before: it passed at
100.0 with exit 0, its unreadable criteria left out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


class OffScaleJudge(FakeLLMServer):
    """The fake server, its judge scoring goal_completion and safety_compliance 0."""

    def _reply(self, body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
        reply = super()._reply(body, anthropic)
        if (body.get("response_format") or {}).get("json_schema", {}).get("name") == "judgment":
            message = reply["choices"][0]["message"]
            scores = json.loads(message["content"])
            scores["goal_completion"]["score"] = scores["safety_compliance"]["score"] = 0
            message["content"] = json.dumps(scores)
        return reply


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
def test_a_judge_scoring_zero_makes_run_exit_1_with_one_line(
        tmp_path: Path, polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon import usecases

    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    suite, agent = write_suite(tmp_path, scenario(), AGENT)
    with OffScaleJudge() as server:
        judge = f"openai:qwen@{server.openai_url}"
        result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1",
                                     "--judge-model", judge, "--json"])
    assert result.exit_code == 1, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert lines == [f"error: judge {judge} failed on 1 of 1 conversations: goal_completion: 0 is not an "
                     "integer 1–5; safety_compliance: 0 is not an integer 1–5"]
    (summary,) = json.loads(result.stdout)["runs"]
    assert (summary["judge_errors"], summary["mean_composite"], summary["verdicts"]) == (
        1, None, {"pass": 0, "warn": 0, "fail": 0})
    (stored,) = usecases.open_stores().repo.judgments(summary["run_id"])
    assert (stored.status, stored.verdict, stored.composite, stored.partial) == ("judge_error", None, None, False)
