"""Agent adapters: turn an AgentConfig into an Agent the turn loop can drive.

- `callable`: `module:attr`. A class is instantiated once per conversation (it may keep state) and
  its `act` is called at every step; a function is called at every step. Either receives the
  AgentRequest and returns (or, when async, resolves to) an AgentAction or a mapping of the same
  shape (docs/agents.md).
- `endpoint` (HTTP) and model-backed agents come with the provider layer.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...conversation import Agent, AgentAction, AgentRequest
from ...files import agent_import_path, not_found_message
from ...models import AgentConfig


class AgentConfigError(ValueError):
    """The agent config cannot be turned into a runnable agent."""


class AgentActionError(TypeError):
    """A Python agent returned something that is not an action (the conversation ends `agent_error`)."""


def load_attr(spec: str, folders: Sequence[Path] = ()) -> Any:
    """Import `package.module:attribute`, looking for the module in `folders` first (`agent_folders`:
    the agent file's and the suite's), then on the Python path."""
    module_name, _, attr = spec.partition(":")
    try:
        with agent_import_path(folders):
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):  # the agent's own module
            raise AgentConfigError(not_found_message(spec, list(folders))) from None
        raise AgentConfigError(f"callable {spec!r}: importing module {module_name!r} failed: it imports "
                               f"{exc.name!r}, which is not installed or not on the import path") from None
    except ImportError as exc:
        raise AgentConfigError(f"callable {spec!r}: cannot import module {module_name!r}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise AgentConfigError(f"callable {spec!r}: module {module_name!r} has no attribute {attr!r}") from None


async def _action(result: Any) -> AgentAction:
    """What a Python agent returned, as an AgentAction: awaited when it is awaitable, validated when it
    is a mapping (a wrong shape raises, and the conversation ends `agent_error` naming the field)."""
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, AgentAction):
        return result
    try:
        return AgentAction.model_validate(result)
    except ValidationError as exc:  # one line, as an HTTP agent's invalid answer is
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the returned value"
        raise AgentActionError(f"the agent returned an invalid action: {where}: {first['msg']} "
                               f"(got {type(result).__name__}; expected an AgentAction or a dict of its "
                               "fields: say, tool_calls, end, latency_ms, usage)") from None


class _FunctionAgent:
    """Wraps a stateless function `(AgentRequest) -> AgentAction | dict` (sync or async)."""

    def __init__(self, fn: Callable[[AgentRequest], Any]) -> None:
        self.fn = fn

    async def act(self, request: AgentRequest) -> AgentAction:
        return await _action(self.fn(request))


class _ClassAgent:
    """Wraps one instance of an agent class: its `act` (sync or async) may return what a function may.

    The instance is made at the conversation's first step, inside the turn loop: an exception its
    `__init__` raises is the agent's failure (the conversation ends `agent_error`, as one `act`
    raises), not a crash of the task that prepares the conversation."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.instance: Any = None

    async def act(self, request: AgentRequest) -> AgentAction:
        if self.instance is None:
            self.instance = self.cls()
        return await _action(self.instance.act(request))


def _class_factory(cls: type, spec: str) -> Callable[[], Agent]:
    if not callable(getattr(cls, "act", None)):
        raise AgentConfigError(f"callable {spec!r}: class {cls.__name__!r} has no `act(self, request)` method")
    try:  # one instance per conversation, made as `cls()`: an __init__ that needs arguments is bad input
        inspect.signature(cls).bind()
    except TypeError as exc:
        raise AgentConfigError(f"callable {spec!r}: class {cls.__name__!r} cannot be made without arguments "
                               f"({exc}); Polygon makes one per conversation as `{cls.__name__}()`") from None
    except ValueError:
        pass  # no signature to read (a class implemented in C): the first conversation will tell
    return lambda: _ClassAgent(cls)


def agent_factory(config: AgentConfig, *, model_name: str | None = None, settings: Any = None,
                  meter: Any = None, folders: Sequence[Path] = ()) -> Callable[[], Agent]:
    """A factory making one fresh Agent per conversation.

    A Python agent's module is looked for in `folders` first (see `load_attr`). Model-backed agents use `model_name` (default: the config's `model`), `settings` (keys, limits,
    cache) and an optional usage `meter`; an HTTP agent takes its reply timeout and body cap from
    `settings` (`http_agent_timeout`, `http_agent_max_body_bytes`; the defaults without them).
    """
    if config.kind == "callable":
        target = load_attr(config.callable or "", folders)
        if inspect.isclass(target):
            return _class_factory(target, config.callable or "")  # one instance per conversation
        if callable(target):
            return lambda: _FunctionAgent(target)
        raise AgentConfigError(f"callable {config.callable!r} is neither a class nor a function")
    if config.kind == "http":
        from ._http import HttpAgent

        endpoint = config.endpoint or ""
        bounds = {} if settings is None else {"timeout_s": settings.http_agent_timeout,
                                              "max_body_bytes": settings.http_agent_max_body_bytes}
        return lambda: HttpAgent(endpoint, **bounds)
    from ._model import model_agent_factory

    return model_agent_factory(config, model_name=model_name, settings=settings, meter=meter)
