"""The ways a prompt commit reaches Prefect (CLI, git hook), `polygon serve`, and the deployments'
declarations, without a Prefect server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from polygon.cli import app
from polygon_core._hashing import content_hash
from polygon_core.models import Run
from tests.conftest import REPO

runner = CliRunner()
AGENTS = REPO / "polygon_core" / "demo" / "agents"


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    import prefect.events
    from prefect.events.worker import EventsWorker

    captured: list[dict[str, Any]] = []

    def fake_emit(**kwargs: Any) -> SimpleNamespace:
        captured.append(kwargs)
        return SimpleNamespace(id="e-1", event=kwargs["event"], payload=kwargs["payload"])

    monkeypatch.setattr(prefect.events, "emit_event", fake_emit)
    monkeypatch.setattr(EventsWorker, "drain_all", classmethod(lambda cls, *a, **k: None))
    return captured


def test_prompt_commit_cli_emits_the_event(emitted: list[dict[str, Any]]) -> None:
    result = runner.invoke(app, ["prompt", "commit", str(AGENTS / "prompt_v2.txt"), "--agent",
                                 str(AGENTS / "agent_v2.yaml"), "--commit", "abc1234", "--json"])
    assert result.exit_code == 0, result.output
    prompt_hash = content_hash((AGENTS / "prompt_v2.txt").read_text())
    payload = {"agent_path": "polygon_core/demo/agents/agent_v2.yaml", "prompt_hash": prompt_hash,
               "suite_path": None, "prompt_path": "polygon_core/demo/agents/prompt_v2.txt",
               "commit": "abc1234", "previous_run_id": None, "source": "cli"}
    assert emitted == [{"event": "polygon.prompt.committed",
                        "resource": {"prefect.resource.id": "polygon.agent.polygon_core/demo/agents/agent_v2.yaml",
                                     "prefect.resource.name": "polygon_core/demo/agents/agent_v2.yaml"},
                        "payload": payload}]
    assert json.loads(result.stdout) == {"event_id": "e-1", "event": "polygon.prompt.committed",
                                         "payload": payload}


def test_prompt_commit_cli_user_errors(emitted: list[dict[str, Any]]) -> None:
    no_agent = runner.invoke(app, ["prompt", "commit", str(AGENTS / "prompt_v2.txt")])
    assert no_agent.exit_code == 2
    assert "pass the agent that uses this prompt with --agent" in no_agent.stderr
    wrong = runner.invoke(app, ["prompt", "commit", str(AGENTS / "prompt_v1.txt"),
                                "--agent", str(AGENTS / "agent_v2.yaml")])
    assert wrong.exit_code == 2 and "uses the prompt" in wrong.stderr
    assert emitted == []


def test_prompt_commit_of_an_agent_that_does_not_validate_names_its_error(
        emitted: list[dict[str, Any]], tmp_path: Path) -> None:
    # Issue 32 item 8: it said "is not an agent config: pass the agent ... with --agent" (and emitted
    # the event for `callable: this:s`, whose re-evaluation then failed on a worker).
    (tmp_path / "prompt.txt").write_text("Be kind.\n", encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text('name: z\nprompt_file: prompt.txt\ncallable: "this:s"\n', encoding="utf-8")
    result = runner.invoke(app, ["prompt", "commit", str(agent)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.strip() == (f"error: {agent}:3: callable: callable 'this:s' is neither a class nor a "
                                     "function: module 'this' defines 's' as a str")
    assert emitted == []


def test_post_commit_hook_calls_polygon_for_changed_prompts(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "prompts").mkdir(parents=True)
    record = tmp_path / "calls.txt"
    fake = tmp_path / "fake-polygon"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {record}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                              text=True, env=env).stdout.strip()

    git("init", "-q")
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_bytes((REPO / "deployments" / "hooks" / "post-commit").read_bytes())
    hook.chmod(0o755)
    git("config", "polygon.bin", str(fake))
    git("config", "polygon.prompts", "prompts/*.md=agents/support.yaml")
    git("config", "polygon.suite", "suites/support")
    (repo / "prompts" / "support.md").write_text("Be kind.\n")
    (repo / "README.md").write_text("x\n")
    git("add", ".")
    git("commit", "-q", "-m", "prompt")
    sha = git("rev-parse", "HEAD")
    (repo / "README.md").write_text("y\n")
    git("commit", "-q", "-am", "docs only")
    assert record.read_text().splitlines() == [
        (f"prompt commit prompts/support.md --agent agents/support.yaml --commit {sha} "
         "--source git-hook --suite suites/support")]


def test_serve_binds_loopback_without_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []

    def run(server: uvicorn.Server) -> None:  # record what would be served instead of serving
        calls.append({"host": server.config.host, "port": server.config.port,
                      "log_level": server.config.log_level})

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.delenv("POLYGON_API_TOKENS", raising=False)
    monkeypatch.setenv("POLYGON_WEBHOOK_SECRET", "s")
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert calls == [{"host": "127.0.0.1", "port": 8123, "log_level": "info"}]
    assert "no access token is configured: binding to 127.0.0.1 only, not 0.0.0.0" in result.stderr


def _run(rid: str, version: str, *, status: str = "complete", agent: str = "a", suite: str = "s",
         rubric: str = "v1") -> Run:
    return Run(id=rid, suite=suite, agent_name=agent, agent_version=version, rubric_version=rubric,
               seeds=[0], status=status)  # type: ignore[arg-type]


def test_previous_version_run_is_the_latest_complete_run_of_another_version() -> None:
    from polygon.usecases import previous_version_of

    new = _run("new", "v-new", status="running")
    newest_first = [new, _run("same-version", "v-new"), _run("running", "v-old", status="running"),
                    _run("other-agent", "v-old", agent="b"), _run("other-suite", "v-old", suite="t"),
                    _run("other-rubric", "v-old", rubric="v2"), _run("old-2", "v-old"), _run("old-1", "v-old")]
    found = previous_version_of(newest_first, new)
    assert found is not None and found.id == "old-2"
    assert previous_version_of(newest_first[:6], new) is None


def test_declared_deployments_and_prefect_yaml_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("polygon_deploy", REPO / "deployments" / "deploy.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "polygon_deploy", module)  # dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    declared = {d.name: d for d in module.declared(str(REPO), suite_path="polygon_core/demo/suite",
                                                   production_source="s3://polygon-calls/exports")}
    doc = yaml.safe_load((REPO / "deployments" / "prefect.yaml").read_text())
    in_yaml = {d["name"]: d for d in doc["deployments"]}
    assert sorted(declared) == sorted(in_yaml) == ["import-calls", "pull-calls", "reevaluate-on-prompt-commit",
                                                   "sweep", "weekly-production-grading"]
    for name, d in declared.items():
        assert in_yaml[name]["entrypoint"] == d.entrypoint
        triggers = in_yaml[name].get("triggers", [])
        assert [t["parameters"] for t in triggers] == [t.parameters for t in d.triggers]
        assert [sorted(t["expect"]) for t in triggers] == [sorted(t.expect) for t in d.triggers]
    assert declared["weekly-production-grading"].cron == "0 6 * * 1"
    arrived = in_yaml["import-calls"]["triggers"][0]
    (trigger,) = declared["import-calls"].triggers
    assert (arrived["within"], arrived["threshold"], arrived["for_each"]) == (
        trigger.within.total_seconds(), trigger.threshold, sorted(trigger.for_each))
    assert in_yaml["import-calls"]["parameters"] == declared["import-calls"].parameters == {"settle_seconds": 60}
    assert in_yaml["pull-calls"]["schedules"][0]["cron"] == declared["pull-calls"].cron == "*/15 * * * *"
    assert in_yaml["weekly-production-grading"]["schedules"][0]["cron"] == "0 6 * * 1"
    assert "weekly-production-grading" not in {d.name for d in module.declared(str(REPO), suite_path="x")}


def test_weekly_grading_is_declared_where_its_entrypoint_file_is(tmp_path: Path) -> None:
    from polygon.deployments import declared

    def names(*files: str) -> list[str]:
        checkout = tmp_path / "-".join(f.rsplit("/", 1)[-1] for f in files)
        for f in files:
            (checkout / f).parent.mkdir(parents=True, exist_ok=True)
            (checkout / f).write_text("", encoding="utf-8")
        return [d.name for d in declared(str(checkout), suite_path="s", production_source="calls/")]

    # The deployment's entrypoint is flows/_weekly.py: that is the file a checkout must have.
    assert names("flows/_weekly.py") == ["reevaluate-on-prompt-commit", "weekly-production-grading"]
    assert names("flows/_production.py") == ["reevaluate-on-prompt-commit"]
