"""The HTTP door: a FastAPI app with, per conversation, one POST endpoint per tool and the OpenAPI
document of its tools (FastAPI's own generated document and docs pages are off: the document a bot
reads is the tools', built by `_openapi.py`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.routing import Route

from ._answers import error_body, http_answer
from ._openapi import openapi_document
from ._routes import CallEnded, StubRoute, StubRoutes, UnknownConversation, UnknownTool

__all__ = ["PREFIX", "build_app"]

logger = logging.getLogger(__name__)

#: Every conversation's URLs start with this, then the route's key.
PREFIX = "/conversations"

_EMPTY_BODY = b""


def _failure(status: int, code: str, exc: BaseException | str) -> JSONResponse:
    return JSONResponse(error_body(code, str(exc)), status_code=status)


def _arguments(body: bytes) -> Any:
    """The JSON body as sent; an empty body is no arguments (`{}`). A ValueError when not JSON."""
    if body.strip() == _EMPTY_BODY:
        return {}
    return json.loads(body)


def build_app(routes: StubRoutes, *, mcp: Callable[[Any, Any, Any], Awaitable[None]] | None = None,
              lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None) -> FastAPI:
    """The stub server's app over `routes`; `mcp` (an ASGI app) is mounted at each conversation's
    `/mcp`, and `lifespan` wraps the app's life."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)

    def listed(key: str, listing: Callable[[StubRoute], Any]) -> JSONResponse:
        """A GET of a conversation's tools, as `listing` shows them (404 / 410 as for a call)."""
        try:
            route = routes.get(key)
        except UnknownConversation as exc:
            return _failure(404, "unknown_conversation", exc)
        except CallEnded as exc:
            return _failure(410, "call_ended", exc)
        return JSONResponse(listing(route))

    @app.get(PREFIX + "/{key}/openapi.json")
    async def openapi(key: str) -> JSONResponse:
        return listed(key, lambda route: openapi_document(route.tools, route.base_url))

    @app.get(PREFIX + "/{key}/tools")
    async def tool_list(key: str) -> JSONResponse:
        # The tools as OpenAI-style function definitions: what a bot's model is given, for a bot that
        # reads `tools_url` rather than the OpenAPI document (the example Pipecat bot does).
        return listed(key, lambda route: [{"type": "function", "function": tool} for tool in route.tools])

    @app.post(PREFIX + "/{key}/tools/{tool:path}")
    async def call_tool(key: str, tool: str, request: Request) -> JSONResponse:
        try:
            route = routes.get(key)
            route.check_tool(tool)
        except (UnknownConversation, UnknownTool) as exc:
            return _failure(404, "unknown_conversation" if isinstance(exc, UnknownConversation) else "unknown_tool",
                            exc)
        except CallEnded as exc:
            return _failure(410, "call_ended", exc)
        try:
            arguments = _arguments(await request.body())
        except ValueError as exc:
            return _failure(400, "invalid_json", f"the body of a call to {tool!r} is not JSON: {exc}")
        try:
            call = await route.dispatch(tool, arguments, "http")
        except CallEnded as exc:
            return _failure(410, "call_ended", exc)
        except Exception as exc:  # the callback failed: say so to the bot rather than hang up on it
            logger.exception("the stub callback of %r failed on %r", route.conversation_id, tool)
            return _failure(500, "stub_failed", f"{type(exc).__name__}: {exc}")
        status, body = http_answer(call)
        return JSONResponse(body, status_code=status)

    if mcp is not None:
        # An ASGI app as the endpoint: Starlette hands it the request's scope, path parameters included.
        app.router.routes.append(Route(PREFIX + "/{key}/mcp", endpoint=mcp, methods=["GET", "POST", "DELETE"]))
    return app

