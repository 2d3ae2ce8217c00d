"""Stores and cached loading shared by every pipeline step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..._hashing import canonical_json
from ...files import Suite, agent_version, load_agent, load_suite
from ...models import (
    AgentConfig,
    Conversation,
    Scenario,
)
from ..artifacts import ArtifactStore, artifact_store_from_url
from ..settings import PolygonSettings, load_settings
from ..storage import Repository, ensure_database


@dataclass(frozen=True)
class Stores:
    """The database and artifact store a step works against."""

    repo: Repository
    artifacts: ArtifactStore
    settings: PolygonSettings


def open_stores(settings: PolygonSettings | None = None) -> Stores:
    """Open (and, for an empty SQLite database, create) the configured stores."""
    settings = settings or load_settings()
    url = settings.resolved_database_url()
    repo = ensure_database(url)
    artifacts = artifact_store_from_url(settings.resolved_artifacts_url(),
                                        endpoint_url=settings.s3_endpoint_url)
    return Stores(repo=repo, artifacts=artifacts, settings=settings)


@lru_cache(maxsize=32)
def _suite(path: str) -> Suite:
    return load_suite(Path(path))


@lru_cache(maxsize=32)
def _agent(path: str) -> tuple[AgentConfig, str]:
    loaded = load_agent(Path(path))
    return loaded.config, loaded.prompt_text


def agent_identity(agent_path: str, suite_path: str) -> tuple[AgentConfig, str, str]:
    """The agent's config, prompt text and version (content hash)."""
    config, prompt = _agent(agent_path)
    suite = _suite(suite_path)
    exposed = config.tools or sorted({t for s in suite.scenarios for t in s.tools})
    tools = {n: suite.tools[n] for n in exposed if n in suite.tools}
    return config, prompt, agent_version(config, prompt, tools)


def transcript_key(run_id: str, conversation_id: str) -> str:
    """Where a conversation's full transcript lives in the artifact store."""
    return f"runs/{run_id}/conversations/{conversation_id}.json"


def plan_conversations(suite_path: str, seeds: Sequence[int] | None) -> list[tuple[str, int]]:
    """(scenario id, seed) pairs for a run, in a stable order."""
    suite = _suite(suite_path)
    use = list(seeds) if seeds is not None else list(suite.config.seeds)
    return [(s.id, seed) for s in suite.scenarios for seed in use]


def _scenario(suite: Suite, scenario_id: str) -> Scenario:
    return next(s for s in suite.scenarios if s.id == scenario_id)


def load_conversation(stores: Stores, run_id: str, conversation_id: str) -> Conversation:
    """A stored conversation's full transcript."""
    text = stores.artifacts.get_text(transcript_key(run_id, conversation_id))
    return Conversation.model_validate_json(text)


def fingerprint(value: Any) -> str:
    """Canonical JSON, for byte comparisons in tests and replays."""
    return canonical_json(value)
