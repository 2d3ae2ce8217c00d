"""Tasks of the regenerate_personas flow: each wraps one persona use case with its retry policy."""

from __future__ import annotations

from prefect import task

from polygon import usecases
from polygon_core.personas import GenerationResult


@task(name="mark-stale-personas", retries=2, retry_delay_seconds=1)
def mark_stale_personas_task(agent_path: str) -> list[str]:
    """Mark the agent's personas from an older prompt stale; returns their ids."""
    return [r.id for r in usecases.mark_stale_personas(agent_path)]


# Generation itself retries per persona request inside (a failed persona is recorded, not raised),
# so the task retries only for failures around it (reading the agent file, opening the model).
@task(name="generate-personas", retries=1, retry_delay_seconds=2,
      task_run_name="generate personas for {agent_path}")
def generate_personas_task(agent_path: str, count: int = 12, seed: int = 0,
                           model: str = "offline") -> GenerationResult:
    """Generate personas from the agent's prompt."""
    return usecases.generate_for_agent(agent_path, count=count, seed=seed, model=model)


@task(name="store-personas", retries=2, retry_delay_seconds=1)
def store_personas_task(agent_path: str, result: GenerationResult) -> usecases.GenerationReport:
    """Store a generation under the agent's current prompt hash."""
    return usecases.store_generation(agent_path, result)
