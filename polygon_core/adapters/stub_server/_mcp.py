"""The MCP door: one MCP server (the `mcp` SDK's low-level `Server`) over streamable HTTP, mounted
at `/conversations/{key}/mcp`, whose `tools/list` and `tools/call` read the conversation from the
request's path.

It runs stateless with JSON responses: every MCP request is one POST answered with one JSON body,
so no MCP session outlives a request and stopping the server waits for nothing. Clients of both
protocol eras are served (the SDK's session manager routes them). The tools are the route's, with
`inputSchema` the tool's JSON Schema as given; the SDK is not asked to validate arguments, so an
invalid call reaches the callback (and the tool trace) like any other.

This module imports the SDK; `polygon_core.adapters.stub_server` imports it only when a server
with MCP starts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST
from starlette.types import Receive, Scope, Send

from polygon_core.models import ToolCall

from ._answers import error_body, http_answer
from ._routes import CallEnded, StubRoute, StubRoutes, UnknownConversation, UnknownTool

__all__ = ["McpDoor", "mcp_result"]

logger = logging.getLogger(__name__)

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def mcp_result(call: ToolCall) -> types.CallToolResult:
    """The engine's record of a call as an MCP tool result: the same body as the HTTP door, as JSON
    text (and as structured content when it is an object), an error result when its status is not
    2xx (an injected fault or invalid arguments: the model sees it and may correct itself)."""
    status, body = http_answer(call)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body if isinstance(body, dict) else None,
        is_error=status >= 300,
    )


def _security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for a loopback server (as the SDK sets it up for its own apps)."""
    if host not in _LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


async def _json_error(send: Send, status: int, body: dict[str, str]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


class McpDoor:
    """The MCP server of a `StubServer`: the door itself is mounted at `/conversations/{key}/mcp`, and
    `running()` must wrap the server's life (the SDK's session manager runs in it)."""

    def __init__(self, routes: StubRoutes, *, host: str) -> None:
        self._routes = routes
        self._server: Server[Any] = Server("polygon-stubs", on_list_tools=self._list_tools,
                                           on_call_tool=self._call_tool)
        self._manager = StreamableHTTPSessionManager(app=self._server, stateless=True, json_response=True,
                                                     security_settings=_security(host))
        self._app = StreamableHTTPASGIApp(self._manager)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the SDK's session manager (once per door)."""
        async with self._manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI app mounted at each conversation's `/mcp` (the door object itself: Starlette takes
        a function or method endpoint for a request handler, not for ASGI). An unknown or ended
        conversation is answered here, as on the POST endpoints (404, 410); the rest goes to the SDK."""
        key = str(scope.get("path_params", {}).get("key", ""))
        try:
            self._routes.get(key)
        except UnknownConversation as exc:
            await _json_error(send, 404, error_body("unknown_conversation", str(exc)))
            return
        except CallEnded as exc:
            await _json_error(send, 410, error_body("call_ended", str(exc)))
            return
        await self._app(scope, receive, send)

    def _route(self, ctx: Any) -> StubRoute:
        request = getattr(ctx, "request", None)
        key = str(request.path_params.get("key", "")) if request is not None else ""
        try:
            return self._routes.get(key)
        except (UnknownConversation, CallEnded) as exc:
            raise MCPError(INVALID_REQUEST, str(exc)) from None

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        route = self._route(ctx)
        return types.ListToolsResult(tools=[
            types.Tool(name=tool["name"], description=tool["description"], input_schema=tool["parameters"])
            for tool in route.tools])

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        route = self._route(ctx)
        arguments: Any = {} if params.arguments is None else params.arguments
        try:
            call = await route.dispatch(params.name, arguments, "mcp")
        except UnknownTool as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        except CallEnded as exc:
            raise MCPError(INVALID_REQUEST, str(exc)) from None
        except Exception as exc:  # the callback failed: say so to the bot rather than hang up on it
            logger.exception("the stub callback of %r failed on %r", route.conversation_id, params.name)
            raise MCPError(INTERNAL_ERROR, f"the stub failed: {type(exc).__name__}: {exc}") from exc
        return mcp_result(call)
