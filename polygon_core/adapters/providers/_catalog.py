"""The built-in providers (see `_registry.py`): one lazy loader each, one module per provider.

A new provider is one module holding its `SdkAdapter` subclass, plus its loader here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._registry import provider

if TYPE_CHECKING:
    from ._clients import SdkAdapter


@provider("openai")
def openai() -> type[SdkAdapter]:
    """OpenAI Chat Completions, and any OpenAI-compatible server at a base URL."""
    from ._openai import OpenAIAdapter

    return OpenAIAdapter


@provider("anthropic")
def anthropic() -> type[SdkAdapter]:
    """Anthropic Messages, and Anthropic-compatible servers at a base URL."""
    from ._anthropic import AnthropicAdapter

    return AnthropicAdapter
