"""The stub server's life: uvicorn on a socket bound to a free loopback port, inside the running loop.

uvicorn is driven through `Server.startup` and `Server.shutdown`, not `serve()`: `serve()` installs
SIGINT/SIGTERM handlers (Ctrl+C would stop the stub server, not the run that embeds it) and polls
for its exit flag on a timer task. Startup logs nothing (uvicorn's own logging is not configured and
its loggers are set to warnings), so nothing reaches stdout.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

import uvicorn
from fastapi import FastAPI

from ..provenance import POLYGON_DISTRIBUTION
from ._http import PREFIX, build_app
from ._routes import StubCallback, StubRoute, StubRoutes

if TYPE_CHECKING:
    from ._mcp import McpDoor

__all__ = ["StubServer", "StubServerError"]


class StubServerError(RuntimeError):
    """The stub server cannot do what was asked: used before `start()`, started twice, failed to start."""


def _listening_socket(host: str) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, 0), family=family)


class StubServer:
    """Serves conversations' tool stubs over HTTP and MCP on a loopback port, in the running loop.

    One server serves any number of conversations at once, each under its own URL
    (`open()` gives a `StubRoute`); every call that arrives is handed to the conversation's
    callback, which answers it. `mcp=False` serves the POST endpoints and OpenAPI documents only
    (the `mcp` SDK, from the `voice` extra, is then never imported).

        async with StubServer() as server:
            with server.open(conversation_id, env.schemas(), answer) as route:
                ... give the bot route.base_url (or route.mcp_url) ...
    """

    def __init__(self, *, host: str = "127.0.0.1", mcp: bool = True, shutdown_timeout_s: float = 5.0) -> None:
        self.host, self.mcp = host, mcp
        self._shutdown_timeout_s = shutdown_timeout_s
        self._routes = StubRoutes()
        self._uvicorn: uvicorn.Server | None = None
        self._socket: socket.socket | None = None
        self._port: int | None = None
        self._used = False

    @property
    def port(self) -> int:
        """The port it listens on (after `start()`)."""
        if self._port is None:
            raise StubServerError("the stub server is not running: start() it first")
        return self._port

    @property
    def base_url(self) -> str:
        """`http://HOST:PORT` (after `start()`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether it is serving."""
        return self._uvicorn is not None

    def open(self, conversation_id: str, tools: Iterable[Mapping[str, Any]], callback: StubCallback) -> StubRoute:
        """Serve `tools` (`[{"name", "description", "parameters"}]`, as `ToolEnvironment.schemas()`
        gives them) for one conversation until the route is closed; `callback` answers each call."""
        if self._uvicorn is None:
            raise StubServerError("the stub server is not running: start() it first")
        base = self.base_url
        return self._routes.open(conversation_id, tools, callback, lambda key: f"{base}{PREFIX}/{key}")

    async def start(self) -> None:
        """Bind a free port on `host` and start serving; returns once connections are accepted."""
        if self._used:
            raise StubServerError("a stub server starts once: make a new one")
        self._used = True
        door = _mcp_door(self._routes, self.host) if self.mcp else None

        @asynccontextmanager
        async def lifespan(_: FastAPI) -> AsyncIterator[None]:
            async with AsyncExitStack() as stack:
                if door is not None:
                    await stack.enter_async_context(door.running())
                yield

        app = build_app(self._routes, mcp=door, lifespan=lifespan)
        config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, lifespan="on",
                                ws="none", timeout_graceful_shutdown=max(1, round(self._shutdown_timeout_s)))
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        sock = _listening_socket(self.host)
        try:
            await server.startup(sockets=[sock])
        except SystemExit:  # uvicorn exits when the app's startup fails; the cause is logged
            sock.close()
            raise StubServerError("the stub server failed to start (see the log)") from None
        self._uvicorn, self._socket, self._port = server, sock, int(sock.getsockname()[1])

    async def stop(self) -> None:
        """Close every route (calls still running are answered "call ended"), then stop serving.
        Stopping a server that is not running does nothing."""
        self._routes.close_all()
        server, sock = self._uvicorn, self._socket
        if server is None:
            return
        self._uvicorn = self._socket = None
        await server.shutdown(sockets=[sock] if sock is not None else None)

    async def __aenter__(self) -> StubServer:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.stop()


def _mcp_door(routes: StubRoutes, host: str) -> McpDoor:
    """The MCP door; the SDK is imported here, only when a server with MCP starts."""
    try:
        from ._mcp import McpDoor
    except ImportError as exc:
        raise StubServerError(f"the stub server's MCP endpoint needs the mcp SDK ({exc}): pip install "
                              f"'{POLYGON_DISTRIBUTION}[voice]', or serve HTTP only with mcp=False") from None
    return McpDoor(routes, host=host)
