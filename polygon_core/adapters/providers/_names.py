"""Model names: `offline`, or `<provider>:<model>` (a registered provider, `_registry.py`: `openai`,
`anthropic`), optionally followed by `@<base URL>`; a judge or probe answerer may be prefixed with
`compact:` (the compact, constrained format for small local models, docs/local-models.md)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from ...models import endpoint_problem
from ...providers import COMPACT_PREFIX
from ._registry import provider_names

__all__ = ["ModelNameError", "ModelSpec", "parse_model_name"]


class ModelNameError(ValueError):
    """A model name Polygon cannot read."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model name."""

    provider: str  # "offline" or a registered provider's name
    model: str
    base_url: str | None = None
    # How a judge or probe answerer is asked: "full" (the default prompt and schema) or "compact"
    # (`compact:` names; a short prompt and a constrained schema with turn references). Part of the
    # name, so judgments by the two formats are stored and calibrated apart.
    style: str = "full"

    @property
    def name(self) -> str:
        """The name as recorded in runs and results (credentials in a URL are dropped)."""
        if self.provider == "offline":
            return "offline"
        base = f"@{_without_userinfo(self.base_url)}" if self.base_url else ""
        prefix = COMPACT_PREFIX if self.style == "compact" else ""
        return f"{prefix}{self.provider}:{self.model}{base}"

    @property
    def short(self) -> str:
        """`provider:model`, the key of the price table and of the record/replay cache."""
        return "offline" if self.provider == "offline" else f"{self.provider}:{self.model}"


def _without_userinfo(url: str) -> str:
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


def parse_model_name(name: str) -> ModelSpec:
    """Read a model name; raises ModelNameError with what was expected."""
    text = (name or "").strip()
    if text.startswith(COMPACT_PREFIX):
        try:
            inner = parse_model_name(text[len(COMPACT_PREFIX):])
        except ModelNameError as exc:
            raise ModelNameError(f"model {name!r}: after '{COMPACT_PREFIX}', {exc}") from None
        if inner.provider == "offline" or inner.style == "compact":
            raise ModelNameError(f"model {name!r}: '{COMPACT_PREFIX}' comes before a model judge's name "
                                 "(e.g. 'compact:openai:qwen@http://127.0.0.1:8080/v1'); the offline judge "
                                 "has no prompt")
        return ModelSpec(inner.provider, inner.model, inner.base_url, style="compact")
    if text in ("offline", "offline-heuristic"):
        return ModelSpec("offline", "offline")
    provider, sep, rest = text.partition(":")
    known = provider_names()
    if not sep or provider not in known or not rest:
        forms = ", ".join(f"'{p}:<model>'" for p in known)
        which = "either" if len(known) == 2 else "any of them"
        raise ModelNameError(
            f"model {name!r}: expected 'offline', {forms}, or {which} "
            "followed by '@<base URL>' (e.g. 'openai:my-model@http://127.0.0.1:8000/v1')")
    model, at, base = rest.partition("@")
    if not model:
        raise ModelNameError(f"model {name!r}: the model after '{provider}:' is empty")
    if at:
        if not base.startswith(("http://", "https://")):
            raise ModelNameError(f"model {name!r}: the base URL after '@' must start with http:// or https://")
        if endpoint_problem(base) is not None:
            # `http://` alone would be stored as `http:` and refused only when a task reads it back;
            # one rule with an HTTP agent's endpoint (a host, a numeric port, no spaces).
            raise ModelNameError(f"model {name!r}: the base URL after '@' names no host, or a bad port "
                                 "(e.g. '@http://127.0.0.1:8000/v1')")
        return ModelSpec(provider, model, base.rstrip("/"))
    return ModelSpec(provider, model)
