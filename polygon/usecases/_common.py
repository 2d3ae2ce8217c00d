"""Stores and cached loading shared by every pipeline step."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from polygon_core._hashing import canonical_json
from polygon_core.adapters.settings import PolygonSettings
from polygon_core.adapters.stores import Stores, open_stores
from polygon_core.files import Suite, agent_version, load_agent, load_suite
from polygon_core.models import (
    AgentConfig,
    Conversation,
    Scenario,
)
from polygon_core.probes import Probe, load_probes

__all__ = ["Stores", "agent_identity", "fingerprint", "load_conversation", "open_stores", "plan_conversations",
           "shared_stores", "transcript_key"]

T = TypeVar("T")


_Stamp = tuple[int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class _FileCache(Generic[T]):
    """Loaded files by path, valid while none of the files a load read has changed.

    A long-lived process (the web app, an in-process flow run) must see an edited agent or suite:
    every call re-stats what the cached value was read from (a few stat calls, no parsing) and
    loads again when a file's mtime or size moved or a file came or went.
    """

    def __init__(self, load: Callable[[Path], tuple[T, list[Path]]], size: int = 32) -> None:
        self._load, self._size = load, size
        self._entries: dict[str, tuple[T, list[tuple[Path, _Stamp]]]] = {}
        self._lock = threading.Lock()

    def __call__(self, path: str) -> T:
        with self._lock:
            hit = self._entries.get(path)
        if hit is not None and all(_stamp(dep) == stamp for dep, stamp in hit[1]):
            return hit[0]
        value, deps = self._load(Path(path))
        with self._lock:
            if len(self._entries) >= self._size:
                self._entries.pop(next(iter(self._entries)))
            self._entries[path] = (value, [(dep, _stamp(dep)) for dep in deps])
        return value

    def cache_clear(self) -> None:
        """Forget every loaded file."""
        with self._lock:
            self._entries.clear()


def _load_suite(path: Path) -> tuple[Suite, list[Path]]:
    # Every file and folder under the suite: a folder's mtime moves when a scenario is added.
    return load_suite(path), [path, *sorted(path.rglob("*"))] if path.is_dir() else [path]


def _load_agent(path: Path) -> tuple[tuple[AgentConfig, str], list[Path]]:
    loaded = load_agent(path)
    return (loaded.config, loaded.prompt_text), [path, *([loaded.prompt_path] if loaded.prompt_path else [])]


def _load_probes(path: Path) -> tuple[list[Probe], list[Path]]:
    return load_probes(path), [path]


_suite: _FileCache[Suite] = _FileCache(_load_suite)
_probes: _FileCache[list[Probe]] = _FileCache(_load_probes)  # a probe library file, read once per edit
_agent: _FileCache[tuple[AgentConfig, str]] = _FileCache(_load_agent)


_shared: dict[tuple[str, str, str | None], tuple[Any, Any]] = {}
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
    them. The settings are always the ones read now (a changed key or limit applies at once).
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
            found = _shared[key] = (repo, artifact_store_from_url(key[1], endpoint_url=key[2]))
    return Stores(repo=found[0], artifacts=found[1], settings=settings)


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


def plan_conversations(suite_path: str, seeds: Sequence[int] | None,
                       scenarios: Sequence[str] | None = None) -> list[tuple[str, int]]:
    """(scenario id, seed) pairs for a run, in a stable order; `scenarios` (exact ids) keeps only those."""
    suite = _suite(suite_path)
    use = list(seeds) if seeds is not None else list(suite.config.seeds)
    keep = None if scenarios is None else set(scenarios)
    return [(s.id, seed) for s in suite.scenarios if keep is None or s.id in keep for seed in use]


def _scenario(suite: Suite, scenario_id: str) -> Scenario:
    return next(s for s in suite.scenarios if s.id == scenario_id)


def load_conversation(stores: Stores, run_id: str, conversation_id: str) -> Conversation:
    """A stored conversation's full transcript."""
    text = stores.artifacts.get_text(transcript_key(run_id, conversation_id))
    return Conversation.model_validate_json(text)


def fingerprint(value: Any) -> str:
    """Canonical JSON, for byte comparisons in tests and replays."""
    return canonical_json(value)
