"""`polygon run`, `rescore` and `probe` against a local server that cuts replies or has no Batch API:
exit 1 with one line, no traceback, and the run ended (never left `running`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon import usecases
from polygon.cli import app
from tests.fakes.llm_server import FakeLLMServer

from .conftest import FAKE_KEY, SUITE, model_agent

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()


@pytest.fixture
def fast_env(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in {"POLYGON_MODEL_TIMEOUT": "2", "POLYGON_MODEL_RETRY_BASE_DELAY": "0.005",
                       "POLYGON_MODEL_MAX_ATTEMPTS": "2", "OPENAI_API_KEY": FAKE_KEY,
                       "POLYGON_CONCURRENCY": "4", "POLYGON_BATCH_POLL_SECONDS": "0.01"}.items():
        monkeypatch.setenv(key, value)
    return polygon_home


def _errors(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_an_agent_whose_replies_are_always_cut_is_a_provider_error(fast_env: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.behaviour.fault_for = lambda n: "cut"
        name = f"openai:gpt-4o-mini@{srv.openai_url}"
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(model_agent(tmp_path, name)), "--seeds", "1",
                                     "--run-id", "cut"])
    assert result.exit_code == 1
    assert _errors(result.stderr) == [
        f"error: 6 of 6 conversations ended with provider_error (not scored); first: {name}: gave up after 2 "
        "attempts: the stream ended before the reply was complete (no [DONE])"]


NO_BATCH = ("the server has no Batch API at {url} (HTTP 404 on /files): judge without batches (`polygon run` "
            "without --batch-judging, `rescore` or `probe` without --batch)")


def test_batch_judging_on_a_server_without_the_batch_api(fast_env: Path, tmp_path: Path) -> None:
    from polygon_core.demo import demo_dir

    agent = demo_dir() / "agents" / "agent_v1.yaml"
    with FakeLLMServer() as srv:
        srv.behaviour.batch_api = False  # 404 on /files and /batches, as llama.cpp answers
        judge = f"openai:gpt-4o-mini@{srv.openai_url}"
        reason = NO_BATCH.format(url=srv.openai_url)
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--seeds", "1", "--run-id", "b-run",
                                     "--judge-model", judge, "--batch-judging"])
        assert result.exit_code == 1, result.output
        assert _errors(result.stderr) == [f"error: judge {judge} failed on 6 of 6 conversations: {reason}"]
        stores = usecases.open_stores()
        run = stores.repo.get_run("b-run", exact=True)
        assert run is not None and run.status == "complete"  # ended, never left `running`
        assert [(j.status, j.reason) for j in stores.repo.judgments("b-run", "v1")] == [("judge_error", reason)] * 6
        assert not srv.batches and all("custom_id" not in b for b in srv.behaviour.seen)  # nothing live either
        again = runner.invoke(app, ["rescore", "b-run", "--rubric", "v1", "--judge", judge, "--batch"])
        assert again.exit_code == 1
        assert _errors(again.stderr) == [f"error: judge {judge} failed on 6 of 6 conversations: {reason}"]
        probed = runner.invoke(app, ["probe", "b-run", "--model", judge, "--batch"])
        assert probed.exit_code == 1
        assert _errors(probed.stderr) == [f"error: probe answerer {judge} failed on 6 of 6 conversations: {reason}"]
        live = runner.invoke(app, ["rescore", "b-run", "--rubric", "v1", "--judge", judge, "--json"])
    assert live.exit_code == 0, live.output  # a live rescore retries the judge errors
    out = json.loads(live.stdout)
    assert (out["added"], out["judge_errors"], out["verdicts"]["pass"] + out["verdicts"]["warn"]
            + out["verdicts"]["fail"]) == (6, {}, 6)
