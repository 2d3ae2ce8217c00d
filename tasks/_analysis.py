"""The prompt-analysis task the re-evaluation flow runs before simulating."""

from __future__ import annotations

from typing import Any

from prefect import task

from polygon import usecases


@task(name="analyze-prompt", retries=2, retry_delay_seconds=1,
      task_run_name="analyze-prompt {agent_path}")
def analyze_prompt_task(agent_path: str, max_tier: int = 4) -> dict[str, Any]:
    """Analyse the agent's prompt with tiers 1..`max_tier` (the judge tier only when
    `POLYGON_JUDGE_MODEL` names a real model) and store the analysis under its prompt hash
    (`analyses/<prompt_hash>.json`); return the `--json` shape.

    Idempotent: the same prompt gives the same analysis under the same key, so a retry rewrites
    identical text.
    """
    return usecases.analyze_agent(agent_path, max_tier).to_json()
