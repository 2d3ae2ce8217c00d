"""Prompt analyses in the artifact store, keyed by the prompt version (its content hash).

The stored JSON is the analysis plus the prompt text it was made from, so a later version can be
compared with it (`compare_analyses`) and its highlights shown without the old prompt file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from ..analysis import PromptAnalysis, analyze_prompt, analyze_prompt_with
from ..files import load_agent
from ..providers import ChatModel
from .artifacts import ArtifactNotFoundError, ArtifactStore
from .settings import PolygonSettings

__all__ = ["StoredAnalysis", "agent_prompt", "analysis_key", "analyze_and_store", "judge_model_for",
           "load_analysis", "store_analysis"]


class StoredAnalysis(PromptAnalysis):
    """An analysis as stored: with the prompt text its spans refer to."""

    prompt: str


def analysis_key(prompt_hash: str) -> str:
    """The artifact key of the analysis of one prompt version: `analyses/<prompt_hash>.json`."""
    if not prompt_hash or not prompt_hash.isalnum():
        raise ValueError(f"invalid prompt hash {prompt_hash!r}")
    return f"analyses/{prompt_hash}.json"


def store_analysis(store: ArtifactStore, analysis: PromptAnalysis, prompt: str) -> str:
    """Write the analysis (with its prompt text) under its prompt hash; return the artifact URI.

    Storing the same version again replaces it: one analysis per prompt version and tier set is
    deterministic, so the newest write is as good as the first.
    """
    stored = StoredAnalysis(**analysis.model_dump(), prompt=prompt)
    text = json.dumps(stored.model_dump(mode="json"), ensure_ascii=False, indent=2, sort_keys=True)
    return store.put_text(analysis_key(analysis.prompt_hash), text)


def load_analysis(store: ArtifactStore, prompt_hash: str) -> StoredAnalysis | None:
    """The stored analysis of a prompt version, or None when there is none."""
    try:
        text = store.get_text(analysis_key(prompt_hash))
    except ArtifactNotFoundError:
        return None
    return StoredAnalysis.model_validate_json(text)


def agent_prompt(agent_path: str | Path) -> tuple[str, str | None]:
    """An agent config's prompt text, and its language when the config sets one explicitly."""
    loaded = load_agent(Path(agent_path))
    language = loaded.config.language if "language" in loaded.config.model_fields_set else None
    return loaded.prompt_text, language


def analyze_and_store(store: ArtifactStore | None, text: str, *, language: str | None = None,
                      max_tier: int = 4, judge_model: ChatModel | None = None) -> PromptAnalysis:
    """Analyse `text` (with `judge_model` as the judge tier when given) and store the analysis
    under its prompt hash when `store` is given."""
    if judge_model is not None and max_tier >= 4:
        from .providers import aclose_all

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


def judge_model_for(settings: PolygonSettings, max_tier: int) -> ChatModel | None:
    """The judge tier's model: only when tier 4 is asked for and `POLYGON_JUDGE_MODEL` names a real
    model. A bad name or a missing key raises ValueError (ProviderConfigError, ModelNameError)."""
    if max_tier < 4 or settings.judge_model in ("offline", "offline-heuristic"):
        return None
    from .providers import make_chat_model

    return make_chat_model(settings.judge_model, settings)

