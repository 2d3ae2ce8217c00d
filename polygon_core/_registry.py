"""One registry per extension point (providers, gates, criterion scorers, import formats): entries
by name, added with a decorator, the built-ins imported on the first lookup.

Each extension point holds one `Registry`; a new extension is a function (or class) decorated
with `registry.register(name)` in its own module. Where the built-ins come from:
- `builtins` alone: that one module, whose import registers them all;
- with `submodules`: `builtins` is a package and every module in it whose name starts with
  `submodules` is imported too (`""`: every module), so a new built-in is one new module there
  and no list names it; `first` names modules imported before the rest (their entries lead the
  listing), the others follow in name order;
- with `plugins`: an entry-point group (`polygon.providers`); each entry point of an installed
  distribution is loaded after the built-ins, which registers a third-party extension.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Generic, TypeVar

__all__ = ["PluginLoadError", "Registry"]

T = TypeVar("T")


class PluginLoadError(ValueError):
    """An installed plugin (an entry point) failed to import: one line naming the plugin, its
    distribution, the group and the cause. A ValueError, so the CLI shows it as bad input (the
    user's installation), not a traceback. It fails every lookup of its registry, the built-ins'
    too: skipping the plugin would turn its model names into "unknown provider" errors, and runs
    that silently lack an installed extension."""

    def __init__(self, what: str, point: metadata.EntryPoint, group: str, cause: BaseException) -> None:
        dist = getattr(point, "dist", None)
        source = f"distribution {dist.name!r}, " if dist is not None and dist.name else ""
        reason = " ".join(str(cause).split()) or type(cause).__name__  # one line, whatever the cause
        super().__init__(f"{what} plugin {point.name!r} ({point.value}, {source}entry point group {group!r}) "
                         f"failed to load: {reason} (fix or uninstall it)")
        self.plugin, self.group, self.cause = point.name, group, cause


class Registry(Generic[T]):
    """Named entries of one kind; see the module docstring for where the built-ins come from."""

    def __init__(self, what: str, builtins: str, *, submodules: str | None = None,
                 first: tuple[str, ...] = (), plugins: str | None = None) -> None:
        self.what, self.builtins = what, builtins
        self.submodules, self.first, self.plugins = submodules, first, plugins
        self.entries: dict[str, T] = {}
        self._modules: dict[str, str] = {}  # name → the module that registered it
        self._builtins_loaded = self._loading = False
        self._lock = threading.RLock()

    def register(self, name: str, *, module: str | None = None) -> Callable[[T], T]:
        """Register the decorated entry under `name` (a name registered twice is an error).

        `module` is where it is defined (default: the entry's `__module__`): a built-in keeps its
        module's place in the listing even when its module was imported before the first lookup.
        """

        def add(entry: T) -> T:
            if name in self.entries:
                raise ValueError(f"{self.what} {name!r} is registered twice")
            self.entries[name] = entry
            self._modules[name] = module or getattr(entry, "__module__", None) or ""
            return entry

        return add

    def remove(self, name: str) -> None:
        """Forget an entry (tests, and plugins that replace one); an unknown name is ignored."""
        self.entries.pop(name, None)
        self._modules.pop(name, None)

    def loaded(self) -> dict[str, T]:
        """Every entry, the built-ins included (imported on first use, so a lookup never misses one)."""
        if not self._builtins_loaded:  # lookups sit on hot paths (a gate per judgment): import once
            # Another thread's first lookup waits for this one; a module imported here that looks an
            # entry up (same thread, re-entrant lock) gets the entries so far instead of a second load.
            with self._lock:
                if not self._builtins_loaded and not self._loading:
                    self._loading = True
                    try:
                        modules = self._builtin_modules()
                        for module in modules:
                            self._import(functools.partial(importlib.import_module, module))
                        self._in_module_order(modules)
                        if self.plugins:
                            self._load_plugins(self.plugins)
                        self._builtins_loaded = True
                    finally:
                        self._loading = False  # after a failure the next lookup raises it again
        return self.entries

    def _in_module_order(self, modules: list[str]) -> None:
        """The built-ins in their modules' order, whatever imported a module first (a caller that
        imported `_vapi` by name must not move Vapi ahead of CSV); anything else after them, in
        registration order. The same dict object: tests and callers may hold it."""
        place = {module: i for i, module in enumerate(modules)}
        ordered = sorted(self.entries, key=lambda name: place.get(self._modules.get(name, ""), len(place)))
        if ordered != list(self.entries):
            reordered = {name: self.entries[name] for name in ordered}
            self.entries.clear()
            self.entries.update(reordered)

    def _import(self, load: Callable[[], object]) -> None:
        """Import one module; if it fails, forget what it registered first: Python forgets the module
        too, so the next lookup runs it again and must meet its real error, not "registered twice"."""
        before = dict(self.entries)
        try:
            load()
        except BaseException:
            self.entries.clear()
            self.entries.update(before)
            raise

    def _builtin_modules(self) -> list[str]:
        if self.submodules is None:
            return [self.builtins]
        package = importlib.import_module(self.builtins)
        found = sorted(info.name for info in pkgutil.iter_modules(getattr(package, "__path__", [])))
        chosen = [name for name in found if name.startswith(self.submodules)]
        ordered = [name for name in self.first if name in chosen]
        ordered += [name for name in chosen if name not in ordered]
        return [self.builtins, *(f"{self.builtins}.{name}" for name in ordered)]

    def _load_plugins(self, group: str) -> None:
        for point in sorted(metadata.entry_points(group=group), key=lambda p: p.name):
            try:
                self._import(point.load)  # importing the plugin's module registers its entries
            except Exception as exc:
                raise PluginLoadError(self.what, point, group, exc) from exc

    def get(self, name: str) -> T | None:
        """The entry registered as `name`, or None."""
        return self.loaded().get(name)

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self.loaded())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        return name in self.loaded()

    def __len__(self) -> int:
        return len(self.loaded())
