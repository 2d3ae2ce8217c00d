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
