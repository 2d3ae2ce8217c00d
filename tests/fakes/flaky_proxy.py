"""A reverse proxy on loopback that answers 503 to some HTTP requests, as a busy Prefect API does.

Every `every`-th plain HTTP request is answered `503 Service Unavailable` without reaching the
upstream (so no request is half-done upstream); the others are forwarded with httpx. WebSocket
upgrades (Prefect's event stream) are piped through as raw bytes, untouched.
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType

import httpx

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "upgrade"}


class FlakyProxy:
    """`with FlakyProxy("http://127.0.0.1:4200", every=7) as proxy: proxy.url`."""

    def __init__(self, upstream: str, *, every: int) -> None:
        self.upstream = upstream.rstrip("/")
        self.every = every
        self.requests = 0
        self.refused = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        """The proxy's base URL (same path layout as the upstream)."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FlakyProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._client = httpx.AsyncClient(base_url=self.upstream, timeout=60)
        server = self._loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, target, headers = _parse(head)
                if headers.get("upgrade", "").lower() == "websocket":
                    await self._pipe(head, reader, writer)
                    return
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.requests += 1
                if self.requests % self.every == 0:
                    self.refused += 1
                    writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                else:
                    writer.write(await self._forward(method, target, headers, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _forward(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        sent = {k: v for k, v in headers.items() if k not in _HOP and k != "host"}
        reply = await self._client.request(method, target, headers=sent, content=body)
        lines = [f"HTTP/1.1 {reply.status_code} {reply.reason_phrase}"]
        lines += [f"{k}: {v}" for k, v in reply.headers.items() if k.lower() not in _HOP]
        lines.append(f"Content-Length: {len(reply.content)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + reply.content

    async def _pipe(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = httpx.URL(self.upstream)
        up_reader, up_writer = await asyncio.open_connection(upstream.host, upstream.port)
        up_writer.write(head)

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while chunk := await src.read(65536):
                    dst.write(chunk)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                dst.close()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))


def _parse(head: bytes) -> tuple[str, str, dict[str, str]]:
    first, *rest = head.decode("latin-1").split("\r\n")
    method, target, _version = first.split(" ", 2)
    headers = {}
    for line in rest:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return method, target, headers
