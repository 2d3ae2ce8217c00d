"""Prompt analysis of a stored run's agent (the run's manifest names the agent file)."""

from __future__ import annotations

from pathlib import Path

from polygon_core.adapters.analysis_store import StoredAnalysis, agent_prompt, analyze_and_store, load_analysis
from polygon_core.files import prompt_hash

from ._common import Stores
from ._runs import run_manifest

__all__ = ["analysis_for_run"]


def analysis_for_run(stores: Stores, run_id: str, *, analyse_if_missing: bool = True) -> StoredAnalysis | None:
    """The prompt analysis of a run's agent (from its manifest), analysed offline when missing."""
    agent_path = run_manifest(stores, run_id).get("agent_path")
    if not agent_path or not Path(agent_path).is_file():
        return None
    text, language = agent_prompt(agent_path)
    if not text.strip():
        return None
    found = load_analysis(stores.artifacts, prompt_hash(text))
    if found is None and analyse_if_missing:
        analyze_and_store(stores.artifacts, text, language=language, max_tier=3)
        found = load_analysis(stores.artifacts, prompt_hash(text))
    return found
