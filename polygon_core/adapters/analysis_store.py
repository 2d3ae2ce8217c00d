"""Prompt analyses in the artifact store, keyed by the prompt version (its content hash).

The stored JSON is the analysis plus the prompt text it was made from, so a later version can be
compared with it (`compare_analyses`) and its highlights shown without the old prompt file.
"""

from __future__ import annotations

import json

from ..analysis import PromptAnalysis
from .artifacts import ArtifactNotFoundError, ArtifactStore

__all__ = ["StoredAnalysis", "analysis_hashes", "analysis_key", "load_analysis", "store_analysis"]

_PREFIX = "analyses/"


class StoredAnalysis(PromptAnalysis):
    """An analysis as stored: with the prompt text its spans refer to."""

    prompt: str


def analysis_key(prompt_hash: str) -> str:
    """The artifact key of the analysis of one prompt version: `analyses/<prompt_hash>.json`."""
    if not prompt_hash or not prompt_hash.isalnum():
        raise ValueError(f"invalid prompt hash {prompt_hash!r}")
    return f"{_PREFIX}{prompt_hash}.json"


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


def analysis_hashes(store: ArtifactStore) -> list[str]:
    """The prompt hashes of every stored analysis, in the store's key order."""
    return [k.removeprefix(_PREFIX).removesuffix(".json") for k in store.list(_PREFIX) if k.endswith(".json")]
