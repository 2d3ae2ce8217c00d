"""Each conversation's stub route: its tools, its callback, and what happens to a call that arrives.

The server never runs a stub. A call that arrives for an open route is handed to the route's
callback as a `StubCall`; the callback (the engine's `ToolEnvironment`, through the lead's glue)
records and answers it with a `ToolCall`, and that is what the bot gets back. Closing a route
(the call ended) cancels the callbacks still running; their requests, and any that arrive later,
are answered "call ended".
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from polygon_core.models import ToolCall

from ._openapi import tool_path

__all__ = ["CallEnded", "StubCall", "StubCallback", "StubRoute", "StubRoutes", "UnknownConversation",
           "UnknownTool", "Via", "route_key"]

Via = Literal["http", "mcp"]

#: How many closed routes are remembered (answered "call ended" rather than "unknown conversation").
_CLOSED_REMEMBERED = 10_000


@dataclass(frozen=True)
class StubCall:
    """One tool call a bot made, as the server hands it to the conversation's callback.

    `arguments` is the JSON the bot sent, as sent: normally an object, but anything (a list, a
    number) reaches the callback, which records it as an invalid call. `call_id` is unique within
    the route (`http-1`, `mcp-2`, ... in arrival order); `via` is the door it came in by.
    """

    conversation_id: str
    tool: str
    arguments: Any
    call_id: str
    via: Via


#: What a conversation registers: answer one call with the engine's record of it (result, fault or
#: invalid arguments). It may be awaited for several calls at once when a bot calls in parallel.
StubCallback = Callable[[StubCall], Awaitable[ToolCall]]


class UnknownConversation(LookupError):
    """No route has this key (never opened on this server)."""


class UnknownTool(LookupError):
    """The conversation has no tool of this name."""


class CallEnded(Exception):
    """The conversation's route is closed: the call ended before or while this tool call ran."""


def route_key(conversation_id: str, number: int) -> str:
    """The path segment of a route: the conversation id made URL-safe, then `~` and the route's
    number on its server, so two live routes (two runs of one scenario and seed, a redial while a
    stale bot still calls) never share a URL."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", conversation_id)[:80]
    return f"{safe}~{number}"


def _tool_schemas(tools: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The tools by name, deep-copied; a malformed or repeated entry is a ValueError naming it."""
    chosen: dict[str, dict[str, Any]] = {}
    for position, tool in enumerate(tools):
        name, parameters = tool.get("name"), tool.get("parameters")
        if not isinstance(name, str) or not name:
            raise ValueError(f"tool #{position + 1}: expected a non-empty string 'name', got {name!r}")
        if not isinstance(parameters, Mapping):
            raise ValueError(f"tool {name!r}: expected 'parameters' to be a JSON Schema object")
        if name in chosen:
            raise ValueError(f"tool {name!r} is listed twice")
        chosen[name] = {"name": name, "description": str(tool.get("description") or ""),
                        "parameters": copy.deepcopy(dict(parameters))}
    return chosen


class StubRoute:
    """One conversation's stub endpoints on a running `StubServer` (from `StubServer.open`).

    `base_url` is what a bot is given; the tools are at `base_url/tools/{name}`, the OpenAPI
    document at `base_url/openapi.json` and the MCP endpoint at `base_url/mcp`. `close()` (or
    leaving `with route:`) ends it.
    """

    def __init__(self, *, key: str, conversation_id: str, tools: Iterable[Mapping[str, Any]],
                 callback: StubCallback, base_url: str, on_close: Callable[[StubRoute], None]) -> None:
        self.key, self.conversation_id, self.base_url = key, conversation_id, base_url
        self._tools = _tool_schemas(tools)
        self._callback, self._on_close = callback, on_close
        self._calls = 0
        self._pending: set[asyncio.Future[ToolCall]] = set()
        self._closed = False

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools as given (`name`, `description`, `parameters`), in order; copies."""
        return copy.deepcopy(list(self._tools.values()))

    @property
    def tool_names(self) -> list[str]:
        """The tools' names, in order."""
        return list(self._tools)

    @property
    def openapi_url(self) -> str:
        """The OpenAPI 3.1 document of this conversation's tools."""
        return f"{self.base_url}/openapi.json"

    @property
    def tools_url(self) -> str:
        """GET: the tools as OpenAI-style function definitions; POST `tools_url/{name}`: a call."""
        return f"{self.base_url}/tools"

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint (streamable HTTP) serving the same tools."""
        return f"{self.base_url}/mcp"

    def tool_url(self, name: str) -> str:
        """The POST endpoint of one tool (a KeyError for a tool the conversation does not have)."""
        if name not in self._tools:
            raise KeyError(f"conversation {self.conversation_id!r} has no tool {name!r}")
        return self.base_url + tool_path(name)

    @property
    def closed(self) -> bool:
        """Whether the route has ended (calls are answered "call ended")."""
        return self._closed

    def close(self) -> None:
        """End the route: calls still running are cancelled and answered "call ended", as is any
        later call. Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        for pending in list(self._pending):
            pending.cancel()
        self._on_close(self)

    def __enter__(self) -> StubRoute:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def check_tool(self, tool: str) -> None:
        """Raise `CallEnded` when closed, `UnknownTool` when the conversation has no such tool."""
        if self._closed:
            raise CallEnded(f"the call of conversation {self.conversation_id!r} has ended")
        if tool not in self._tools:
            known = ", ".join(self._tools) or "none"
            raise UnknownTool(f"conversation {self.conversation_id!r} has no tool {tool!r} (tools: {known})")

    async def dispatch(self, tool: str, arguments: Any, via: Via) -> ToolCall:
        """Hand one call to the callback and return its answer.

        Raises `CallEnded` or `UnknownTool` (see `check_tool`), and `CallEnded` when the route
        closes while the callback runs. The callback's own exceptions propagate.
        """
        self.check_tool(tool)
        self._calls += 1
        call = StubCall(conversation_id=self.conversation_id, tool=tool, arguments=arguments,
                        call_id=f"{via}-{self._calls}", via=via)
        # The callback runs as its own task so that `close()` can cancel it without cancelling
        # the request's task, which still has to send its answer.
        running = asyncio.ensure_future(self._callback(call))
        self._pending.add(running)
        try:
            return await running
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._closed and running.cancelled() and not (current is not None and current.cancelling()):
                raise CallEnded(f"the call of conversation {self.conversation_id!r} ended while "
                                f"{tool!r} was running") from None
            raise
        finally:
            self._pending.discard(running)


class StubRoutes:
    """The routes of one server by key, and the keys of closed ones (a late call is "call ended")."""

    def __init__(self) -> None:
        self._open: dict[str, StubRoute] = {}
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._opened = 0

    def open(self, conversation_id: str, tools: Iterable[Mapping[str, Any]], callback: StubCallback,
             base_url: Callable[[str], str]) -> StubRoute:
        """A new route for `conversation_id`; `base_url(key)` says where it is served."""
        self._opened += 1
        key = route_key(conversation_id, self._opened)
        route = StubRoute(key=key, conversation_id=conversation_id, tools=tools, callback=callback,
                          base_url=base_url(key), on_close=self._closed_route)
        self._open[key] = route
        return route

    def get(self, key: str) -> StubRoute:
        """The open route of `key`; `CallEnded` when it was closed, `UnknownConversation` when unknown."""
        route = self._open.get(key)
        if route is not None:
            return route
        if key in self._closed:
            raise CallEnded(f"the call of conversation {self._closed[key]!r} has ended")
        raise UnknownConversation(f"no conversation is served at {key!r}")

    def close_all(self) -> None:
        """Close every open route (the server is stopping)."""
        for route in list(self._open.values()):
            route.close()

    def _closed_route(self, route: StubRoute) -> None:
        self._open.pop(route.key, None)
        self._closed[route.key] = route.conversation_id
        while len(self._closed) > _CLOSED_REMEMBERED:
            self._closed.popitem(last=False)
