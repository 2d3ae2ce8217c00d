"""Prompt analysis: analyse a prompt (offline tiers, and the judge tier when a judge model is set),
store it under its prompt hash, and read stored analyses (a run's agent's among them)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from polygon_core.adapters.analysis_store import StoredAnalysis, analysis_hashes, load_analysis, store_analysis
from polygon_core.adapters.artifacts import ArtifactStore
from polygon_core.adapters.settings import PolygonSettings, load_settings
from polygon_core.analysis import PromptAnalysis, analyze_prompt, analyze_prompt_with
from polygon_core.files import load_agent, prompt_hash

from ._common import Stores
from ._runs import run_manifest

if TYPE_CHECKING:
    from polygon_core.providers import ChatModel

__all__ = ["StoredAnalysis", "agent_prompt_text", "analysis_for_run", "analyze_agent", "analyze_and_store",
           "analyze_text", "stored_analyses", "stored_analysis"]


def agent_prompt_text(agent_path: str | Path) -> tuple[str, str | None]:
    """An agent config's prompt text, and its language when the config sets one explicitly."""
    loaded = load_agent(Path(agent_path))
    language = loaded.config.language if "language" in loaded.config.model_fields_set else None
    return loaded.prompt_text, language


def analyze_and_store(store: ArtifactStore | None, text: str, *, language: str | None = None,
                      max_tier: int = 4, judge_model: ChatModel | None = None) -> PromptAnalysis:
    """Analyse `text` (with `judge_model` as the judge tier when given) and store the analysis
    under its prompt hash when `store` is given."""
    if judge_model is not None and max_tier >= 4:
        from polygon_core.adapters.providers import aclose_all

        model = judge_model

        async def go() -> PromptAnalysis:
            try:
                return await analyze_prompt_with(model, text, language=language, max_tier=max_tier)
            finally:
                await aclose_all(model)  # its SDK clients belong to this loop

        analysis = asyncio.run(go())
    else:
        analysis = analyze_prompt(text, language=language, max_tier=max_tier,
                                  judge_skipped="no judge model configured (POLYGON_JUDGE_MODEL is offline)")
    if store is not None:
        store_analysis(store, analysis, text)
    return analysis


def _judge_model(settings: PolygonSettings, max_tier: int) -> ChatModel | None:
    """The judge tier's model: only when tier 4 is asked for and `POLYGON_JUDGE_MODEL` names a real
    model. A bad name or a missing key raises ValueError (ProviderConfigError, ModelNameError)."""
    if max_tier < 4 or settings.judge_model in ("offline", "offline-heuristic"):
        return None
    from polygon_core.adapters.providers import make_chat_model

    return make_chat_model(settings.judge_model, settings)


def analyze_text(text: str, *, language: str | None = None, max_tier: int = 4, store: bool = True,
                 settings: PolygonSettings | None = None) -> tuple[PromptAnalysis, str | None]:
    """Analyse a prompt with tiers 1..`max_tier` (the judge tier only when `POLYGON_JUDGE_MODEL`
    names a real model) and, with `store`, keep it in the artifact store under its prompt hash
    (`analyses/<prompt_hash>.json`; the same prompt gives the same analysis under the same key).
    Returns the analysis and where it is stored (None when not stored)."""
    # Settings are read here, at the edge, in whichever process (or worker) runs the call.
    settings = settings or load_settings()
    analysis = analyze_and_store(None, text, language=language, max_tier=max_tier,
                                 judge_model=_judge_model(settings, max_tier))
    if not store:
        return analysis, None
    from polygon_core.adapters.artifacts import artifact_store_from_url

    artifacts = artifact_store_from_url(settings.resolved_artifacts_url(), endpoint_url=settings.s3_endpoint_url)
    return analysis, store_analysis(artifacts, analysis, text)


def analyze_agent(agent_path: str, max_tier: int = 4) -> PromptAnalysis:
    """Analyse an agent file's prompt (in its language when the file sets one) and store it."""
    text, language = agent_prompt_text(agent_path)
    return analyze_text(text, language=language, max_tier=max_tier)[0]


def stored_analyses(stores: Stores) -> list[str]:
    """The prompt hashes of every stored analysis."""
    return analysis_hashes(stores.artifacts)


def stored_analysis(stores: Stores, prompt_hash: str) -> StoredAnalysis | None:
    """The stored analysis of a prompt version, or None; ValueError for a malformed hash."""
    return load_analysis(stores.artifacts, prompt_hash)


def analysis_for_run(stores: Stores, run_id: str, *, analyse_if_missing: bool = True) -> StoredAnalysis | None:
    """The prompt analysis of a run's agent (from its manifest), analysed offline when missing."""
    agent_path = run_manifest(stores, run_id).get("agent_path")
    if not agent_path or not Path(agent_path).is_file():
        return None
    text, language = agent_prompt_text(agent_path)
    if not text.strip():
        return None
    found = load_analysis(stores.artifacts, prompt_hash(text))
    if found is None and analyse_if_missing:
        analyze_and_store(stores.artifacts, text, language=language, max_tier=3)
        found = load_analysis(stores.artifacts, prompt_hash(text))
    return found
