"""`polygon run` with per-role models on local servers, through the evaluate_suite flow (Prefect)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polygon.cli import app
from tests.fakes.llm_server import FakeLLMServer

from .conftest import FAKE_KEY, SUITE, model_agent

pytestmark = [pytest.mark.prefect, pytest.mark.usefixtures("prefect_harness")]
runner = CliRunner()


@pytest.fixture
def fast_env(polygon_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in {"POLYGON_MODEL_TIMEOUT": "0.5", "POLYGON_MODEL_RETRY_BASE_DELAY": "0.005",
                       "POLYGON_MODEL_MAX_ATTEMPTS": "3", "OPENAI_API_KEY": FAKE_KEY,
                       "POLYGON_CONCURRENCY": "4"}.items():
        monkeypatch.setenv(key, value)
    return polygon_home


def test_roles_from_command_line_usage_and_cost_in_summary(fast_env: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        name = f"openai:gpt-4o-mini@{srv.openai_url}"
        agent = model_agent(tmp_path, "openai:not-used")
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--seeds", "1", "--json",
                                     "--agent-model", name, "--caller-model", name, "--judge-model", name,
                                     "--probe-model", name])
    assert result.exit_code == 0, result.output
    (out,) = json.loads(result.stdout)["runs"]
    assert out["models"] == {"agent": name, "caller": name, "judge": name, "probe": name}
    assert out["conversations"] == 6 and out["provider_errors"] == 0
    assert sorted(out["usage"]) == ["agent", "caller", "judge", "probe"]
    assert all(r["calls"] > 0 and r["cost_usd"] > 0 and r["input_tokens"] > 0 for r in out["usage"].values())
    assert out["usage"]["judge"]["calls"] == 6
    assert out["cost_estimated"] is True and out["prices_read_on"] == "2025-08-15"
    assert out["cost_usd"] == pytest.approx(sum(r["cost_usd"] for r in out["usage"].values()), abs=1e-5)


def test_suite_config_picks_roles_and_failing_server_exits_non_zero(fast_env: Path, tmp_path: Path) -> None:
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    with FakeLLMServer() as srv:
        srv.behaviour.fault_for = lambda n: "500"
        name = f"openai:gpt-4o-mini@{srv.openai_url}"
        with (suite / "suite.yaml").open("a", encoding="utf-8") as fh:
            fh.write(f'judge_model: "{name}"\n')
        agent = model_agent(tmp_path, name)
        result = runner.invoke(app, ["run", str(suite), "--agent", str(agent), "--seeds", "1", "--json"])
    assert result.exit_code == 1
    (out,) = json.loads(result.stdout)["runs"]
    assert out["models"]["judge"] == name and out["models"]["agent"] == name
    assert out["provider_errors"] == 6 and out["mean_composite"] is None
    assert out["verdicts"] == {"pass": 0, "warn": 0, "fail": 0}
    assert "6 of 6 conversations ended with provider_error" in result.stderr
    assert "gave up after 3 attempts: HTTP 500" in result.stderr
    assert FAKE_KEY not in result.output and FAKE_KEY not in result.stderr


def test_bad_model_name_is_a_user_error(fast_env: Path, tmp_path: Path) -> None:
    agent = model_agent(tmp_path, "offline")
    result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--judge-model", "gpt-4o"])
    assert result.exit_code == 2
    assert "expected 'offline', 'openai:<model>'" in result.stderr


def test_run_with_batch_judging_falls_back_live_for_failed_items(fast_env: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Judge on an OpenAI batch, probes on an Anthropic batch; one failed batch item is judged live."""
    from polygon_core.demo import demo_dir

    monkeypatch.setenv("POLYGON_BATCH_POLL_SECONDS", "0.01")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    with FakeLLMServer() as srv:
        srv.behaviour.batch_polls = 2
        srv.behaviour.batch_item_fault = {"j0000003": "error"}.get
        judge = f"openai:gpt-4o-mini@{srv.openai_url}"
        probe = f"anthropic:claude-3-5-haiku-latest@{srv.anthropic_url}"
        result = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--seeds", "1", "--json",
                                     "--judge-model", judge, "--probe-model", probe, "--batch-judging"])
        live_calls = [b for b in srv.behaviour.seen if "messages" in b and "custom_id" not in b]
        batches = list(srv.batches.values())
    assert result.exit_code == 0, result.output
    (out,) = json.loads(result.stdout)["runs"]
    assert out["conversations"] == 6 and sum(out["verdicts"].values()) == 6
    assert [len(b["items"]) for b in batches] == [6, 6]  # the judge's batch, then the probes'
    judge_usage, probe_usage = out["usage"]["judge"], out["usage"]["probe"]
    # Five judged by the batch, the failed one live; every probe answered by its batch.
    assert (judge_usage["calls"], judge_usage["batch_calls"], judge_usage["failures"]) == (6, 5, 1)
    assert (probe_usage["calls"], probe_usage["batch_calls"]) == (6, 6)
    assert len(live_calls) == 1
    assert out["batch_savings_usd"] == pytest.approx(
        judge_usage["batch_savings_usd"] + probe_usage["batch_savings_usd"], abs=1e-6)
    # All probe tokens went by batch at half price: the cost and the saving are equal, and not zero.
    assert probe_usage["cost_usd"] == pytest.approx(probe_usage["batch_savings_usd"], abs=1e-6)
    assert probe_usage["cost_usd"] > 0


def test_rescore_by_batch_and_its_errors(fast_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polygon_core.demo import demo_dir

    monkeypatch.setenv("POLYGON_BATCH_POLL_SECONDS", "0.01")
    agent = demo_dir() / "agents" / "agent_v1.yaml"
    made = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--seeds", "1", "--json"])
    assert made.exit_code == 0, made.output
    run_id = json.loads(made.stdout)["runs"][0]["run_id"]
    offline = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--judge", "offline", "--batch"])
    assert offline.exit_code == 2
    assert "--batch needs a model with a batch API (openai:… or anthropic:…)" in offline.stderr
    nothing = runner.invoke(app, ["run", str(SUITE), "--agent", str(agent), "--seeds", "1", "--batch-judging"])
    assert nothing.exit_code == 2 and "batch judging needs a model judge or probe answerer" in nothing.stderr
    with FakeLLMServer() as srv:
        judge = f"openai:gpt-4o-mini@{srv.openai_url}"
        result = runner.invoke(app, ["rescore", run_id, "--rubric", "v2", "--judge", judge, "--batch", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["added"], out["judge"], out["rubric_version"], out["failed"]) == (6, judge, "v2", [])
    assert len(srv.batches) == 1
