"""Stores (each with its own cache of loaded files, `FileCaches`) and the loading every pipeline step shares."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from polygon_core import canonical_json
from polygon_core.adapters.file_cache import FileCaches
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.stores import Stores, open_stores
from polygon_core.files import Suite, VersionPart, agent_folders, agent_import_path, agent_version, version_parts
from polygon_core.models import (
    STORED,
    AgentConfig,
    Conversation,
    Scenario,
)
from polygon_core.net import public_url

__all__ = ["FileCaches", "Stores", "agent_identity", "agent_label", "agent_parts", "call_audio_key", "call_timeline_key", "fingerprint",
           "load_conversation", "open_stores", "plan_conversations", "shared_stores", "transcript_key"]

_shared: dict[tuple[str, str, str | None], tuple[Any, Any, FileCaches]] = {}
_shared_lock = threading.Lock()
_settings_seen: dict[tuple[Any, ...], PolygonSettings] = {}


def _current_settings(load: Callable[[], PolygonSettings]) -> PolygonSettings:
    # Settings come from the environment (and a relative home from the working folder) only, so
    # the same environment gives the same settings: parse them once per environment, not per task.
    key = (os.getcwd(), *sorted(os.environ.items()))
    found = _settings_seen.get(key)
    if found is None:
        if len(_settings_seen) >= 8:
            _settings_seen.clear()
        found = _settings_seen[key] = load()
    return found


def shared_stores(settings: PolygonSettings | None = None) -> Stores:
    """The stores of this process for `settings` (default: read now), opened once and shared.

    A task calls this instead of `open_stores`: the database engine (and its migration check), the
    artifact store and the one batched writer (`BatchedRepository`) are made on the first call for a
    database and artifact location, and every later task in the process, in any thread, shares
    them, and one `FileCaches` with them (a task re-reads a suite only when it changed). The
    settings are always the ones read now (a changed key or limit applies at once).
    """
    from polygon_core.adapters.artifacts import artifact_store_from_url
    from polygon_core.adapters.settings import load_settings
    from polygon_core.adapters.storage import BatchedRepository, ensure_database

    settings = settings or _current_settings(load_settings)
    key = (settings.resolved_database_url(), settings.resolved_artifacts_url(), settings.s3_endpoint_url)
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            repo = BatchedRepository(ensure_database(key[0]))
            found = _shared[key] = (repo, artifact_store_from_url(key[1], endpoint_url=key[2]), FileCaches())
    return Stores(repo=found[0], artifacts=found[1], settings=settings, caches=found[2])


def agent_label(config: AgentConfig, model: str | None) -> str:
    """What answers as the agent, as a run and its conversations record it (`models["agent"]`): a
    deployed bot's URL without credentials or query (`bot:ws://host:8765/ws`), a Python callable, or
    the model (the run's `--agent-model` when given, else the agent file's)."""
    if config.voice is not None and config.voice.url is not None:
        return f"bot:{public_url(config.voice.url)}"
    if config.callable:
        return f"callable:{config.callable}"
    return model or config.model


def agent_identity(agent_path: str, suite_path: str, *,
                   caches: FileCaches | None = None) -> tuple[AgentConfig, str, str]:
    """The agent's config, prompt text and version (content hash); `caches` (a `Stores`' own) saves
    parsing files read before, and without it the files are read now."""
    config, prompt, tools, code = _identity_inputs(agent_path, suite_path, caches or FileCaches())
    return config, prompt, agent_version(config, prompt, tools, code)


def agent_parts(agent_path: str, suite_path: str, *,
                caches: FileCaches | None = None) -> tuple[str, list[VersionPart]]:
    """The agent's version (as `agent_identity`) and the parts it hashes (`version_parts`): prompt,
    settings, tools and, for a Python agent, each module, package and standard-library name."""
    config, prompt, tools, code = _identity_inputs(agent_path, suite_path, caches or FileCaches())
    return agent_version(config, prompt, tools, code), version_parts(config, prompt, tools, code)


def _identity_inputs(agent_path: str, suite_path: str, caches: FileCaches) -> tuple[
        AgentConfig, str, dict[str, Any], tuple[VersionPart, ...]]:
    # A Python agent's module is found (and its code read) beside its agent file or in the suite.
    with agent_import_path(agent_folders(agent_path, suite_path)):
        config, prompt = caches.agent(agent_path)
        suite = caches.suite(suite_path)
        exposed = config.tools or sorted({t for s in suite.scenarios for t in s.tools})
        tools = {n: suite.tools[n] for n in exposed if n in suite.tools}
        # A Python agent's code is part of what it does (docs/design.md, "Agent versions").
        return config, prompt, tools, caches.code(agent_path)


def transcript_key(run_id: str, conversation_id: str) -> str:
    """Where a conversation's full transcript lives in the artifact store."""
    return f"runs/{run_id}/conversations/{conversation_id}.json"


def call_audio_key(run_id: str, conversation_id: str) -> str:
    """Where a call's stereo WAV (caller left, agent right) lives in the artifact store."""
    return f"runs/{run_id}/calls/{conversation_id}.wav"


def call_timeline_key(run_id: str, conversation_id: str) -> str:
    """Where a call's timeline JSON (`polygon_core.voice.Timeline`) lives in the artifact store."""
    return f"runs/{run_id}/calls/{conversation_id}.timeline.json"


def plan_conversations(suite_path: str, seeds: Sequence[int] | None,
                       scenarios: Sequence[str] | None = None, *,
                       caches: FileCaches | None = None) -> list[tuple[str, int]]:
    """(scenario id, seed) pairs for a run, in a stable order; `scenarios` (exact ids) keeps only those.
    `caches` as for `agent_identity`."""
    suite = (caches or FileCaches()).suite(suite_path)
    use = list(seeds) if seeds is not None else list(suite.config.seeds)
    keep = None if scenarios is None else set(scenarios)
    return [(s.id, seed) for s in suite.scenarios if keep is None or s.id in keep for seed in use]


def _scenario(suite: Suite, scenario_id: str) -> Scenario:
    return next(s for s in suite.scenarios if s.id == scenario_id)


def load_conversation(stores: Stores, run_id: str, conversation_id: str) -> Conversation:
    """A stored conversation's full transcript."""
    text = stores.artifacts.get_text(transcript_key(run_id, conversation_id))
    return Conversation.model_validate_json(text, context=STORED)  # an older one reads as format 0


def fingerprint(value: Any) -> str:
    """Canonical JSON, for byte comparisons in tests and replays."""
    return canonical_json(value)
