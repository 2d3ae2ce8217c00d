"""A judge reply from which no criterion of the rubric can be read stops the line: `{}`, the scores
under an unknown key, or a list make `polygon run` exit 1 with one line naming the reply's shape
and store a judge_error (before: every criterion "missing, counted as 1", composite 0.0, verdict
fail, exit 0). The well-known nestings `criteria` and `scores` are read."""

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


class ReshapingJudge(FakeLLMServer):
    """The fake server, its judge's (valid) scores reshaped by `reshape` before they are sent."""

    reshape: Any = staticmethod(lambda scores: scores)

    def _reply(self, body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
        reply = super()._reply(body, anthropic)
        if (body.get("response_format") or {}).get("json_schema", {}).get("name") == "judgment":
            message = reply["choices"][0]["message"]
            message["content"] = json.dumps(self.reshape(json.loads(message["content"])))
        return reply


def _run(tmp_path: Path, reshape: Any) -> tuple[Any, str]:
    suite, agent = write_suite(tmp_path, scenario(), AGENT)
    with ReshapingJudge() as server:
        server.reshape = reshape
        judge = f"openai:qwen@{server.openai_url}"
        result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1",
                                     "--judge-model", judge, "--json"])
    return result, judge


@pytest.fixture(autouse=True)
def _env(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-polygon-test-0000")
    monkeypatch.setenv("POLYGON_MODEL_CACHE", "off")
    monkeypatch.setenv("POLYGON_MODEL_MAX_ATTEMPTS", "1")


SHAPES = {
    "empty": (lambda scores: {}, "an empty object"),
    "unknown-key": (lambda scores: {"foo": scores}, "an object with keys ['foo']"),
    "nested-unknown": (lambda scores: {"criteria": {"result": scores}}, "an object with keys ['criteria']"),
    "list": (lambda scores: [scores], "reply is a list, not an object"),
}


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_reply_with_no_criterion_is_a_judge_error_and_run_exits_1(tmp_path: Path, shape: str) -> None:
    from polygon import usecases

    reshape, described = SHAPES[shape]
    result, judge = _run(tmp_path, reshape)
    assert result.exit_code == 1, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    cause = described if shape == "list" else f"no criterion of rubric v1 in the judge's reply: {described}"
    assert lines == [f"error: judge {judge} failed on 1 of 1 conversations: unreadable reply: {cause}"]
    (summary,) = json.loads(result.stdout)["runs"]
    assert (summary["judge_errors"], summary["mean_composite"], summary["verdicts"]) == (
        1, None, {"pass": 0, "warn": 0, "fail": 0})
    (stored,) = usecases.open_stores().repo.judgments(summary["run_id"])
    assert (stored.status, stored.verdict, stored.composite) == ("judge_error", None, None)
    assert stored.reason == f"unreadable reply: {cause}"


@pytest.mark.prefect
@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize("key", ["criteria", "scores"])
def test_scores_under_a_well_known_key_are_read(tmp_path: Path, key: str) -> None:
    plain, _ = _run(tmp_path / "plain", lambda scores: scores)
    nested, _ = _run(tmp_path / "nested", lambda scores: {key: scores})
    assert (plain.exit_code, nested.exit_code) == (0, 0), nested.output
    (before,), (after,) = json.loads(plain.stdout)["runs"], json.loads(nested.stdout)["runs"]
    assert after["judge_errors"] == 0
    assert after["mean_composite"] == before["mean_composite"]
    assert after["mean_composite"] is not None
