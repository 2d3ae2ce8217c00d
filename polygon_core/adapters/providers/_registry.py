"""The provider registry: a model name's prefix (`openai` in `openai:gpt-4o`) → its adapter class.

A provider is one module in this package holding an `SdkAdapter` subclass decorated with
`@provider(name)`: every module here is imported on the first lookup (`Registry` with
`submodules=""`), so no list names it; an installed distribution adds one the same way through
the `polygon.providers` entry-point group. Importing a provider module imports no SDK: its adapter
imports the SDK only when it is built (`SdkAdapter.__init__`), so an unused provider's SDK is never
loaded. The offline model is not here: it is Polygon's own, with no SDK, key or URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..._registry import Registry
from ._clients import SdkAdapter

__all__ = ["PLUGIN_GROUP", "PROVIDERS", "adapter_class", "provider", "provider_names"]

A = TypeVar("A", bound=type[SdkAdapter])

PLUGIN_GROUP = "polygon.providers"

# OpenAI first: its wire format is the one most servers speak, and it leads the names listed.
PROVIDERS: Registry[type[SdkAdapter]] = Registry(
    "provider", __package__ or "polygon_core.adapters.providers", submodules="", first=("_openai",),
    plugins=PLUGIN_GROUP)


def provider(name: str) -> Callable[[A], A]:
    """Register the decorated adapter class as the provider of `name:<model>` model names."""
    if name == "offline":
        raise ValueError("provider 'offline' is Polygon's own model and cannot be registered")

    def add(adapter: A) -> A:
        _check_own_service(name, adapter)
        PROVIDERS.register(name)(adapter)
        adapter.provider = name  # its replies, failures and clients are named after it
        return adapter

    return add


def _check_own_service(name: str, adapter: type[SdkAdapter]) -> None:
    """Refuse a provider that is not its SDK's own service unless it names its own key variables and
    URL: inherited ones (an `OpenAIAdapter` subclass's) would send the SDK vendor's key to its host."""
    if name == getattr(adapter, "sdk", None):
        return
    declared = vars(adapter)
    for attribute in ("api_key_env", "default_url"):
        if attribute not in declared:
            raise ValueError(f"provider {name!r} ({adapter.__qualname__}) must declare its own {attribute}: "
                             f"an inherited one would send another provider's key or requests elsewhere")


def provider_names() -> tuple[str, ...]:
    """The registered provider prefixes, in registration order."""
    return PROVIDERS.names()


def adapter_class(name: str) -> type[SdkAdapter]:
    """The adapter class of a registered provider (its module is imported, its SDK not yet)."""
    return PROVIDERS.loaded()[name]
