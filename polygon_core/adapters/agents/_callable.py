"""Agent adapters: turn an AgentConfig into an Agent the turn loop can drive.

- `callable`: `module:attr`. A class is instantiated once per conversation (it may keep state); a
  function is called at every step with the AgentRequest and returns an AgentAction or a mapping
  of the same shape.
- `endpoint` (HTTP) and model-backed agents come with the provider layer.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any, cast

from ...conversation import Agent, AgentAction, AgentRequest
from ...models import AgentConfig


class AgentConfigError(ValueError):
    """The agent config cannot be turned into a runnable agent."""


def load_attr(spec: str) -> Any:
    """Import `package.module:attribute`."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentConfigError(f"callable {spec!r}: cannot import module {module_name!r}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise AgentConfigError(f"callable {spec!r}: module {module_name!r} has no attribute {attr!r}") from None


class _FunctionAgent:
    """Wraps a stateless function `(AgentRequest) -> AgentAction | dict` (sync or async)."""

    def __init__(self, fn: Callable[[AgentRequest], Any]) -> None:
        self.fn = fn

    async def act(self, request: AgentRequest) -> AgentAction:
        result = self.fn(request)
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, AgentAction) else AgentAction.model_validate(result)


def agent_factory(config: AgentConfig, *, model_name: str | None = None, settings: Any = None,
                  meter: Any = None) -> Callable[[], Agent]:
    """A factory making one fresh Agent per conversation.

    Model-backed agents use `model_name` (default: the config's `model`), `settings` (keys, limits,
    cache) and an optional usage `meter`.
    """
    if config.kind == "callable":
        target = load_attr(config.callable or "")
        if inspect.isclass(target):
            return cast(Callable[[], Agent], target)  # an Agent class: its constructor is the factory
        if callable(target):
            return lambda: _FunctionAgent(target)
        raise AgentConfigError(f"callable {config.callable!r} is neither a class nor a function")
    if config.kind == "http":
        from ._http import HttpAgent

        endpoint = config.endpoint or ""
        return lambda: HttpAgent(endpoint)
    from ._model import model_agent_factory

    return model_agent_factory(config, model_name=model_name, settings=settings, meter=meter)
