"""What the registries hold, as the help texts and error messages of the front ends name it.

Every list of providers, import formats or rubric versions a message or a help text shows is made
here from its registry (the provider and import-format registries, the rubric files), so a
provider or format registered by a plugin appears in them with no edit. Each function imports its
registry on first use: a command's help names what is installed without the command importing the
import formats (or anything else) when it runs. A plugin that fails to load raises its
`PluginLoadError` (a ValueError) here as on any lookup.
"""

from __future__ import annotations

__all__ = ["batch_model_forms", "batch_provider_titles", "format_choices", "model_forms", "rubric_choices"]


def _batch_providers() -> list[str]:
    """The providers whose adapter has a batch API (`submit_batch`), in registration order."""
    from polygon_core.adapters.providers import adapter_class, provider_names

    return [name for name in provider_names() if hasattr(adapter_class(name), "submit_batch")]


def model_forms(model: str = "<model>") -> str:
    """`offline | openai:<model> | anthropic:<model>`: every model name form, one per provider."""
    from polygon_core.adapters.providers import provider_names

    return " | ".join(["offline", *(f"{name}:{model}" for name in provider_names())])


def batch_model_forms() -> str:
    """`openai:… or anthropic:…`: the providers with a batch API, as model names."""
    forms = [f"{name}:…" for name in _batch_providers()]
    return " or ".join([", ".join(forms[:-1]), forms[-1]] if len(forms) > 1 else forms) or "no provider"


def batch_provider_titles() -> str:
    """`OpenAI, Anthropic`: the providers with a batch API, as their messages name them."""
    from polygon_core.adapters.providers import adapter_class

    return ", ".join(adapter_class(name).title for name in _batch_providers())


def format_choices() -> str:
    """`csv | openai | polygon | retell | vapi`: the registered import formats."""
    from polygon_core.imports import FORMATS

    return " | ".join(FORMATS)


def rubric_choices() -> str:
    """`v1, v2, v3`: the rubric versions (the bundled rubric files)."""
    from polygon_core.scoring import KNOWN_VERSIONS

    return ", ".join(KNOWN_VERSIONS)
