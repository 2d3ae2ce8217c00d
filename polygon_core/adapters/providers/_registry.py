"""The provider registry: a model name's prefix (`openai` in `openai:gpt-4o`) → its adapter class.

Each provider registers a loader with `@provider(name)` in `_catalog.py`; the loader imports the
provider's own module only when a model of that provider is made, and that module imports its SDK
only when its adapter is built (`SdkAdapter.__init__`), so an unused provider's SDK is never loaded.
The offline model is not here: it is Polygon's own, with no SDK, key or URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..._registry import Registry

if TYPE_CHECKING:
    from ._clients import SdkAdapter

__all__ = ["PROVIDERS", "AdapterLoader", "adapter_class", "provider", "provider_names"]

AdapterLoader = Callable[[], "type[SdkAdapter]"]

PROVIDERS: Registry[AdapterLoader] = Registry("provider", "polygon_core.adapters.providers._catalog")


def provider(name: str) -> Callable[[AdapterLoader], AdapterLoader]:
    """Register the decorated loader as the provider of `name:<model>` model names."""
    if name == "offline":
        raise ValueError("provider 'offline' is Polygon's own model and cannot be registered")
    return PROVIDERS.register(name)


def provider_names() -> tuple[str, ...]:
    """The registered provider prefixes, in registration order."""
    return PROVIDERS.names()


def adapter_class(name: str) -> type[SdkAdapter]:
    """The adapter class of a registered provider (imports its module, not yet its SDK)."""
    return PROVIDERS.loaded()[name]()
