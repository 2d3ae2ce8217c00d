"""Fixtures: fake model servers on loopback and a fast in-process pipeline driver (no Prefect)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from polygon import usecases
from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.demo import demo_dir
from polygon_core.models import Run
from tests.fakes.llm_server import FakeLLMServer

SUITE = demo_dir() / "suite"
FAKE_KEY = "sk-polygon-test-SECRET-0123456789abcdef"
SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
          "required": ["score"]}


def served_model(server: FakeLLMServer, provider: str) -> str:
    """A priced model name of `provider` served by the fake server."""
    return (f"openai:gpt-4o-mini@{server.openai_url}" if provider == "openai"
            else f"anthropic:claude-3-5-haiku-latest@{server.anthropic_url}")


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def fast_settings(home: Path, **overrides: Any) -> PolygonSettings:
    """Short backoff so fault tests take milliseconds, and a timeout that a loaded machine still meets
    (the timeout bounds a whole reply; tests of timeouts set their own)."""
    values: dict[str, Any] = {"home": home, "model_timeout": 2.0, "model_retry_base_delay": 0.005,
                              "model_max_attempts": 6, "model_retry_seconds": 10.0,
                              "openai_api_key": FAKE_KEY, "anthropic_api_key": FAKE_KEY}
    values.update(overrides)
    return load_settings(**values)


def model_agent(tmp_path: Path, model: str, name: str = "model-agent") -> Path:
    """A model-backed agent config file."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nprompt: You are Northwind Telecom's billing line. Be brief.\n"
                    f"model: \"{model}\"\nsampling: {{temperature: 0.2, seed: 7}}\n", encoding="utf-8")
    return path


def run_pipeline(settings: PolygonSettings, agent_path: Path, models: dict[str, str], *,
                 seeds: list[int], run_id: str) -> tuple[usecases.Stores, Run]:
    """Simulate, judge, probe and finish one run by calling the pipeline steps directly."""
    stores = usecases.open_stores(settings)
    suite, agent = str(SUITE), str(agent_path)
    config, _prompt, version = usecases.agent_identity(agent, suite)
    roles = {"agent": models.get("agent", config.model), "caller": models.get("caller", "offline"),
             "judge": models.get("judge", "offline-heuristic"), "probe": models.get("probe", "offline-heuristic")}
    run = Run(id=run_id, suite="northwind-demo", agent_name=config.name, agent_version=version,
              rubric_version="v1", seeds=seeds, models=roles,
              created_at=datetime.now(UTC).isoformat())
    usecases.create_run(stores, run)
    for sid, seed in usecases.plan_conversations(suite, seeds):
        cid = usecases.simulate(stores, run.id, suite, agent, sid, seed)
        usecases.judge(stores, run.id, cid, suite_path=suite, agent_path=agent, rubric_version="v1")
        usecases.probe(stores, run.id, cid, suite_path=suite, agent_path=agent)
    usecases.finish_run(stores, run.id)
    return stores, run
