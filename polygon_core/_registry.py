"""One registry per extension point (providers, gates, criterion scorers): entries by name, added
with a decorator, the built-ins imported from their module on the first lookup.

Each extension point holds one `Registry`; a new extension is a function (or class) decorated
with `registry.register(name)` in its own module, which the built-ins module imports or a test
registers for itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind; `builtins` is the module whose import registers the built-ins."""

    def __init__(self, what: str, builtins: str) -> None:
        self.what, self.builtins = what, builtins
        self.entries: dict[str, T] = {}
        self._builtins_loaded = False

    def register(self, name: str) -> Callable[[T], T]:
        """Register the decorated entry under `name` (a name registered twice is an error)."""

        def add(entry: T) -> T:
            if name in self.entries:
                raise ValueError(f"{self.what} {name!r} is registered twice")
            self.entries[name] = entry
            return entry

        return add

    def loaded(self) -> dict[str, T]:
        """Every entry, the built-ins included (imported on first use, so a lookup never misses one)."""
        if not self._builtins_loaded:  # lookups sit on hot paths (a gate per judgment): import once
            importlib.import_module(self.builtins)
            self._builtins_loaded = True
        return self.entries

    def get(self, name: str) -> T | None:
        """The entry registered as `name`, or None."""
        return self.loaded().get(name)

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self.loaded())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
