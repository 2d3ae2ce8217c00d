"""The provider registry: a model name's prefix (`openai` in `openai:gpt-4o`) → its adapter class.

Each provider registers a loader with `@provider(name)` in `_catalog.py`; the loader imports the
provider's own module only when a model of that provider is made, and that module imports its SDK
only when its adapter is built (`SdkAdapter.__init__`), so an unused provider's SDK is never loaded.
The offline model is not here: it is Polygon's own, with no SDK, key or URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._clients import SdkAdapter

__all__ = ["AdapterLoader", "adapter_class", "provider", "provider_names"]

AdapterLoader = Callable[[], "type[SdkAdapter]"]

_LOADERS: dict[str, AdapterLoader] = {}


def provider(name: str) -> Callable[[AdapterLoader], AdapterLoader]:
    """Register the decorated loader as the provider of `name:<model>` model names."""

    def register(load: AdapterLoader) -> AdapterLoader:
        if name in _LOADERS or name == "offline":
            raise ValueError(f"provider {name!r} is registered twice")
        _LOADERS[name] = load
        return load

    return register


def _loaders() -> dict[str, AdapterLoader]:
    from . import _catalog  # noqa: F401  (registers the built-in providers on first use)

    return _LOADERS


def provider_names() -> tuple[str, ...]:
    """The registered provider prefixes, in registration order."""
    return tuple(_loaders())


def adapter_class(name: str) -> type[SdkAdapter]:
    """The adapter class of a registered provider (imports its module, not yet its SDK)."""
    return _loaders()[name]()
