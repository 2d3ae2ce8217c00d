"""Loaded suites, agents and probe libraries, cached per `Stores` and re-read when their files change.

Each `Stores` carries its own `FileCaches` (docs/design.md, "Layers"): two stores never share a
cache, so a test that makes its own stores needs no global reset, and a long-lived process (the web
app, an in-process flow run) still parses each file once per edit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from polygon_core.files import Suite, VersionPart, load_agent, load_suite
from polygon_core.models import AgentConfig
from polygon_core.probes import Probe, load_probes

__all__ = ["FileCache", "FileCaches"]

T = TypeVar("T")

_Stamp = tuple[int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class FileCache(Generic[T]):
    """Loaded files by path, valid while none of the files a load read has changed.

    A long-lived process must see an edited agent or suite: every call re-stats what the cached
    value was read from (a few stat calls, no parsing) and loads again when a file's mtime or size
    moved or a file came or went.
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


def _load_code(path: Path) -> tuple[tuple[VersionPart, ...], list[Path]]:
    # A Python agent's code parts, valid while the agent file and every source file and folder they
    # were read from stay as they were; other agents have none.
    from .agents import callable_code

    config = load_agent(path).config
    if config.callable is None:
        return (), [path]
    code = callable_code(config.callable)
    return code.parts, [path, *code.files]


def _load_probes(path: Path) -> tuple[list[Probe], list[Path]]:
    return load_probes(path), [path]


@dataclass(frozen=True)
class FileCaches:
    """One `Stores`' loaded files: `suite(path)`, `agent(path)` → (config, prompt text),
    `code(path)` → a Python agent's code parts (`callable_code`; none for other agents),
    `probes(path)`; and `memo`, a small dict for values the layers above read once per process
    and key themselves (a run's stored settings, which never change after the run is created)."""

    suite: FileCache[Suite] = field(default_factory=lambda: FileCache(_load_suite))
    agent: FileCache[tuple[AgentConfig, str]] = field(default_factory=lambda: FileCache(_load_agent))
    code: FileCache[tuple[VersionPart, ...]] = field(default_factory=lambda: FileCache(_load_code))
    probes: FileCache[list[Probe]] = field(default_factory=lambda: FileCache(_load_probes))
    memo: dict[Any, Any] = field(default_factory=dict)

    def clear(self) -> None:
        """Forget every loaded file and memoised value."""
        self.suite.cache_clear()
        self.agent.cache_clear()
        self.code.cache_clear()
        self.probes.cache_clear()
        self.memo.clear()
