"""The prompt-analysis task the re-evaluation flow runs before simulating."""

from __future__ import annotations

from typing import Any

from prefect import task

from polygon_core.adapters.analysis_store import (
    agent_prompt,
    analyze_and_store,
    judge_model_for,
)
from polygon_core.adapters.artifacts import artifact_store_from_url
from polygon_core.adapters.settings import load_settings


@task(name="analyze-prompt", retries=2, retry_delay_seconds=1,
      task_run_name="analyze-prompt {agent_path}")
def analyze_prompt_task(agent_path: str, max_tier: int = 4) -> dict[str, Any]:
    """Analyse the agent's prompt with tiers 1..`max_tier` (the judge tier only when
    `POLYGON_JUDGE_MODEL` names a real model) and store the analysis under its prompt hash
    (`analyses/<prompt_hash>.json`); return the `--json` shape.

    Idempotent: the same prompt gives the same analysis under the same key, so a retry rewrites
    identical text.
    """
    # Settings are read here, at the edge, in whichever process (or worker) runs the task.
    settings = load_settings()
    store = artifact_store_from_url(settings.resolved_artifacts_url(), endpoint_url=settings.s3_endpoint_url)
    text, language = agent_prompt(agent_path)
    analysis = analyze_and_store(store, text, language=language, max_tier=max_tier,
                                 judge_model=judge_model_for(settings, max_tier))
    return analysis.to_json()
