"""A Python agent's code, as parts of its version: which source files it runs, read from disk.

Starting from the module named by `callable: package.module:attr`, every import is followed (read
with `ast`, never executed) and classified:

- the standard library (`sys.stdlib_module_names`): named, with the Python version (major.minor);
- an installed distribution other than the agent's own (`importlib.metadata`): named with its
  version, not read (its version is what says its code changed);
- any other module found on the import path (the agent's package, a sibling folder of the same
  checkout, the agent's own distribution): its source is hashed and its imports followed in turn;
- an import that cannot be found: named as `missing`, so it appearing later is a new version.

Modules are located with the import system's finders, part by part, as `callable_problem` does:
a package's `__init__` is never run to find a submodule. The pure parts (hashing, reading import
statements) are `polygon_core.files`'; this module only finds and reads files.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from importlib import metadata
from importlib.machinery import ModuleSpec
from pathlib import Path

from ...files import VersionPart, find_spec_quietly, imported_modules, sorted_parts, source_sha

__all__ = ["CallableCode", "callable_code"]

_MAX_MODULES = 2_000  # a bound on the walk: an import cycle cannot loop, but a huge tree must end


@dataclass(frozen=True)
class CallableCode:
    """The code parts of one callable agent and the files and folders they were read from (a cache
    stays valid while none of them changed; a folder's mtime moves when a module is added)."""

    parts: tuple[VersionPart, ...]
    files: tuple[Path, ...]


def callable_code(spec: str) -> CallableCode:
    """The code parts of the agent `package.module:attr` (see the module docstring)."""
    module = spec.partition(":")[0]
    top = module.split(".")[0]
    walk = _Walk(own_distributions=frozenset(_distributions().get(top, ())), agent_top=top)
    parts = module.split(".")
    # Importing `a.b.agent` runs `a/__init__.py` and `a/b/__init__.py` first: they are its code too.
    walk.queue.extend((".".join(parts[:i]), False) for i in range(len(parts) - 1, 0, -1))
    walk.visit(module, maybe_attribute=False)
    while walk.queue and len(walk.seen) < _MAX_MODULES:
        name, maybe_attribute = walk.queue.pop()
        walk.visit(name, maybe_attribute)
    return CallableCode(tuple(sorted_parts(walk.parts)), tuple(sorted(walk.files)))


@dataclass
class _Walk:
    """One walk over an agent's imports: what is left to visit, what was seen, what was found."""

    own_distributions: frozenset[str]  # the agent's own distribution(s): their modules are read
    agent_top: str
    queue: list[tuple[str, bool]] = field(default_factory=list)  # (module, maybe an attribute)
    seen: set[str] = field(default_factory=set)
    parts: set[VersionPart] = field(default_factory=set)
    files: set[Path] = field(default_factory=set)
    python: str = f"{sys.version_info.major}.{sys.version_info.minor}"

    def visit(self, name: str, maybe_attribute: bool) -> None:
        if name in self.seen:
            return
        self.seen.add(name)
        top = name.split(".")[0]
        if top == "__future__":
            return  # compiler directives, not code that runs
        if top != self.agent_top and (top in sys.stdlib_module_names or top in sys.builtin_module_names):
            self.parts.add(VersionPart(kind="stdlib", name=top, version=self.python))
            return
        dists = _distributions().get(top, ())
        if top != self.agent_top and dists and not set(dists) & self.own_distributions:
            for dist in dists:
                self.parts.add(VersionPart(kind="package", name=dist, version=_dist_version(dist)))
            return
        found = _find(name)
        if found is None:
            if not maybe_attribute:  # `from pkg import name` where `name` is not a module: nothing to read
                self.parts.add(VersionPart(kind="missing", name=name))
            return
        self._read(name, found)

    def _read(self, name: str, found: ModuleSpec) -> None:
        origin = found.origin if found.has_location else None
        if origin is None:
            return  # a namespace package: no code of its own (its modules are read one by one)
        path = Path(origin)
        try:
            source = path.read_bytes()
        except OSError:
            self.parts.add(VersionPart(kind="missing", name=name))
            return
        self.files.update((path, path.parent))
        self.parts.add(VersionPart(kind="module", name=name, sha=source_sha(source)))
        if path.suffix == ".py":
            is_package = found.submodule_search_locations is not None
            for imported in imported_modules(source, name, is_package=is_package):
                if imported.name not in self.seen:
                    self.queue.append((imported.name, imported.maybe_attribute))


def _find(name: str) -> ModuleSpec | None:
    # Part by part with the meta path finders (path entries, editable installs), each submodule in
    # its parent's search locations: locating a module never imports its package.
    search: list[str] | None = None
    spec: ModuleSpec | None = None
    parts = name.split(".")
    for index in range(len(parts)):
        spec = find_spec_quietly(".".join(parts[: index + 1]), search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
        if index < len(parts) - 1 and not search:
            return None  # a plain module has no submodules
    return spec


@functools.cache
def _distributions() -> dict[str, tuple[str, ...]]:
    # Top-level import name → the installed distributions providing it. Reading every
    # distribution's file list takes a while: once per process (a package installed later is
    # not loaded by this process either).
    return {top: tuple(sorted(set(dists))) for top, dists in metadata.packages_distributions().items()}


def _dist_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"
