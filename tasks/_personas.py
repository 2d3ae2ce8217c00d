"""Tasks of the regenerate_personas flow: each wraps one persona call with its retry policy."""

from __future__ import annotations

from prefect import task

from polygon_core.adapters.artifacts import artifact_store_from_url
from polygon_core.adapters.persona_generation import (
    GenerationReport,
    agent_prompt,
    generate_for_agent,
    store_generation,
)
from polygon_core.adapters.persona_store import PersonaStore
from polygon_core.adapters.settings import load_settings
from polygon_core.personas import GenerationResult


def _store() -> PersonaStore:
    # Settings are read here, at the edge, in whichever process (or worker) runs the task.
    settings = load_settings()
    return PersonaStore(artifact_store_from_url(settings.resolved_artifacts_url(),
                                                endpoint_url=settings.s3_endpoint_url))


@task(name="mark-stale-personas", retries=2, retry_delay_seconds=1)
def mark_stale_personas_task(agent_path: str) -> list[str]:
    """Mark the agent's personas from an older prompt stale; returns their ids."""
    name, _prompt, current = agent_prompt(agent_path)
    return [r.id for r in _store().mark_stale(name, current)]


# Generation itself retries per persona request inside (a failed persona is recorded, not raised),
# so the task retries only for failures around it (reading the agent file, opening the model).
@task(name="generate-personas", retries=1, retry_delay_seconds=2,
      task_run_name="generate personas for {agent_path}")
def generate_personas_task(agent_path: str, count: int = 12, seed: int = 0,
                           model: str = "offline") -> GenerationResult:
    """Generate personas from the agent's prompt."""
    return generate_for_agent(agent_path, count=count, seed=seed, model=model)


@task(name="store-personas", retries=2, retry_delay_seconds=1)
def store_personas_task(agent_path: str, result: GenerationResult) -> GenerationReport:
    """Store a generation under the agent's current prompt hash."""
    name, _prompt, current = agent_prompt(agent_path)
    return store_generation(_store(), name, current, result)
